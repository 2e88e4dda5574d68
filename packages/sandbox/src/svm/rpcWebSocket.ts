/**
 * The websocket (PubSub) side of the sandbox Solana node: signatureSubscribe (one notification when the
 * signature reaches the asked commitment, then the subscription ends, as on a validator — what web3.js's
 * `confirmTransaction` waits on), slotSubscribe and rootSubscribe, and their unsubscribe calls. Messages
 * without an `id` (web3.js's keep-alive `ping`) are ignored.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import WebSocket, { WebSocketServer } from 'ws';
import { z } from 'zod';
import type { LandedTransaction } from './ledger.ts';
import type { NodeFaults } from './nodeFaults.ts';
import { RPC_ERROR, RpcError, toJsonText } from './rpcError.ts';
import { commitmentSchema, normalizeCommitment, parseParams } from './rpcParams.ts';
import { FINALIZATION_DEPTH_SLOTS, type Commitment } from './slotClock.ts';
import type { SvmEngine } from './svmEngine.ts';

type Subscription = { kind: 'signature'; signature: string; commitment: Commitment } | { kind: 'slot' } | { kind: 'root' };

/** A listening websocket server. */
export interface RpcWebSocketServer {
  url: string;
  /** Open client connections. */
  clientCount(): number;
  close(): Promise<void>;
}

/** How long close() waits for clients to acknowledge a normal closure, ms. */
const CLOSE_GRACE_MS = 500;

const UNSUBSCRIBE: Record<string, Subscription['kind']> = {
  signatureUnsubscribe: 'signature',
  slotUnsubscribe: 'slot',
  rootUnsubscribe: 'root',
};

/**
 * Starts the websocket server on `host:port` (0: a free port) and ties it to the engine's slots and landings.
 *
 * @throws Error from `listen`
 */
