/**
 * The faults a `ballast simulate` scenario can switch on (docs/simulate.md "Faults"), each run through the real
 * cycle: Relay API outages, quotes refused on a route, fills that fail (refunded) or arrive late, and fee spikes.
 * Every scenario is small: alpha pays 700 then 600 USDC, the second payment waits until Ballast refills alpha from
 * a donor; what the fault does to that refill is asserted from the run log and from Ballast's own store.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RelayApiError, RelayNetworkError } from '../../../packages/ballast/src/relay/errors.ts';
import { isRetryable } from '../../../packages/ballast/src/relay/retry.ts';
import { readBallastScenario } from '../../../packages/ballast/src/sim/ballastScenario.ts';
import { simChains, simIdentity, simToken } from '../../../packages/ballast/src/sim/identity.ts';
import { computeKpis } from '../../../packages/ballast/src/sim/kpis.ts';
import { inMemoryRelayClient } from '../../../packages/ballast/src/sim/relayApi.ts';
import { runScenario, type SimLog } from '../../../packages/ballast/src/sim/run.ts';
import { routeOf, type SimScenario } from '../../../packages/ballast/src/sim/scenario.ts';
import { SIM_START_MS, SimWorld, seededRandom } from '../../../packages/ballast/src/sim/world.ts';
import { openSqliteStore } from '../../../packages/ballast/src/store/openStore.ts';

const USDC = 1_000_000n;
const ROUTE = { delayMs: 600, jitterMs: 100, feeBps: 5, feeUsd: '0.10' };
const BAND = { min: '500', target: '1500', max: '2800' };

/** alpha: 1000 USDC in a 500/1000/2000 band, pays 700 at 1 s and 600 at 1.2 s; beta (and gamma) hold 3000. */
function scenario(fields: { routes?: Record<string, unknown>; outages?: { fromMs: number; toMs: number }[] }, gamma = false) {
  return readBallastScenario({
    name: 'faults',
    token: { symbol: 'USDC', decimals: 6 },
    chains: {
      alpha: { initial: '1000', holding: { min: '500', target: '1000', max: '2000' } },
      beta: { initial: '3000', holding: BAND },
      ...(gamma ? { gamma: { initial: '3000', holding: BAND } } : {}),
    },
    traffic: [
      { at: 1000, chain: 'alpha', payment: '700', id: 'rent' },
      { at: 1200, chain: 'alpha', payment: '600', id: 'payroll' },
    ],
    minTransfer: '10',
    ...fields,
    routes: { default: ROUTE, ...fields.routes },
  });
}

interface StoreRows {
  quoteErrors: { code: string; message: string; at_ms: number }[];
  feeDecisions: { accepted: number; reason: string | null; received_at_ms: number }[];
  transfers: { status: string; origin_chain: string }[];
  cycles: { started_at_ms: number; outcome: string; error: string | null }[];
}

