/**
 * Keeps a test on 127.0.0.1: `globalThis.fetch` refuses any other host (viem's http transports go through
 * it), and every TCP client socket the process opens is watched through the `net.client.socket` diagnostics
 * channel (node:http, axios and undici alike): a DNS lookup, a connection attempt (`connectionAttempt`, also
 * when it fails) or a connection to any other address is recorded even if it bypassed fetch.
 */
import diagnosticsChannel from 'node:diagnostics_channel';
import type { Socket } from 'node:net';

/** The only host a guarded test may reach. */
export const LOOPBACK_HOST = '127.0.0.1';

/** True when `url` (absolute, or relative to `base`) points at {@link LOOPBACK_HOST}. */
export function isLoopbackUrl(url: string, base?: string): boolean {
  return new URL(url, base).hostname === LOOPBACK_HOST;
}

/** An installed guard. */
export interface LoopbackGuard {
  /** Every refused or observed non-loopback attempt, e.g. `fetch https://api.relay.link/chains`, `dns api.relay.link`. */
  offLoopback: string[];
  /** Remote addresses of the TCP connections opened while installed (so a test can show the watch saw traffic). */
  connectedTo: string[];
  /** Puts the original fetch back and stops watching sockets. */
  uninstall(): void;
}

/**
 * Installs the guard for the whole process (call in `beforeAll`, uninstall in `afterAll`).
 *
 * @returns the guard; a refused fetch rejects with `Error('refused non-loopback request …')`
 */
export function installLoopbackGuard(): LoopbackGuard {
  const offLoopback: string[] = [];
  const connectedTo: string[] = [];
  const originalFetch = globalThis.fetch;
  globalThis.fetch = (input: string | URL | Request, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    if (!isLoopbackUrl(url)) {
      offLoopback.push(`fetch ${url}`);
      return Promise.reject(new Error(`refused non-loopback request to ${url}`));
    }
    return originalFetch(input, init);
  };

  const onSocket = (message: unknown) => {
    const { socket } = message as { socket: Socket }; // the net.client.socket channel publishes {socket}
    socket.once('lookup', (_err: Error | null, _address: string, _family: number | string, host: string) => {
      offLoopback.push(`dns ${host}`);
    });
    socket.on('connectionAttempt', (ip: string, port: number) => {
      if (ip !== LOOPBACK_HOST) offLoopback.push(`tcp ${ip}:${port}`);
    });
    socket.once('connect', () => {
      const remote = socket.remoteAddress; // undefined for a local pipe
      if (remote === undefined) return;
      connectedTo.push(remote);
      if (remote !== LOOPBACK_HOST) offLoopback.push(`tcp ${remote}:${socket.remotePort} (connected)`);
    });
  };
  diagnosticsChannel.subscribe('net.client.socket', onSocket);

  return {
    offLoopback,
    connectedTo,
    uninstall() {
      globalThis.fetch = originalFetch;
      diagnosticsChannel.unsubscribe('net.client.socket', onSocket);
    },
  };
}
