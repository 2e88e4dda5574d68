/**
 * A free TCP port on loopback for a server a test starts (daemon metrics, Prometheus, Pushgateway, webhooks):
 * bound on 127.0.0.1 port 0, read back, released.
 */
import { createServer } from 'node:net';

/** @returns a port that was free on 127.0.0.1 a moment ago */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port; // listening on TCP: address() is an AddressInfo
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
