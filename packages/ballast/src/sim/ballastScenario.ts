/**
 * Reads Ballast's own scenario format (YAML or JSON once parsed; docs/simulate.md "Ballast scenarios"): the token,
 * each chain's starting treasury balance, its holding (a band or a weight), the traffic (payments out of and
 * receipts into holdings, at ms after the start), routes (delivery delay ± jitter, failure rate, fees, refused
 * quotes, fee spikes, late fills), Relay API outages, payments announced ahead of their time, the refill point,
 * and optionally a free-text `description` and the author's `expect` bounds on the KPIs. Amounts are whole-unit decimal strings here, base units once read. Pure.
 */
import { FlowStrategySchema } from '../config/strategySchema.ts';
import { parseUnits } from 'viem';
import { z } from 'zod';
import type { RouteSpec } from './solver.ts';
import { REFILL_POINT_RE, type Flow, type Holding, type SimExpectations, type SimScenario } from './scenario.ts';

const Whole = z.string().regex(/^[0-9]+(\.[0-9]+)?$/, 'expected a whole-unit decimal string, e.g. "250.5"');
const Ms = z.number().int().nonnegative();
const FeeBps = z.number().int().min(0).max(10_000);
const FeeUsd = z.string().regex(/^[0-9]+(\.[0-9]{1,6})?$/, 'expected a USD decimal string with at most 6 decimals, e.g. "0.10"');

/** A window in which a route quotes other fees; a fee left out keeps the route's normal one. */
const FeeSpikeSchema = z
  .strictObject({ fromMs: Ms, toMs: Ms, feeBps: FeeBps.optional(), feeUsd: FeeUsd.optional() })
  .refine((w) => w.toMs > w.fromMs, 'a fee spike needs toMs after fromMs');

const RouteSchema = z.strictObject({
  delayMs: Ms.default(500),
  jitterMs: Ms.default(0),
  failureRate: z.number().min(0).max(1).default(0),
  feeBps: FeeBps.default(0),
  feeUsd: FeeUsd.default('0'),
  refuseQuotes: z.boolean().default(false),
  feeSpikes: z.array(FeeSpikeSchema).default([]),
  lateFills: z.strictObject({ rate: z.number().min(0).max(1), extraMs: Ms }).optional(),
});

const HoldingSchema = z.union([
  z.strictObject({ min: Whole, target: Whole, max: Whole }),
  z.strictObject({ weight: z.number().positive(), toleranceBps: z.number().int().min(0).max(10_000).default(100) }),
]);

/** What the scenario's author expects Ballast to achieve with the scenario's own holdings (`SimExpectations`). */
const ExpectSchema = z.strictObject({
  minCompletionRate: z.number().min(0).max(1).optional(),
  maxRebalances: z.number().int().nonnegative().optional(),
  minRebalances: z.number().int().nonnegative().optional(),
  maxTimeBelowMinMs: Ms.optional(),
  maxFeesUsd: FeeUsd.optional(),
});

/** Ballast's scenario format. */
export const BallastScenarioSchema = z.strictObject({
  name: z.string().min(1),
  /** Free text: what the scenario tests. Not read by the run. */
  description: z.string().optional(),
  token: z.strictObject({
    symbol: z.string().regex(/^[A-Za-z0-9]+$/),
    decimals: z.number().int().min(0).max(36),
    priceUsd: z.string().default('1'),
  }),
  chains: z.record(z.string().regex(/^[a-z][a-z0-9-]*$/), z.strictObject({ initial: Whole, holding: HoldingSchema })),
  traffic: z.array(
    z.union([
      z.strictObject({ at: Ms, chain: z.string(), payment: Whole, id: z.string().optional(), announcedAheadMs: Ms.optional() }),
      z.strictObject({ at: Ms, chain: z.string(), receipt: Whole, id: z.string().optional() }),
    ]),
  ),
  routes: z.record(z.string(), RouteSchema).default({}),
  pollMs: z.number().int().positive().default(1000),
  retryMs: z.number().int().positive().default(200),
  drainMs: Ms.default(60_000),
  minTransfer: Whole.default('1'),
  maxTransfer: Whole.optional(),
  outages: z.array(z.strictObject({ fromMs: Ms, toMs: Ms })).default([]),
  /**
   * How long before its time every payment is known (a payment's own `announcedAheadMs` wins): the run records it as
   * a need that long ahead, so the cycle prepares for it. Absent: a payment is known when due.
   */
  announcedAheadMs: Ms.optional(),
  /** The token's `policy.refillTo`: `target` or a share of the band such as `"40%"`; absent: the product's default. */
  refillTo: z.string().regex(REFILL_POINT_RE, 'expected target or a share of the band such as "40%" (0% is min, 100% is max)').optional(),
  /** The token's `policy.strategy` entry, as in a Ballast config (`kind: flow`, …); absent: bands or weights alone. */
  strategy: FlowStrategySchema.optional(),
  /** The author's bounds on the KPIs of a run with the scenario's own holdings; carried as `expectations`, not run. */
  expect: ExpectSchema.optional(),
});

