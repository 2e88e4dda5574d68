/**
 * The Solana adapter's pre-sign simulation (src/chains/svm/simulate.ts) against the sandbox Solana node (litesvm):
 * `sign` simulates the unsigned message (`sigVerify: false`, `replaceRecentBlockhash: true`, `minContextSlot` the
 * blockhash's slot) and signs exactly that message only when it succeeds; a deposit that would fail is refused with
 * no signature made and nothing sent; a node that cannot simulate (behind `minContextSlot`, an answer from an older
 * slot, an HTTP error) is a node error, not a refusal, and nothing is signed either. `broadcast` never simulates:
 * the signed bytes are sent without a preflight even when a simulation would now fail, and a send error is never a
 * refusal (signed bytes a node has seen may land).
 */
import { LAMPORTS_PER_SOL, VersionedTransaction } from '@solana/web3.js';
import { base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { isBroadcastRefusal } from '../../../../packages/ballast/src/chains/adapter.ts';
import { SvmRpcError, SvmSimulationFailedError } from '../../../../packages/ballast/src/chains/svm/errors.ts';
import { parseSvmTxRecord } from '../../../../packages/ballast/src/chains/svm/txRecord.ts';
import {
  adapterFor,
  adapterNodePerFile,
  rpcTap,
  sandboxQuote,
  WALLET,
  WALLET_NAME,
  type RpcBody,
} from '../../../e2e/chains/svm/svmAdapterKit.ts';

/** 500 USDC: less than the 1000 USDC a token quote pays, so a token deposit fails and a native one does not. */
const env = adapterNodePerFile({ lamports: 20n * BigInt(LAMPORTS_PER_SOL), usdcBaseUnits: 500_000_000n });
const me = WALLET.publicKey.toBase58();

/** An adapter over a fresh tap of the node. */
function tapped() {
  const tap = rpcTap();
  return { tap, adapter: adapterFor(env.node, { tap }) };
}

/** The params of the only request of `method` the tap saw. */
function onlyRequest(tap: ReturnType<typeof rpcTap>, method: string): unknown[] {
  const found = tap.requests.filter((r) => r.method === method);
  expect(found, `${method} requests`).toHaveLength(1);
  return found[0]!.params as unknown[]; // web3.js posts params as an array
}

/** Rejects with `promise`'s error, failing the test when it resolves. */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('svm adapter sign: the unsigned message is simulated first', () => {
  it('simulates the exact message it then signs, with no signature, the blockhash replaced, at the blockhash slot', async () => {
    const { tap, adapter } = tapped();
    const q = sandboxQuote(env.node, 'native', env.table);
    const signed = await adapter.sign(WALLET_NAME, q.item);

    const [wire, config] = onlyRequest(tap, 'simulateTransaction') as [string, Record<string, unknown>];
    const record = parseSvmTxRecord(signed.request)!;
    expect(config).toEqual({
      sigVerify: false,
      replaceRecentBlockhash: true,
      commitment: 'confirmed',
      minContextSlot: record.blockhashSlot,
      encoding: 'base64',
    });
    const simulated = VersionedTransaction.deserialize(base64.decode(wire));
    expect(simulated.signatures.map((s) => s.every((b) => b === 0))).toEqual([true]); // no signature left the process
    const sent = VersionedTransaction.deserialize(base64.decode(signed.rawTx));
    expect(Buffer.from(simulated.message.serialize()).equals(Buffer.from(sent.message.serialize()))).toBe(true);
    expect(tap.calls.indexOf('getLatestBlockhash')).toBeLessThan(tap.calls.indexOf('simulateTransaction'));
    expect(tap.calls).not.toContain('sendTransaction');

    await adapter.broadcast(signed.rawTx);
    expect(await adapter.waitForInclusion(signed, 10_000)).toMatchObject({ kind: 'mined', status: 'confirmed' });
    expect(env.node.listDeposits().filter((d) => d.event.id === q.orderId)).toHaveLength(1);
  });

  it('refuses a deposit that would fail before any signature exists: the program logs, nothing sent, no fee', async () => {
    const { tap, adapter } = tapped();
    const q = sandboxQuote(env.node, 'token', env.table); // 1000 USDC from a wallet holding 500
    const lamportsBefore = env.node.balance(me);
    const depositsBefore = env.node.listDeposits().length;

    const error = await rejection(adapter.sign(WALLET_NAME, q.item));
    expect(error).toBeInstanceOf(SvmSimulationFailedError);
    const failed = error as SvmSimulationFailedError; // checked just above
    expect(failed.code).toBe('SVM_SIMULATION_FAILED');
    expect(failed.err).toMatchObject({ InstructionError: [2, expect.anything()] }); // the deposit, after two compute-budget instructions
    expect(failed.logs.length).toBeGreaterThan(0);
    expect(failed.message).toMatch(
      /^chains\.solana\.rpcUrl: simulateTransaction of deposit item 0 \(unsigned\) failed with \{"InstructionError":\[2,.*\}; nothing was signed or sent and no fee was paid; program logs: /,
    );
    expect(isBroadcastRefusal(error)).toBe(false); // a sign failure, not a send refusal
    expect(tap.calls).not.toContain('sendTransaction');
    expect(env.node.balance(me)).toBe(lamportsBefore);
    expect(env.node.listDeposits()).toHaveLength(depositsBefore);
  });

  it('does not sign when the node is behind the blockhash slot (-32016): a node error, not a refusal', async () => {
    const { tap, adapter } = tapped();
    tap.rewrite('simulateTransaction', (body: RpcBody, params) => {
      const asked = (params as [string, { minContextSlot: number }])[1].minContextSlot; // the adapter's own request
      const error = { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: asked - 1 } };
      return { jsonrpc: body.jsonrpc, id: body.id, error }; // what a node behind `minContextSlot` answers
    });
    const error = await rejection(adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item));
    expect(error).toBeInstanceOf(SvmRpcError);
    expect((error as SvmRpcError).method).toBe('simulateTransaction'); // checked just above
    expect((error as SvmRpcError).message).toMatch(
      /^chains\.solana\.rpcUrl: simulateTransaction failed: .*Minimum context slot has not been reached; could not simulate deposit item 0 on a node at slot \d+ or later, so nothing was signed; the next cycle tries again$/,
    );
    expect(isBroadcastRefusal(error)).toBe(false);
    expect(tap.calls).not.toContain('sendTransaction');
  });

  it('does not sign on an answer from a slot below minContextSlot (a node that ignores the parameter)', async () => {
    const { tap, adapter } = tapped();
    let asked = 0;
    tap.rewrite('simulateTransaction', (body, params) => {
      asked = (params as [string, { minContextSlot: number }])[1].minContextSlot; // the adapter's own request
      const result = body.result as { context: { slot: number }; value: unknown }; // the node answered a result
      return { ...body, result: { ...result, context: { ...result.context, slot: asked - 1 } } };
    });
    const error = await rejection(adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item));
    expect(error).toBeInstanceOf(SvmRpcError);
    expect((error as Error).message).toBe(
      `chains.solana.rpcUrl: simulateTransaction was answered at slot ${asked - 1}, below ${asked}; could not simulate deposit item 0 on a node at slot ${asked} or later, so nothing was signed; the next cycle tries again`,
    );
    expect(tap.calls).not.toContain('sendTransaction');
  });

  it('does not sign when the simulation call itself fails', async () => {
    const { tap, adapter } = tapped();
    env.node.failNextRpc('simulateTransaction', 1);
    const error = await rejection(adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item));
    expect(error).toBeInstanceOf(SvmRpcError);
    expect((error as Error).message).toMatch(/^chains\.solana\.rpcUrl: simulateTransaction failed: .*so nothing was signed/);
    expect(tap.calls.filter((m) => m === 'simulateTransaction')).toHaveLength(1);
    expect(tap.calls).not.toContain('sendTransaction');
  });
});

