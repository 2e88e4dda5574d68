/**
 * `relay.quoteApi: v3` under a total fee cap, end to end on the sandbox: a /quote/v3 quote has no `fees.gas`, so
 * the cycle prices the origin chain's network cost with GET /currencies/token/price (src/cycle/originPrice.ts).
 *
 * 1. The price endpoint answers 500: the quote is skipped as `origin_cost_unknown` (fail closed), nothing is signed,
 *    and the unreadable price is logged once.
 * 2. It answers: the ERC-20 route alpha → beta moves, and the recorded fee breakdown's origin cost is
 *    Σ gas × maxFeePerGas of the quote's transactions × the sandbox's ETH price (3000 USD), rounded up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { getQuote } from '../../packages/ballast/src/store/quotes.ts';
import { EvmTxDataSchema } from '../../packages/protocol/src/relay/schemas.ts';
import { formatUsdMicros } from '../../packages/protocol/src/core/units.ts';
import { ballastOnSandbox, tempDir, treasuryNonce } from './helpers/sandboxBallast.ts';
import { NEED, NEED_BALANCES, readTreasury } from './faults/helpers/treasuryNeed.ts';

const tmp = tempDir('ballast-v3-origin-cost-');
let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ balances: NEED_BALANCES, apiKey: 'sk-v3-origin-cost' });
}, 120_000);
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
}, 60_000);

/** demo.yaml on /quote/v3 with its total caps (30 bps, 25 USD); alpha → beta needs 20 000 USDC. */
const V3 = { relay: { quoteApi: 'v3', apiKey: 'sk-v3-origin-cost' } };
const ETH_USD_MICROS = 3_000_000_000n; // the sandbox's ETH price, 3000 USD (packages/sandbox/src/quote/prices.ts)

describe('/quote/v3 origin cost priced with GET /currencies/token/price', () => {
  it('fails closed when the price is unreadable: skipped as origin_cost_unknown, nothing signed, logged once', async () => {
    sandbox.setFaults({ tokenPriceError: true });
    const { ballast, logLines } = ballastOnSandbox(sandbox, tmp.dir, V3);
    try {
      const nonce = await treasuryNonce(sandbox, 'alpha');
      const report = await ballast.runCycle('once');
      const attempt = report.attempts.find((a) => a.planned.from.chain === 'alpha' && a.planned.to.chain === 'beta');
      expect(attempt?.outcome).toBe('skipped_fee');
      const fee = attempt && 'fee' in attempt ? attempt.fee : undefined;
      expect(fee && !fee.accepted ? fee.reason : undefined).toBe('origin_cost_unknown');
      expect(await treasuryNonce(sandbox, 'alpha')).toBe(nonce);
      const unreadable = logLines.filter((l) => l.includes('native currency price unreadable'));
      expect(unreadable).toHaveLength(1);
      expect(unreadable[0]).toContain('GET /currencies/token/price');
    } finally {
      await ballast.close();
      sandbox.setFaults({ tokenPriceError: false });
    }
  }, 120_000);

  it('moves money on an ERC-20 route with the origin cost = gas × maxFeePerGas × ETH price, rounded up', async () => {
    const { ballast } = ballastOnSandbox(sandbox, tmp.dir, V3);
    try {
      const before = await readTreasury(sandbox);
      const report = await ballast.runCycle('once');
      const attempt = report.attempts.find((a) => a.planned.from.chain === 'alpha' && a.planned.to.chain === 'beta');
      expect(attempt?.outcome).toBe('success');
      const after = await readTreasury(sandbox);
      expect(before.alpha - after.alpha).toBe(NEED);

      const quote = attempt!.quote!;
      let wei = 0n;
      for (const step of quote.steps) {
        for (const item of step.items) {
          const data = EvmTxDataSchema.parse(item.data);
          wei += BigInt(data.gas!) * BigInt(data.maxFeePerGas!);
        }
      }
      expect(quote.steps.map((s) => s.id)).toEqual(['approve', 'deposit']);
      expect(quote.fees?.['gas']).toBeUndefined(); // a v3 quote: the price came from the endpoint
      const expectedMicros = (wei * ETH_USD_MICROS + 10n ** 18n - 1n) / 10n ** 18n;
      expect(expectedMicros).toBeGreaterThan(0n);
      const row = await getQuote(ballast.db, attempt!.quoteId!);
      expect(row?.fee?.accepted).toBe(true);
      const breakdown = row?.fee?.breakdown as { originCostUsd: string | null; totalUsd: string };
      expect(breakdown.originCostUsd).toBe(formatUsdMicros(expectedMicros));
    } finally {
      await ballast.close();
    }
  }, 180_000);
});
