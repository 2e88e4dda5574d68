/**
 * A Bitcoin deposit the node does not know is never declared dead on a passed deadline (issue "never pay twice",
 * item 1), on the sandbox with Ballast's real pipeline:
 * - before its order deadline, a deposit the node lost is sent again exactly as signed, and lands;
 * - past its deadline, Ballast does not fail the transfer (the old deposit can still be mined from any other
 *   node's mempool): it replaces the deposit with a transaction returning its inputs to our wallet at a higher
 *   fee, written ahead, and keeps the transfer in flight; the old deposit can then no longer be mined; only once
 *   the replacement is mined at the reorg depth, and no deposit for the order is proven twice, is the transfer
 *   failed and the need paid again: exactly one deposit reaches the depository;
 * - a deposit still in the mempool past its deadline is replaced there by fee and can never come back;
 * - a deposit ended by our own cancel is failed even when the depository is too busy for a search to prove anything;
 * - a cancel a reorg removed, with the deposit mined in its place, loses its receipt, and the ledger counts the deposit;
 * - under the kill switch, nothing is sent again and nothing is signed.
 */
import { address as btcAddress, networks, Psbt } from 'bitcoinjs-lib';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ESPLORA_MEMPOOL_PAGE } from '../../../packages/ballast/src/chains/bvm/findDeposit.ts';
import { ABSENCE_RECHECK_MS } from '../../../packages/ballast/src/cycle/reconcile.ts';
import type { BitcoinSandboxNode } from '../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import { regtestKey } from '../chains/bvm/harness.ts';
import { getTransfer, listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { getLedgerEntry } from '../../../packages/ballast/src/store/ledger.ts';
import { sandboxPerTest, tempDir } from '../helpers/sandboxBallast.ts';
import { NON_EVM_CONFIG, oneTransferTreasury } from './treasury.ts';

const sb = sandboxPerTest();
const TIMEOUT_MS = 150_000;
const tmp = tempDir('ballast-btc-lost-');
afterAll(() => tmp.cleanup());

const AMOUNT = 10_000_000n; // 0.1 BTC
/** Deadline of the first quote, s: longer than any lead Ballast asks of a Bitcoin deposit. */
const FIRST_DEADLINE_SEC = 4_000;

const bitcoinChain = (extra: Record<string, unknown> = {}) => {
  const chains = NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>;
  return { ...chains, bitcoin: { ...chains.bitcoin, inclusionWaitSec: 1, ...extra } };
};

async function start(opts: { killSwitchFile?: string } = {}) {
  const s = await sb.start({ solana: true, bitcoin: true, bitcoinBlockMs: 0 });
  s.setFaults({ bitcoinQuoteDeadlineSec: FIRST_DEADLINE_SEC });
  let clock = Date.now();
  const t = await oneTransferTreasury(
    s,
    tmp.dir,
    {
      asset: 'BTC',
      from: 'bitcoin',
      to: 'alpha',
      amount: AMOUNT,
      reserve: 100_000n,
      chains: bitcoinChain(),
      tracking: { pollMs: 200, timeoutSec: 10 },
    },
    { now: () => clock },
  );
  if (opts.killSwitchFile) {
    // The kill-switch file is looked for at every cycle; its presence engages the switch. Only the file's path
    // is read from `limits` by the gate, so a limits object holding just that is what the loader would build.
    (t.config.policy as { limits?: object }).limits = { ...t.config.policy.limits, killSwitchFile: opts.killSwitchFile };
  }
  return { s, t, advance: (ms: number) => (clock += ms), now: () => clock };
}

/**
 * Lets the first order's deadline pass (later quotes stay valid at the advanced clock) and runs the cycle that
 * finds the deposit unmined past it and cancels it.
 */
async function passTheDeadline({ s, t, advance }: Awaited<ReturnType<typeof start>>) {
  advance((FIRST_DEADLINE_SEC + 60) * 1000);
  s.setFaults({ bitcoinQuoteDeadlineSec: 80_000 });
  return t.ballast.runCycle('once');
}

/**
 * Runs cycles until the transfer is final as success, or `boundMs` of wall time passed. The sandbox's solver
 * fills on its own (wall-clock) schedule, so a fixed count of cycles is not enough on a loaded machine.
 */
async function cycleUntilSuccess(t: Awaited<ReturnType<typeof start>>['t'], id: number, boundMs = 60_000): Promise<void> {
  const until = Date.now() + boundMs;
  while ((await getTransfer(t.ballast.db, id))!.status !== 'success' && Date.now() < until) {
    await t.ballast.runCycle('once');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const depositsTo = (s: Awaited<ReturnType<typeof start>>['s']) => s.bitcoin!.node.listPayments(s.bitcoin!.depository);

/** The miner fee a recorded Bitcoin transaction pays, satoshis (bvmTxRecord writes `fee`). */
const feeOf = (x: { request: unknown }) => BigInt((x.request as { fee: string }).fee);

/** Runs the cycle that signs and sends the first deposit; its transfer and deposit transaction. */
async function firstDeposit(t: Awaited<ReturnType<typeof start>>['t']) {
  await t.ballast.runCycle('once');
  const [row] = await listRecentTransfers(t.ballast.db, 1);
  if (!row) throw new Error('the first cycle recorded no transfer');
  return { row, deposit: row.txs[0]! };
}

/** Runs the two cycles whose proofs of absence, at least ABSENCE_RECHECK_MS apart, may fail a transfer. */
async function twoProofs({ t, advance }: Awaited<ReturnType<typeof start>>) {
  await t.ballast.runCycle('once');
  advance(ABSENCE_RECHECK_MS + 1_000);
  return t.ballast.runCycle('once');
}

/**
 * `n` coins of a stranger's wallet, mined, and the payments to a depository each of them makes (signed, not sent):
 * one funding transaction fans out into `n` outputs, so the payments do not depend on each other.
 */
function strangerCoins(node: BitcoinSandboxNode, n: number): { payments(depository: string): string[] } {
  const key = regtestKey('p2wpkh', 0x5e);
  const script = btcAddress.toOutputScript(key.address, networks.regtest);
  const funded = BigInt(n) * 1_000_000n + 20_000n; // 20,000 sat of fee for the fan-out
  const funding = node.faucet(key.address, funded);
  const fan = new Psbt({ network: networks.regtest });
  fan.addInput({ hash: funding.txid, index: funding.vout, witnessUtxo: { script, value: funded } });
  for (let i = 0; i < n; i++) fan.addOutput({ script, value: 1_000_000n });
  fan.signAllInputs(key.signer).finalizeAllInputs();
  const fanTx = fan.extractTransaction();
  node.broadcast(fanTx.toHex());
  node.mine(1);
  return {
    payments: (depository) =>
      Array.from({ length: n }, (_, i) => {
        const pay = new Psbt({ network: networks.regtest });
        pay.addInput({ hash: fanTx.getId(), index: i, witnessUtxo: { script, value: 1_000_000n } });
        pay.addOutput({ address: depository, value: 990_000n });
        pay.signAllInputs(key.signer).finalizeAllInputs();
        return pay.extractTransaction().toHex();
      }),
  };
}

describe('a Bitcoin deposit the node lost', () => {
  it('is sent again exactly as signed while its deadline allows, and lands', { timeout: TIMEOUT_MS }, async () => {
    const { s, t } = await start();
    try {
      s.bitcoin!.node.dropNextBroadcasts(1); // answered, never kept: evicted at once
      const { row } = await firstDeposit(t);
      expect(row.status).toBe('broadcast');
      expect(s.bitcoin!.node.mempoolTxids()).not.toContain(row.txs[0]!.txHash);
      await t.ballast.runCycle('once'); // reconcile: unknown, deadline ahead → sent again
      expect(s.bitcoin!.node.mempoolTxids()).toContain(row.txs[0]!.txHash);
      expect(await t.ballast.metrics.registry.getSingleMetricAsString('ballast_origin_rebroadcasts_total')).toMatch(
        /chain="bitcoin",kind="deposit"} 1/,
      );
      s.bitcoin!.node.mine(1);
      await cycleUntilSuccess(t, row.id);
      expect((await getTransfer(t.ballast.db, row.id))!.status).toBe('success');
      expect(depositsTo(s).map((p) => p.txid)).toEqual([row.txs[0]!.txHash]);
    } finally {
      await t.ballast.close();
    }
  });

  it(
    'past its deadline is replaced, not declared dead; failed only once the replacement is mined deep, and the need is paid once',
    { timeout: TIMEOUT_MS },
    async () => {
      const started = await start();
      const { s, t, advance } = started;
      const node = s.bitcoin!.node;
      try {
        node.dropNextBroadcasts(1);
        const { row, deposit } = await firstDeposit(t);
        expect(row.status).toBe('broadcast');

        // The deadline passes with the deposit unknown to our node (another node may still hold it).
        const replacing = await passTheDeadline(started);
        expect(replacing.plan.transfers).toEqual([]); // still in flight: nothing planned again
        const after = (await getTransfer(t.ballast.db, row.id))!;
        expect(after.status).toBe('broadcast'); // before: origin_failed on "unknown + deadline passed"
        expect(after.cancels).toHaveLength(1);
        const replacement = after.cancels[0]!;
        expect(replacement.stepId).toBe(`${deposit.stepId}:cancel`);
        expect(node.mempoolTxids()).toContain(replacement.txHash);
        // The old deposit can no longer be mined: its inputs are spent by the replacement.
        expect(() => node.broadcast(deposit.rawTx)).toThrow();

        // Mined, but not yet at the reorg depth: still in flight, nothing planned.
        node.mine(5);
        await t.ballast.runCycle('once');
        expect((await getTransfer(t.ballast.db, row.id))!.status).toBe('broadcast');
        node.mine(1);
        const proof = await t.ballast.runCycle('once'); // first proof of absence
        expect(proof.plan.transfers).toEqual([]);
        expect((await getTransfer(t.ballast.db, row.id))!.status).toBe('broadcast');
        advance(ABSENCE_RECHECK_MS + 1_000);
        const again = await t.ballast.runCycle('once'); // second proof: failed, then planned and paid again
        expect((await getTransfer(t.ballast.db, row.id))!.status).toBe('origin_failed');
        expect(again.attempts).toHaveLength(1);
        const [second] = await listRecentTransfers(t.ballast.db, 1);
        expect(second!.id).not.toBe(row.id);
        node.mine(1);
        await cycleUntilSuccess(t, second!.id);
        expect((await getTransfer(t.ballast.db, second!.id))!.status).toBe('success');
        // The treasury paid the amount once, plus two deposits' and one replacement's miner fees.
        // Exactly one deposit reached the depository, the second transfer's (its amount is what the planner saw
        // spare once the replacement's fee was paid); the treasury paid it, its fee and the replacement's fee once.
        expect(depositsTo(s).map((p) => [p.txid, p.value])).toEqual([[second!.txs[0]!.txHash, second!.amountIn]]);
        expect(feeOf(replacement)).toBeGreaterThan(feeOf(deposit)); // BIP-125: it out-pays the deposit it replaces
        expect(t.fromBefore - (await t.from.balance())).toBe(second!.amountIn + feeOf(second!.txs[0]!) + feeOf(replacement));
        expect(await t.ballast.metrics.registry.getSingleMetricAsString('ballast_origin_replacements_total')).toMatch(
          /chain="bitcoin",outcome="sent"} 1/,
        );
        // The failed transfer's ledger entry holds the replacement's miner fee (all it cost): nothing received, no Relay fee.
        const entry = await getLedgerEntry(t.ballast.db, row.id);
        expect(entry).toMatchObject({ status: 'origin_failed', gasPaid: feeOf(replacement), receivedOut: null, fees: null });
        expect(entry!.gasUsdMicros).toBeGreaterThan(0n);
        expect(entry!.totalFeesUsdMicros).toBe(entry!.gasUsdMicros);
      } finally {
        await t.ballast.close();
      }
    },
  );

  it(
    'still in the mempool past its deadline is replaced there by fee (BIP-125), and never reaches the depository',
    { timeout: TIMEOUT_MS },
    async () => {
      const started = await start();
      const { s, t, advance } = started;
      const node = s.bitcoin!.node;
      try {
        const { row, deposit } = await firstDeposit(t);
        expect(node.mempoolTxids()).toEqual([deposit.txHash]); // sent, not mined (no block comes)
        await passTheDeadline(started);
        const replacement = (await getTransfer(t.ballast.db, row.id))!.cancels[0]!;
        expect(node.mempoolTxids()).toEqual([replacement.txHash]); // the deposit was evicted by the replacement
        expect(() => node.broadcast(deposit.rawTx)).toThrow(/insufficient fee/); // and cannot come back
        node.mine(6);
        await twoProofs(started);
        const failed = (await getTransfer(t.ballast.db, row.id))!;
        expect(failed.status).toBe('origin_failed');
        // First looked at once mined 6 deep: its receipt is recorded all the same, block included.
        expect(failed.cancels[0]).toMatchObject({
          txHash: replacement.txHash,
          status: 'confirmed',
          blockNumber: BigInt(node.tipHeight() - 5),
        });
        expect(depositsTo(s).map((p) => p.txid)).not.toContain(deposit.txHash);
      } finally {
        await t.ballast.close();
      }
    },
  );

  it(
    'ended by our own cancel is failed even when the depository is too busy to search (50 strangers in its mempool)',
    { timeout: TIMEOUT_MS },
    async () => {
      const started = await start();
      const { s, t, advance } = started;
      const node = s.bitcoin!.node;
      try {
        const strangers = strangerCoins(node, ESPLORA_MEMPOOL_PAGE); // mined before Ballast's deposit
        const { row } = await firstDeposit(t);
        await passTheDeadline(started); // the cancel replaces the deposit in the mempool
        node.mine(6);
        // The depository is busy: as many unconfirmed payments as Esplora lists on a page, so a search of its
        // transactions can prove nothing absent. Our own cancel, mined deep, spent every input the deposit had.
        for (const raw of strangers.payments(s.bitcoin!.depository)) node.broadcast(raw);
        await twoProofs(started);
        expect((await getTransfer(t.ballast.db, row.id))!.status).toBe('origin_failed'); // before: in flight for ever
      } finally {
        await t.ballast.close();
      }
    },
  );

  it(
    'whose cancel a reorg removed and that was mined instead is tracked on; the ledger counts the deposit, not the cancel',
    { timeout: TIMEOUT_MS },
    async () => {
      const started = await start();
      const { s, t, advance } = started;
      const node = s.bitcoin!.node;
      try {
        const { row, deposit } = await firstDeposit(t);
        await passTheDeadline(started);
        const cancel = (await getTransfer(t.ballast.db, row.id))!.cancels[0]!;
        node.mine(1);
        await t.ballast.runCycle('once'); // the cancel's receipt is recorded (one block deep: no proof yet)
        expect((await getTransfer(t.ballast.db, row.id))!.cancels[0]!.status).toBe('confirmed');
        // A reorg takes the cancel out; another node's copy of the deposit is mined in its place.
        node.invalidateTip();
        node.evict(cancel.txHash);
        node.broadcast(deposit.rawTx);
        node.mine(1);
        await t.ballast.runCycle('once');
        const after = (await getTransfer(t.ballast.db, row.id))!;
        expect(after.status).not.toBe('origin_failed');
        expect(after.cancels[0]).toMatchObject({ txHash: cancel.txHash, status: 'sent', blockNumber: null }); // reorged
        node.mine(3);
        const until = Date.now() + 60_000; // the sandbox refunds a deposit mined after its deadline, on its own schedule
        while (!['refund', 'success', 'failure'].includes((await getTransfer(t.ballast.db, row.id))!.status) && Date.now() < until) {
          await t.ballast.runCycle('once');
          await new Promise((r) => setTimeout(r, 200));
        }
        const entry = await getLedgerEntry(t.ballast.db, row.id);
        expect(entry).toMatchObject({ gasPaid: feeOf(deposit) }); // before: null, read from the vanished cancel
      } finally {
        await t.ballast.close();
      }
    },
  );

  it('under the kill switch is neither sent again nor replaced', { timeout: TIMEOUT_MS }, async () => {
    const killFile = path.join(tmp.dir, 'halt');
    const { s, t, advance } = await start({ killSwitchFile: killFile });
    try {
      s.bitcoin!.node.dropNextBroadcasts(1);
      const { row } = await firstDeposit(t);
      writeFileSync(killFile, 'halt');
      await t.ballast.runCycle('once');
      expect(s.bitcoin!.node.mempoolTxids()).toEqual([]); // not sent again
      advance((FIRST_DEADLINE_SEC + 60) * 1000);
      await t.ballast.runCycle('once');
      const after = (await getTransfer(t.ballast.db, row.id))!;
      expect(after.cancels).toEqual([]); // nothing signed
      expect(after.status).toBe('broadcast');
      expect(s.bitcoin!.node.mempoolTxids()).toEqual([]);
    } finally {
      await t.ballast.close();
    }
  });
});
