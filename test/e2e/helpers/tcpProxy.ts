/**
 * A loopback TCP proxy that can cut the connections passing through it, for "one replica loses its database"
 * cases: `cut()` destroys every open connection and refuses new ones until `restore()`.
 */
import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** Port the proxy listens on (127.0.0.1). */
  port: number;
  /** Destroys every connection through the proxy and refuses new ones (each is reset on accept). */
  cut(): void;
  /** Accepts and forwards connections again. */
  restore(): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy from a free loopback port to `127.0.0.1:targetPort`.
 *
 * @param targetPort the real server's port
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let severed = false;
  const server = net.createServer((client) => {
    if (severed) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined); // a cut or a refused upstream ends both sides below
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    cut() {
      severed = true;
      for (const s of sockets) s.resetAndDestroy();
    },
    restore() {
      severed = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
