/**
 * Tampered Solana instructions and tampered PSBTs served by the sandbox reach Ballast's real pipeline: each is
 * refused by local verification on its rule and nothing is signed: no transfer row, no transaction at the node,
 * balances unchanged. And an oversized Solana route triggers the documented re-quote sequence (maxRouteLength 4,
 * then 3, then one swap source), recorded attempt by attempt, before the transfer goes through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VmTamperKind } from '../../../packages/sandbox/src/faults.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { tempDir } from '../helpers/sandboxBallast.ts';
import { NON_EVM_CONFIG, oneTransferTreasury } from './treasury.ts';

let sandbox: Sandbox;
const tmp = tempDir('ballast-nonevm-refusals-');
beforeAll(async () => {
  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 });
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

const RESERVE_SATS = 100_000n;

/**
 * Each tamper and the rule that must refuse it. A PSBT that overpays its miner is already skipped by the fee
 * policy (`fee`: its miner fee counts in the total against maxFees.totalUsd and totalBps), before verification would refuse
 * it on `fee-cap`.
 */
const TAMPERS: { kind: VmTamperKind; rule: string; fee?: string }[] = [
  { kind: 'psbtExtraOutput', rule: 'change' },
  { kind: 'psbtAmount', rule: 'deposit-kind' },
  { kind: 'psbtDepository', rule: 'deposit-call' },
  { kind: 'psbtNoOpReturn', rule: 'deposit-id' },
  { kind: 'psbtForeignInput', rule: 'origin-inputs' },
  { kind: 'psbtChangeStranger', rule: 'change' },
  { kind: 'psbtHighFee', rule: 'fee-cap', fee: 'total_usd' },
  { kind: 'psbtMinerFee', rule: 'miner-fee-cap', fee: 'total_usd' },
  { kind: 'svmExtraTransfer', rule: 'no-unexpected-steps' },
  { kind: 'svmVault', rule: 'deposit-call' },
  { kind: 'svmAmount', rule: 'deposit-kind' },
];

describe('tampered Solana and Bitcoin quotes', () => {
  it.each(TAMPERS)('$kind is refused on $rule and nothing is signed', async ({ kind, rule, fee }) => {
    const bitcoin = kind.startsWith('psbt');
    const from = bitcoin ? 'bitcoin' : 'solana';
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: bitcoin ? 'BTC' : 'USDC',
      from,
      to: 'alpha',
      amount: bitcoin ? 10_000_000n : 1_000_000_000n,
      reserve: bitcoin ? RESERVE_SATS : 0n,
    });
    const mempoolBefore = sandbox.bitcoin!.node.mempoolTxids().length;
    const depositsBefore = sandbox.solana!.node.listDeposits().length;
    sandbox.setFaults({ tamper: kind });
    try {
      const report = await t.ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      if (fee) {
        expect(attempt.outcome).toBe('skipped_fee');
        expect(attempt.fee).toMatchObject({ accepted: false, reason: fee, detail: expect.stringContaining('origin cost') });
      } else {
        expect(attempt.outcome).toBe('refused_verification');
        expect(attempt.verdict?.rules.filter((r) => !r.ok).map((r) => r.rule)).toContain(rule);
        expect(report.outcome).toBe('refused');
      }
      expect(await listRecentTransfers(t.ballast.db, 5)).toEqual([]);
      expect(sandbox.bitcoin!.node.mempoolTxids()).toHaveLength(mempoolBefore);
      expect(sandbox.solana!.node.listDeposits()).toHaveLength(depositsBefore);
      expect(await t.from.balance()).toBe(t.fromBefore);
    } finally {
      sandbox.resetFaults();
      await t.ballast.close();
    }
  });
});

