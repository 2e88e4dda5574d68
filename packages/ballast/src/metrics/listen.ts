/**
 * Starting and stopping a node:http server on a `host:port`, shared by the metrics server and the webhook
 * receiver's own listener.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A listening server: its base URL (the real port when 0 was asked) and how to stop it. */
export interface ListeningServer {
  url: string;
  /** Stops listening and drops open connections. */
  close(): Promise<void>;
}

/**
 * Listens on `host:port`.
 *
 * @param onError turns a listen failure (address in use, bad host) into the caller's error
 * @throws whatever `onError` returns, when the server cannot listen
 */
export async function listenOn(
  server: Server,
  host: string,
  port: number,
  onError: (err: NodeJS.ErrnoException) => Error,
): Promise<ListeningServer> {
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => reject(onError(err));
    server.once('error', failed);
    server.listen(port, host, () => {
      server.off('error', failed);
      resolve();
    });
  });
  const address = server.address() as AddressInfo; // listening on TCP: address() is an AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${shownHost}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