/** The `expect` block as `SimExpectations`, the fields given only. */
function toExpectations(e: z.infer<typeof ExpectSchema>): SimExpectations {
  return Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as SimExpectations;
}

const toRoute = (r: z.infer<typeof RouteSchema>): RouteSpec => ({
  delayMs: r.delayMs,
  jitterMs: r.jitterMs,
  failureRate: r.failureRate,
  fees: { bps: r.feeBps, flatUsd: r.feeUsd },
  refuseQuotes: r.refuseQuotes,
  ...(r.feeSpikes.length > 0
    ? {
        feeSpikes: r.feeSpikes.map((w) => ({
          fromMs: w.fromMs,
          toMs: w.toMs,
          fees: { bps: w.feeBps ?? r.feeBps, flatUsd: w.feeUsd ?? r.feeUsd },
        })),
      }
    : {}),
  ...(r.lateFills ? { lateFills: { ...r.lateFills } } : {}),
});

/**
 * Reads a Ballast scenario. Route keys are `default` or `origin->destination`.
 *
 * @throws Error one line: fewer than two chains, traffic or a route naming an unknown chain; ZodError when malformed
 */
export function readBallastScenario(doc: unknown): SimScenario {
  const b = BallastScenarioSchema.parse(doc);
  const chains = Object.keys(b.chains);
  if (chains.length < 2) throw new Error(`${b.name}: a scenario needs at least two chains`);
  const known = new Set(chains);
  const units = (whole: string) => parseUnits(whole, b.token.decimals);
  const flows: Flow[] = b.traffic.map((t, i) => {
    if (!known.has(t.chain)) throw new Error(`${b.name}: traffic #${i} names unknown chain ${t.chain}`);
    if (!('payment' in t)) return { id: t.id ?? `receipt-${i}`, kind: 'receipt', chain: t.chain, atMs: t.at, amount: units(t.receipt) };
    const ahead = t.announcedAheadMs ?? b.announcedAheadMs;
    return {
      id: t.id ?? `payment-${i}`,
      kind: 'payment',
      chain: t.chain,
      atMs: t.at,
      amount: units(t.payment),
      ...(ahead !== undefined ? { announcedAtMs: Math.max(0, t.at - ahead) } : {}),
    };
  });
  flows.sort((a, c) => a.atMs - c.atMs);
  const routes: Record<string, RouteSpec> = {};
  for (const [key, r] of Object.entries(b.routes)) {
    if (key === 'default') continue;
    const [o, d] = key.split('->');
    if (!o || !d || !known.has(o) || !known.has(d)) throw new Error(`${b.name}: route "${key}" is not origin->destination of known chains`);
    routes[`${o}|${d}`] = toRoute(r);
  }
  const initial = Object.fromEntries(chains.map((c) => [c, units(b.chains[c]!.initial)])); // c is a key of chains
  const holdings: Holding[] = chains.map((chain) => ({ chain, ...b.chains[chain]!.holding }));
  // Default per-transfer cap: the whole treasury, in whole units rounded up (at least 1), computed in base units.
  const total = Object.values(initial).reduce((sum, v) => sum + v, 0n);
  const unit = 10n ** BigInt(b.token.decimals);
  const totalWhole = (total + unit - 1n) / unit;
  return {
    name: b.name,
    chains,
    token: { symbol: b.token.symbol, decimals: b.token.decimals, priceUsd: b.token.priceUsd },
    initial,
    flows,
    routes,
    defaultRoute: toRoute(b.routes.default ?? RouteSchema.parse({})),
    pollMs: b.pollMs,
    retryMs: b.retryMs,
    drainMs: b.drainMs,
    holdings,
    minTransfer: b.minTransfer,
    maxTransfer: b.maxTransfer ?? String(totalWhole > 1n ? totalWhole : 1n),
    outages: b.outages,
    ...(b.strategy ? { strategy: b.strategy } : {}),
    ...(b.refillTo ? { refillTo: b.refillTo } : {}),
    ...(b.expect ? { expectations: toExpectations(b.expect) } : {}),
  };
}