describe('an oversized Solana route', () => {
  async function quoteLog(): Promise<{ maxRouteLength: number | null; includedOriginSwapSources: string[] | null }[]> {
    const body = (await (await fetch(`${sandbox.apiUrl}/_sandbox/solana-quotes`)).json()) as {
      requests: { maxRouteLength: number | null; includedOriginSwapSources: string[] | null }[];
    };
    return body.requests.map((r) => ({ maxRouteLength: r.maxRouteLength, includedOriginSwapSources: r.includedOriginSwapSources }));
  }

  it('is quoted again with maxRouteLength 4, then 3, then the configured single source, and then succeeds', async () => {
    const seen = (await quoteLog()).length;
    const chains = NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>;
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: 'USDC',
      from: 'solana',
      to: 'alpha',
      amount: 1_000_000_000n,
      chains: { ...chains, solana: { ...chains.solana, originSwapSource: 'orca' } },
    });
    sandbox.setFaults({ solanaTxTooLarge: { fitsAtMaxRouteLength: null, fitsWithSingleSource: true } });
    try {
      const report = await t.ballast.runCycle('once');
      expect(report.attempts[0]!.outcome, report.attempts[0]!.error).toBe('success');
      expect((await quoteLog()).slice(seen)).toEqual([
        { maxRouteLength: null, includedOriginSwapSources: null },
        { maxRouteLength: 4, includedOriginSwapSources: null },
        { maxRouteLength: 3, includedOriginSwapSources: null },
        { maxRouteLength: 3, includedOriginSwapSources: ['orca'] },
      ]);
      const errors = await t.ballast.db.all<{ message: string }>('SELECT message FROM quote_errors ORDER BY id');
      expect(errors).toHaveLength(3);
      expect(errors.every((e) => e.message.includes('SOLANA_TX_TOO_LARGE'))).toBe(true);
    } finally {
      sandbox.resetFaults();
      await t.ballast.close();
    }
  });

  it('without a configured source, gives up after maxRouteLength 3 with the reason and signs nothing', async () => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, { asset: 'USDC', from: 'solana', to: 'alpha', amount: 1_000_000_000n });
    sandbox.setFaults({ solanaTxTooLarge: { fitsAtMaxRouteLength: null, fitsWithSingleSource: true } });
    try {
      const report = await t.ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('quote_error');
      expect(attempt.error).toContain('after 3 attempts narrowing Solana routing: maxRouteLength 3');
      expect(attempt.error).toContain('originSwapSource');
      expect(await listRecentTransfers(t.ballast.db, 5)).toEqual([]);
      expect(await t.from.balance()).toBe(t.fromBefore);
    } finally {
      sandbox.resetFaults();
      await t.ballast.close();
    }
  });
});

describe('deadlines that leave time for the chain', () => {
  /** The test chains leave Bitcoin's lead at its default (600 s × 1 confirmation + 600 s). */

  it("a Bitcoin quote whose order deadline is 95 s ahead is refused on deadline, naming chains.bitcoin's lead; nothing is signed", async () => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: 'BTC',
      from: 'bitcoin',
      to: 'alpha',
      amount: 10_000_000n,
      reserve: RESERVE_SATS,
    });
    const mempoolBefore = sandbox.bitcoin!.node.mempoolTxids().length;
    sandbox.setFaults({ bitcoinQuoteDeadlineSec: 95 });
    try {
      const report = await t.ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('refused_verification');
      const failed = attempt.verdict!.rules.filter((r) => !r.ok);
      expect(failed.map((r) => r.rule)).toEqual(['deadline']);
      expect(failed[0]!.detail).toContain("chains.bitcoin's minimum deadline lead of 1200 s");
      expect(await listRecentTransfers(t.ballast.db, 5)).toEqual([]);
      expect(sandbox.bitcoin!.node.mempoolTxids()).toHaveLength(mempoolBefore);
      expect(await t.from.balance()).toBe(t.fromBefore);
    } finally {
      sandbox.resetFaults();
      await t.ballast.close();
    }
  });

  it('an EVM quote with a deadline 125 s ahead passes verification and is sent (its lead is 60 s + 30 s per transaction)', async () => {
    // A USDC deposit from alpha is an approval and a deposit: 120 s of lead; 125 s leaves it 5 s to spare, while
    // the Bitcoin default above needs 1200 s.
    const t = await oneTransferTreasury(sandbox, tmp.dir, { asset: 'USDC', from: 'alpha', to: 'solana', amount: 1_000_000_000n });
    sandbox.setFaults({ quoteDeadlineSec: 125 });
    try {
      const report = await t.ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.verdict?.ok, JSON.stringify(attempt.verdict?.rules.filter((r) => !r.ok))).toBe(true);
      expect(attempt.outcome, attempt.error).toBe('success');
    } finally {
      sandbox.resetFaults();
      await t.ballast.close();
    }
  });
});
