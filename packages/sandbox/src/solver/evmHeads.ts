/**
 * Follows an EVM node's new heads over its WebSocket (`eth_subscribe` "newHeads", served by anvil on its HTTP port),
 * so the solver's deposit watch (evmWatch.ts) asks the node for logs when a block has arrived, as an indexer does,
 * instead of asking for the head several times a second while nothing happens.
 */
import type { Logger } from 'pino';
import { createPublicClient, webSocket, type Chain } from 'viem';

/** The last head a node announced. */
export interface HeadFollower {
  /** The block number of the last head announced (at first the head given); undefined once the subscription failed. */
  latest(): bigint | undefined;
  /** Ends the subscription and closes the socket. Idempotent. */
  close(): void;
}

/**
 * Subscribes to a node's new heads.
 *
 * @param wsUrl the node's WebSocket endpoint, e.g. `ws://127.0.0.1:40123`
 * @param chain viem chain definition of the node
 * @param head the node's head when the watch starts (read over HTTP): what `latest()` says until a head is announced
 * @param log where a failed subscription is reported (the watch then polls as before)
 * @returns the follower; never rejects (a failure shows as `latest()` undefined)
 */
export function followHeads(wsUrl: string, chain: Chain, head: bigint, log: Logger): HeadFollower {
  const client = createPublicClient({ chain, transport: webSocket(wsUrl, { keepAlive: false, reconnect: false, retryCount: 0 }) });
  let latest = head;
  let failed = false;
  let closed = false;
  // Over a WebSocket transport viem subscribes (eth_subscribe "newHeads") instead of polling.
  const unwatch = client.watchBlockNumber({
    onBlockNumber: (n) => {
      latest = n; // a reorg may announce a lower head: the watch compares it with the next block it scans
    },
    onError: (error) => {
      if (closed) return;
      failed = true;
      log.warn({ err: error, chainId: chain.id }, 'new heads subscription failed; polling the head instead');
    },
  });
  return {
    latest: () => (failed ? undefined : latest),
    close() {
      if (closed) return;
      closed = true;
      unwatch();
      void client.transport.getRpcClient().then(
        (rpc) => rpc.close(),
        () => undefined, // never connected: nothing to close
      );
    },
  };
}
