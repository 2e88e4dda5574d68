/**
 * A loopback TCP proxy that fails the way a network does, for "one replica loses its database" cases:
 *
 * - `cut()` resets every open connection and resets new ones on accept, until `restore()` (a peer or a middlebox
 *   that answers with RST: the client learns at once);
 * - `blackhole()` keeps every socket open and delivers nothing in either direction, new connections included,
 *   until `heal()` (a partition: packets are dropped and the sender retransmits; nobody learns anything). On
 *   heal, what was held is delivered in order, as TCP retransmission would, and a side that closed meanwhile is
 *   closed then.
 */
import net from 'node:net';

/** A running proxy. */
export interface TcpProxy {
  /** Port the proxy listens on (127.0.0.1). */
  port: number;
  /** Destroys every connection through the proxy and refuses new ones (each is reset on accept). */
  cut(): void;
  /** Accepts and forwards connections again after {@link cut}. */
  restore(): void;
  /** Holds every byte and every close in both directions, on open and new connections, until {@link heal}. */
  blackhole(): void;
  /** Delivers what was held, in order, and forwards again. */
  heal(): void;
  /** Connections open through the proxy now. */
  connections(): number;
  close(): Promise<void>;
}

/** One direction of a connection: bytes and the final close, held while the path is blackholed. */
interface Direction {
  held: Array<Buffer | 'end' | 'reset'>;
  to: net.Socket;
}

/**
 * Starts a proxy from a free loopback port to `127.0.0.1:targetPort`.
 *
 * @param targetPort the real server's port
 */
export async function startTcpProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const directions = new Set<Direction>();
  const waiting: Array<() => void> = [];
  let severed = false;
  let dark = false;

  const deliver = (d: Direction, item: Buffer | 'end' | 'reset'): void => {
    if (dark) {
      d.held.push(item);
    } else if (item === 'end') {
      d.to.end();
    } else if (item === 'reset') {
      d.to.resetAndDestroy();
    } else if (!d.to.destroyed) {
      d.to.write(item);
    }
  };
  const wire = (from: net.Socket, to: net.Socket): void => {
    const d: Direction = { held: [], to };
    directions.add(d);
    from.on('data', (chunk: Buffer) => deliver(d, chunk));
    from.on('end', () => deliver(d, 'end'));
    from.on('error', () => deliver(d, 'reset'));
    from.on('close', () => {
      if (d.held.length === 0) directions.delete(d);
    });
  };
  const track = (s: net.Socket): void => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined); // surfaced to the other side as a reset by wire()
  };
  const forward = (client: net.Socket): void => {
    if (client.destroyed) return; // it gave up while the path was dark
    const upstream = net.connect(targetPort, '127.0.0.1');
    track(upstream);
    wire(client, upstream);
    wire(upstream, client);
    client.resume();
  };
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (client) => {
    if (severed) {
      client.resetAndDestroy();
      return;
    }
    track(client);
    if (dark) waiting.push(() => forward(client));
    else forward(client);
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
    blackhole() {
      dark = true;
    },
    heal() {
      dark = false;
      for (const d of directions) {
        for (const item of d.held.splice(0)) deliver(d, item);
      }
      for (const start of waiting.splice(0)) start();
    },
    connections: () => sockets.size,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