/** Runs a scenario, keeping Ballast's store to read back what the cycle recorded (times ms after the start). */
async function run(s: SimScenario, seed = 3): Promise<{ log: SimLog; rows: StoreRows }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-faults-'));
  try {
    const log = await runScenario(s, { seed, storeDir: dir });
    const db = openSqliteStore(path.join(dir, 'simulate.db'));
    try {
      const at = SIM_START_MS;
      const rows: StoreRows = {
        quoteErrors: await db.all('SELECT code, message, at_ms - ? AS at_ms FROM quote_errors ORDER BY id', at),
        feeDecisions: await db.all(
          'SELECT f.accepted, f.reason, q.received_at_ms - ? AS received_at_ms FROM fee_decisions f JOIN quotes q ON q.id = f.quote_id ORDER BY q.id',
          at,
        ),
        transfers: await db.all('SELECT status, origin_chain FROM transfers ORDER BY id'),
        cycles: await db.all('SELECT started_at_ms - ? AS started_at_ms, outcome, error FROM cycles ORDER BY id', at),
      };
      return { log, rows };
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const completedAt = (log: SimLog, id: string) => log.payments.find((p) => p.id === id)?.completedAtMs;

describe('faults a simulate scenario switches on', () => {
  it('an API outage: cycles inside the window fail, no quote succeeds there, the refill and the payment come after it', async () => {
    const outage = { fromMs: 500, toMs: 6000 };
    const { log, rows } = await run(scenario({ outages: [outage] }));
    const inside = rows.cycles.filter((c) => c.started_at_ms >= outage.fromMs && c.started_at_ms < outage.toMs);
    expect(inside.length).toBeGreaterThan(0);
    for (const c of inside) {
      expect(c.outcome).toBe('error');
      expect(c.error).toMatch(/GET \/chains failed: .*could not be reached/);
    }
    expect(log.cycleErrors).toHaveLength(inside.length);
    expect(rows.cycles.filter((c) => c.started_at_ms >= outage.toMs).every((c) => c.outcome === 'ok')).toBe(true);
    // No quote was answered inside the window; the refill was quoted after it and filled.
    expect(log.transfers.length).toBeGreaterThan(0);
    for (const t of log.transfers) expect(t.quotedAtMs).toBeGreaterThanOrEqual(outage.toMs);
    expect(log.transfers.filter((t) => t.outcome === 'filled').map((t) => [t.origin, t.destination])).toEqual([['beta', 'alpha']]);
    expect(rows.transfers).toEqual([{ status: 'success', origin_chain: 'beta' }]);
    expect(computeKpis(log).completionRate).toBe(1);
    expect(completedAt(log, 'payroll')).toBeGreaterThan(outage.toMs);
  });

  it('refused quotes on a route: the API refusal is recorded, nothing moves on it, the deficit is served by the other donor', async () => {
    const { log, rows } = await run(scenario({ routes: { 'beta->alpha': { ...ROUTE, refuseQuotes: true } } }, true));
    expect(rows.quoteErrors.length).toBeGreaterThan(0);
    for (const e of rows.quoteErrors) {
      expect(e.code).toBe('RELAY_HTTP_400');
      expect(e.message).toContain('errorCode NO_QUOTES');
    }
    expect(log.transfers.some((t) => t.origin === 'beta')).toBe(false);
    expect(log.final.beta).toBe(3000n * USDC);
    const filled = log.transfers.filter((t) => t.outcome === 'filled');
    expect(filled.map((t) => [t.origin, t.destination])).toEqual([['gamma', 'alpha']]);
    expect(rows.transfers).toEqual([{ status: 'success', origin_chain: 'gamma' }]);
    expect(log.cycleErrors).toEqual([]);
    expect(computeKpis(log).completionRate).toBe(1);
  });

  it('a failed fill: the deposit is refunded to the treasury and the deficit is served by a later transfer', async () => {
    // Without jitter the solver's only draws from the world's seeded random are the failure draws: pick a seed whose
    // first draw fails the first fill (< 0.5) and whose second lets the next one through.
    const seed = Array.from({ length: 100 }, (_, i) => i + 1).find((n) => {
      const r = seededRandom(n);
      return r() < 0.5 && r() >= 0.5;
    })!;
    const { log, rows } = await run(scenario({ routes: { 'beta->alpha': { ...ROUTE, jitterMs: 0, failureRate: 0.5 } } }), seed);
    expect(log.transfers.map((t) => t.outcome)).toEqual(['refunded', 'filled']);
    expect(rows.transfers.map((t) => t.status)).toEqual(['refund', 'success']);
    expect(log.storeTransfers).toEqual({ refund: 1, success: 1 });
    const [refunded, filled] = log.transfers as [SimLog['transfers'][number], SimLog['transfers'][number]];
    expect(filled.quotedAtMs).toBeGreaterThanOrEqual(refunded.settledAtMs!);
    // beta only lost the filled transfer's input: the refunded deposit came back whole.
    expect(log.final.beta).toBe(3000n * USDC - filled.amountIn);
    expect(log.final.alpha).toBe(1000n * USDC - 1300n * USDC + filled.amountOut);
    expect(completedAt(log, 'payroll')).toBeGreaterThanOrEqual(filled.settledAtMs!);
    expect(computeKpis(log)).toMatchObject({ completionRate: 1, totalRebalances: 1, transfersMade: 2 });
  });

  it('late fills: the refill arrives extraMs later, so latency and time below min grow by as much', async () => {
    const base = await run(scenario({}));
    const late = await run(scenario({ routes: { default: { ...ROUTE, lateFills: { rate: 1, extraMs: 5000 } } } }));
    const fill = (log: SimLog) => log.transfers.find((t) => t.outcome === 'filled')!;
    expect(fill(late.log).quotedAtMs).toBe(fill(base.log).quotedAtMs);
    expect(fill(late.log).settledAtMs! - fill(base.log).settledAtMs!).toBeGreaterThanOrEqual(5000);
    expect(completedAt(late.log, 'payroll')! - completedAt(base.log, 'payroll')!).toBeGreaterThanOrEqual(5000);
    const k = computeKpis(late.log);
    const k0 = computeKpis(base.log);
    expect(k.completionRate).toBe(1);
    expect(k.p99Latency).toBeGreaterThanOrEqual(k0.p99Latency + 5000);
    expect(k.perChainMetrics.alpha!.timeBelowMinMs!).toBeGreaterThanOrEqual(k0.perChainMetrics.alpha!.timeBelowMinMs! + 5000);
  });

  it("a fee spike: Ballast's fee policy skips the spiked quotes and refills at the normal fee after the window", async () => {
    const spike = { fromMs: 0, toMs: 5000, feeBps: 800 }; // above the generated config's 500 bps total cap
    const { log, rows } = await run(scenario({ routes: { default: { ...ROUTE, feeSpikes: [spike] } } }));
    const inside = rows.feeDecisions.filter((d) => d.received_at_ms < spike.toMs);
    expect(inside.length).toBeGreaterThan(0);
    expect(inside.every((d) => d.accepted === 0 && d.reason === 'total_bps')).toBe(true);
    for (const t of log.transfers.filter((x) => x.quotedAtMs < spike.toMs)) expect(t.outcome).toBe('notDeposited');
    const filled = log.transfers.filter((t) => t.outcome === 'filled');
    expect(filled).toHaveLength(1);
    expect(filled[0]!.quotedAtMs).toBeGreaterThanOrEqual(spike.toMs);
    expect(filled[0]!.fee).toBe((filled[0]!.amountIn * 5n) / 10_000n + USDC / 10n);
    expect(rows.transfers).toEqual([{ status: 'success', origin_chain: 'beta' }]);
    expect(computeKpis(log).completionRate).toBe(1);
  });
});

describe("the faults' scenario fields", () => {
  it("reads fee spikes (a fee left out keeps the route's own) and late fills; refuses an empty spike window", () => {
    const s = scenario({
      routes: {
        'beta->alpha': { ...ROUTE, feeSpikes: [{ fromMs: 100, toMs: 200, feeBps: 900 }], lateFills: { rate: 0.25, extraMs: 3000 } },
      },
    });
    expect(routeOf(s, 'beta', 'alpha')).toMatchObject({
      feeSpikes: [{ fromMs: 100, toMs: 200, fees: { bps: 900, flatUsd: '0.10' } }],
      lateFills: { rate: 0.25, extraMs: 3000 },
    });
    expect(routeOf(s, 'alpha', 'beta').feeSpikes).toBeUndefined();
    expect(() => scenario({ routes: { default: { ...ROUTE, feeSpikes: [{ fromMs: 200, toMs: 200, feeBps: 900 }] } } })).toThrow(
      /toMs after fromMs/,
    );
  });
});

describe('the in-memory Relay service fails as the real API does', () => {
  const seed = 5;
  const s = scenario({
    routes: {
      'beta->alpha': { ...ROUTE, refuseQuotes: true },
      'alpha->beta': { ...ROUTE, feeSpikes: [{ fromMs: 2000, toMs: 3000, feeUsd: '7.5' }] },
    },
    outages: [{ fromMs: 10_000, toMs: 11_000 }],
  });
  const world = () => {
    const id = simIdentity(seed);
    return new SimWorld({
      seed,
      chains: simChains(s.chains),
      token: simToken(seed, 'USDC', 6),
      identity: id,
      treasury: s.initial,
      route: (o, d) => routeOf(s, o, d),
      outages: s.outages,
    });
  };
  const request = (w: SimWorld, origin: string, destination: string, amount: bigint) => ({
    user: w.spec.identity.treasury.address,
    recipient: w.spec.identity.treasury.address,
    originChainId: w.chain(origin).chainId,
    destinationChainId: w.chain(destination).chainId,
    originCurrency: w.spec.token.address,
    destinationCurrency: w.spec.token.address,
    amount: amount.toString(),
    tradeType: 'EXACT_INPUT' as const,
    includeProtocolData: true as const,
  });

  it('a refused route answers HTTP 400 NO_QUOTES (a RelayApiError, not retried); an outage a network error', async () => {
    const w = world();
    const client = inMemoryRelayClient(w, { id: 1, alive: true }, w.relay.chainsDocument);
    const refused = await client.quote(request(w, 'beta', 'alpha', 100n * USDC)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RelayApiError);
    expect(refused).toMatchObject({ code: 'RELAY_HTTP_400', httpStatus: 400, errorCode: 'NO_QUOTES', endpoint: 'POST /quote/v2' });
    expect(isRetryable(refused)).toBe(false);
    const tooLow = await client.quote(request(w, 'alpha', 'beta', 100_000n)).catch((e: unknown) => e);
    expect(tooLow).toMatchObject({ httpStatus: 400, errorCode: 'AMOUNT_TOO_LOW' });
    w.advance(10_000);
    const down = await client.quote(request(w, 'alpha', 'beta', 100n * USDC)).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(RelayNetworkError);
    expect(isRetryable(down)).toBe(true);
  });

  it("inside a fee spike a quote's fee fields and its order's output carry the spiked fee", async () => {
    const w = world();
    const client = inMemoryRelayClient(w, { id: 1, alive: true }, w.relay.chainsDocument);
    const amount = 100n * USDC;
    const at = async (ms: number) => {
      w.advance(ms - w.elapsedMs);
      const { quote } = await client.quote(request(w, 'alpha', 'beta', amount));
      const out = BigInt(quote.protocol!.v2!.orderData.output.payments[0]!.expectedAmount);
      return { relayer: BigInt(quote.fees!.relayer!.amount), out };
    };
    const normal = (amount * 5n) / 10_000n + USDC / 10n;
    const spiked = (amount * 5n) / 10_000n + (75n * USDC) / 10n; // feeBps kept, feeUsd 7.5
    expect(await at(1000)).toEqual({ relayer: normal, out: amount - normal });
    expect(await at(2500)).toEqual({ relayer: spiked, out: amount - spiked });
    expect(await at(3000)).toEqual({ relayer: normal, out: amount - normal });
  });
});
