/**
 * Every fee cap and every verification rule, end to end on real anvil chains: the sandbox serves a quote that
 * breaks one rule; the cycle must refuse it, record why, and sign nothing (treasury nonce and balances unchanged).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import type { TamperKind } from '../../packages/sandbox/src/faults.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { exitCodeFor } from '../../packages/ballast/src/cycle/runCycle.ts';
import { cycleSummary } from '../../packages/ballast/src/cli/cycleSummary.ts';
import { ballastOnSandbox, tempDir, treasuryNonce, usdcBalance } from './helpers/sandboxBallast.ts';

let sandbox: Sandbox;
const tmp = tempDir('ballast-refusals-');

beforeAll(async () => {
  sandbox = await startSandbox({});
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});
beforeEach(() => sandbox.resetFaults());

async function snapshot() {
  return {
    nonceAlpha: await treasuryNonce(sandbox, 'alpha'),
    nonceBeta: await treasuryNonce(sandbox, 'beta'),
    alpha: await usdcBalance(sandbox, 'alpha'),
    beta: await usdcBalance(sandbox, 'beta'),
  };
}

/**
 * Caps that isolate one fee component each (totalBps is mandatory, so the other cases set a generous
 * one); the fault pushes exactly that component over its cap.
 */
const FEE_CASES: { reason: string; maxFees: Record<string, unknown>; fault: Record<string, unknown> }[] = [
  { reason: 'total_bps', maxFees: { totalBps: 5 }, fault: { swapBps: 10 } },
  { reason: 'total_usd', maxFees: { totalBps: 1000, totalUsd: '1' }, fault: { executionUsd: '2' } },
  { reason: 'execution_usd', maxFees: { totalBps: 1000, components: { execution: { usd: '0.5' } } }, fault: { executionUsd: '1' } },
  { reason: 'swap_bps', maxFees: { totalBps: 1000, components: { swap: { bps: 5 } } }, fault: { swapBps: 10 } },
  { reason: 'platform_bps', maxFees: { totalBps: 1000, components: { platform: { bps: 1 } } }, fault: { platformBps: 5 } },
  { reason: 'app_bps', maxFees: { totalBps: 1000, components: { app: { bps: 0 } } }, fault: { appBps: 3 } },
];