describe('svm adapter broadcast: signed bytes are sent, never simulated or refused', () => {
  it('sends without a preflight even when a simulation would now fail; the transaction lands (failed, fee paid)', async () => {
    const { tap, adapter } = tapped();
    const q = sandboxQuote(env.node, 'native', env.table);
    const signed = await adapter.sign(WALLET_NAME, q.item);
    const lamportsBefore = env.node.balance(me);
    const before = tap.requests.length;
    env.node.failDeposits('simulated'); // from now on the deposit fails, simulated or landed
    try {
      await adapter.broadcast(signed.rawTx);
      expect(tap.requests.slice(before).map((r) => r.method)).toEqual(['sendTransaction']);
      expect((onlyRequest(tap, 'sendTransaction') as [string, Record<string, unknown>])[1]).toMatchObject({
        skipPreflight: true,
        maxRetries: 0,
      });
      expect(await adapter.waitForInclusion(signed, 10_000)).toMatchObject({ kind: 'mined', status: 'reverted' });
      expect(env.node.balance(me)).toBeLessThan(lamportsBefore); // it reached the chain: the fee was paid
      expect(env.node.listDeposits().filter((d) => d.event.id === q.orderId)).toEqual([]);
    } finally {
      env.node.failDeposits('off');
    }
  });

  it('answers a failed send with a node error, never a refusal', async () => {
    const { adapter } = tapped();
    const signed = await adapter.sign(WALLET_NAME, sandboxQuote(env.node, 'native', env.table).item);
    env.node.failNextRpc('sendTransaction', 1);
    const error = await rejection(adapter.broadcast(signed.rawTx));
    expect(error).toBeInstanceOf(SvmRpcError);
    expect((error as SvmRpcError).method).toBe('sendTransaction'); // checked just above
    expect(isBroadcastRefusal(error)).toBe(false);
  });
});