export async function startRpcWebSocketServer(
  host: string,
  port: number,
  engine: SvmEngine,
  faults: NodeFaults,
  logger: Logger,
): Promise<RpcWebSocketServer> {
  const http = createServer((_req, res) => {
    res.writeHead(426, { 'content-type': 'text/plain' });
    res.end('websocket only');
  });
  const wss = new WebSocketServer({ server: http });
  const connections = new Map<WebSocket, Map<number, Subscription>>();
  let nextId = 1;

  const notify = (ws: WebSocket, method: string, subscription: number, result: unknown): void => {
    if (ws.readyState === WebSocket.OPEN) ws.send(toJsonText({ jsonrpc: '2.0', method, params: { result, subscription } }));
  };
  const signatureResult = (tx: LandedTransaction) => ({ context: { slot: tx.slot }, value: { err: tx.err } });
  const reached = (tx: LandedTransaction, commitment: Commitment): boolean =>
    commitment !== 'finalized' || engine.clock.slot - tx.slot >= FINALIZATION_DEPTH_SLOTS;
  /** Sends the signature notification if due; true when sent (the subscription then ends). */
  const settle = (ws: WebSocket, id: number, sub: Subscription): boolean => {
    if (sub.kind !== 'signature') return false;
    const tx = engine.ledger.get(sub.signature);
    if (tx === undefined || !reached(tx, sub.commitment)) return false;
    notify(ws, 'signatureNotification', id, signatureResult(tx));
    return true;
  };
  const settleAll = (): void => {
    for (const [ws, subs] of connections) {
      for (const [id, sub] of subs) if (settle(ws, id, sub)) subs.delete(id);
    }
  };

  const offLanded = engine.onLanded(() => settleAll());
  const offSlot = engine.onSlot((slot) => {
    const root = Math.max(0, slot - FINALIZATION_DEPTH_SLOTS);
    for (const [ws, subs] of connections) {
      for (const [id, sub] of subs) {
        if (sub.kind === 'slot') notify(ws, 'slotNotification', id, { parent: slot - 1, root, slot });
        if (sub.kind === 'root') notify(ws, 'rootNotification', id, root);
      }
    }
    settleAll();
  });

  const handle = (
    ws: WebSocket,
    subs: Map<number, Subscription>,
    method: string,
    params: unknown,
  ): { result: unknown; after?: () => void } => {
    if (method === 'signatureSubscribe') {
      const config = z.object({ commitment: commitmentSchema.nullish(), enableReceivedNotification: z.boolean().nullish() });
      const [signature, cfg] = parseParams(z.tuple([z.string().min(64).max(88), config.nullish()]), params);
      const id = nextId++;
      const sub: Subscription = { kind: 'signature', signature, commitment: normalizeCommitment(cfg?.commitment) };
      subs.set(id, sub);
      // A signature that already reached the commitment is notified right after the subscription answer.
      return { result: id, after: () => void (settle(ws, id, sub) && subs.delete(id)) };
    }
    if (method === 'slotSubscribe' || method === 'rootSubscribe') {
      const id = nextId++;
      subs.set(id, { kind: method === 'slotSubscribe' ? 'slot' : 'root' });
      return { result: id };
    }
    const kind = UNSUBSCRIBE[method];
    if (kind !== undefined) {
      const [id] = parseParams(z.tuple([z.number().int()]), params);
      const found = subs.get(id)?.kind === kind;
      if (found) subs.delete(id);
      return { result: found };
    }
    throw new RpcError(RPC_ERROR.METHOD_NOT_FOUND, `Method not found: ${method}`);
  };

  wss.on('connection', (ws) => {
    const subs = new Map<number, Subscription>();
    connections.set(ws, subs);
    ws.on('close', () => connections.delete(ws));
    ws.on('error', (error) => logger.debug({ err: error }, 'websocket client error'));
    ws.on('message', (raw) => {
      let request: { id?: unknown; method?: unknown; params?: unknown };
      try {
        request = JSON.parse(raw.toString()) as typeof request; // members checked below
      } catch {
        ws.send(toJsonText({ jsonrpc: '2.0', id: null, error: { code: RPC_ERROR.PARSE_ERROR, message: 'Parse error' } }));
        return;
      }
      const { id, method } = request;
      if (id === undefined) return; // a notification (web3.js `ping`): nothing to answer
      const replyId = typeof id === 'string' || typeof id === 'number' ? id : null;
      if (typeof method !== 'string') {
        ws.send(toJsonText({ jsonrpc: '2.0', id: replyId, error: { code: RPC_ERROR.INVALID_REQUEST, message: 'Invalid request' } }));
        return;
      }
      if (faults.takeRpcFailure(method)) {
        ws.send(toJsonText({ jsonrpc: '2.0', id: replyId, error: { code: RPC_ERROR.INTERNAL_ERROR, message: 'Internal error' } }));
        return;
      }
      try {
        const { result, after } = handle(ws, subs, method, request.params);
        ws.send(toJsonText({ jsonrpc: '2.0', id: replyId, result }));
        after?.();
      } catch (error) {
        const body = error instanceof RpcError ? error.toBody() : { code: RPC_ERROR.INTERNAL_ERROR, message: 'Internal error' };
        if (!(error instanceof RpcError)) logger.error({ err: error, method }, 'websocket handler threw');
        ws.send(toJsonText({ jsonrpc: '2.0', id: replyId, error: body }));
      }
    });
  });

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const address = http.address() as AddressInfo; // a TCP listener always reports an AddressInfo
  let closing: Promise<void> | undefined;
  return {
    url: `ws://${host}:${address.port}`,
    clientCount: () => connections.size,
    close: () =>
      (closing ??= (async () => {
        offLanded();
        offSlot();
        // A normal closure (1000) tells web3.js's client not to reconnect; stragglers are cut after a grace period.
        const open = [...connections.keys()];
        await Promise.all(
          open.map(
            (ws) =>
              new Promise<void>((resolve) => {
                const cut = setTimeout(() => {
                  ws.terminate();
                  resolve();
                }, CLOSE_GRACE_MS);
                ws.once('close', () => {
                  clearTimeout(cut);
                  resolve();
                });
                ws.close(1000, 'node closing');
              }),
          ),
        );
        connections.clear();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
        await new Promise<void>((resolve) => {
          http.close(() => resolve());
          http.closeAllConnections();
        });
      })()),
  };
}