describe('fee policy on sandbox quotes', () => {
  it.each(FEE_CASES)('skips a quote over the $reason cap, records the reason, signs nothing', async ({ reason, maxFees, fault }) => {
    sandbox.setFaults({ extraFees: fault });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, { policy: { maxFees } });
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('refused');
      expect(exitCodeFor(report.outcome)).toBe(3);
      expect(report.attempts).toHaveLength(1);
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('skipped_fee');
      expect(attempt.fee?.accepted).toBe(false);
      expect(attempt.fee && !attempt.fee.accepted && attempt.fee.reason).toBe(reason);
      const row = await ballast.db.get<{ accepted: number; reason: string }>(
        'SELECT accepted, reason FROM fee_decisions WHERE quote_id = ?',
        attempt.quoteId!,
      );
      expect(row).toEqual({ accepted: 0, reason });
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(0);
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});

/** Each tamper and the verification rule that must catch it. */
const TAMPER_CASES: { tamper: TamperKind; rule: string }[] = [
  { tamper: 'recipient', rule: 'recipient' },
  { tamper: 'outputCurrency', rule: 'output-currency' },
  { tamper: 'outputChain', rule: 'output-chain' },
  { tamper: 'expiredDeadline', rule: 'deadline' },
  { tamper: 'orderId', rule: 'order-id' },
  { tamper: 'depository', rule: 'depository' },
  { tamper: 'depositor', rule: 'depositor' },
  { tamper: 'depositId', rule: 'deposit-id' },
  { tamper: 'nativeValue', rule: 'deposit-kind' },
  { tamper: 'approveAmount', rule: 'approve' },
  { tamper: 'approveSpender', rule: 'approve-spender' },
  { tamper: 'approveToken', rule: 'approve-needed' },
  { tamper: 'approveRouter', rule: 'approve-spender' },
  { tamper: 'extraStep', rule: 'no-unexpected-steps' },
  { tamper: 'orderSignature', rule: 'order-signature' },
  { tamper: 'refundRecipient', rule: 'refund-recipient' },
  { tamper: 'refundCurrency', rule: 'refund-terms' },
  { tamper: 'farDeadline', rule: 'deadline-horizon' },
  { tamper: 'extraData', rule: 'extra-data' },
  { tamper: 'solver', rule: 'solver' },
  { tamper: 'paymentWeight', rule: 'payment-weight' },
  { tamper: 'detailsOutAmount', rule: 'details-consistency' },
];

/**
 * Tampers that lower what the order guarantees are caught before verification: the fee policy bounds the
 * order's worst case (payment − minimumAmount), whatever `details` claim.
 */
const GUARANTEE_TAMPERS: TamperKind[] = ['minimumAmount', 'paymentAmount'];

describe('fee policy on tampered sandbox quotes that guarantee too little', () => {
  it.each(GUARANTEE_TAMPERS)('skips a quote with tampered %s on guaranteed_loss_bps and signs nothing', async (tamper) => {
    sandbox.setFaults({ tamper });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('skipped_fee');
      expect(attempt.fee?.accepted ? null : attempt.fee?.reason).toBe('guaranteed_loss_bps');
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(0);
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});

describe('local verification on tampered sandbox quotes', () => {
  it.each(TAMPER_CASES)('refuses a quote with tampered $tamper on rule $rule and signs nothing', async ({ tamper, rule }) => {
    sandbox.setFaults({ tamper });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('refused');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('refused_verification');
      const failed = attempt.verdict!.rules.filter((r) => !r.ok).map((r) => r.rule);
      expect(failed).toContain(rule);
      const row = (await ballast.db.get<{ ok: number; rules_json: string }>(
        'SELECT ok, rules_json FROM verdicts WHERE quote_id = ?',
        attempt.quoteId!,
      ))!;
      expect(row.ok).toBe(0);
      expect((JSON.parse(row.rules_json) as { rule: string; ok: boolean }[]).filter((r) => !r.ok).map((r) => r.rule)).toEqual(failed);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(0);
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});

describe('deadline too close to send every item', () => {
  it('refuses a quote whose order expires before its two transactions and the fill fit (120 s), signs nothing', async () => {
    sandbox.setFaults({ quoteDeadlineSec: 100 });
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir);
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      const attempt = report.attempts[0]!;
      expect(attempt.outcome).toBe('refused_verification');
      expect(attempt.verdict!.rules.filter((r) => !r.ok).map((r) => r.rule)).toEqual(['deadline']);
      expect(await listRecentTransfers(ballast.db, 10)).toHaveLength(0);
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});

describe('unreadable chain', () => {
  it('plans nothing that touches a chain whose RPC is down, records why, and reports the cycle as failed (exit 1)', async () => {
    // Port 9 (discard) on loopback: nothing listens, every read fails at once.
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_BETA_RPC: 'http://127.0.0.1:9' });
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('error'); // a partial failure: beta's targets are unknown, nothing claims they are in band
      expect(exitCodeFor(report.outcome)).toBe(1);
      expect(cycleSummary(report)).toEqual([
        'nothing to move this cycle, though 2 targets are out of band or unread:',
        '  USDC alpha is 30000 USDC above max (90000 > 60000 USDC), and no holding of USDC that was read has a deficit to receive it (beta could not be read)',
        expect.stringMatching(/^ {2}USDC beta could not be read \(.+\); nothing was planned for it$/),
      ]);
      expect(report.plan.transfers).toHaveLength(0);
      expect(report.plan.decisions.filter((d) => d.kind === 'chain_unreadable').map((d) => d.chain)).toContain('beta');
      const rows = await ballast.db.all<{ chain: string; amount: string | null; error: string | null }>(
        'SELECT chain, amount, error FROM balances ORDER BY chain',
      );
      expect(rows.find((r) => r.chain === 'alpha')!.amount).toBe((90_000n * 1_000_000n).toString());
      const beta = rows.find((r) => r.chain === 'beta')!;
      expect(beta.amount).toBeNull();
      expect(beta.error).toBeTruthy();
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });

  it('plans nothing on a chain whose RPC serves another chain id, naming the YAML path and the fix', async () => {
    const alphaRpc = sandbox.chains.find((c) => c.def.slug === 'alpha')!.rpcUrl;
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, {}, { SANDBOX_BETA_RPC: alphaRpc });
    const before = await snapshot();
    try {
      const report = await ballast.runCycle('once');
      expect(report.outcome).toBe('error');
      expect(report.plan.transfers).toHaveLength(0);
      const beta = report.balances.filter((b) => b.chain === 'beta');
      expect(beta.length).toBeGreaterThan(0);
      for (const b of beta) {
        expect(b.amount).toBeNull();
        expect(b.error).toBe('chains.beta.rpcUrl serves chain id 31001, but chains.beta.chainId is 31002; point rpcUrl at chain 31002');
      }
      expect(await snapshot()).toEqual(before);
    } finally {
      await ballast.close();
    }
  });
});
