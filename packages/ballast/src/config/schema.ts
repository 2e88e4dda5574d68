/**
 * zod schema of the Ballast YAML configuration file (`ballast.yaml`).
 *
 * Wallets and chains are one schema per VM family (`walletSchema.ts`, `chainSchema.ts`). The schema checks
 * shapes only; cross references (asset → chain/wallet), key material and file permissions are
 * checked by `loadConfig` after `${VAR}` references are resolved. Every object is strict so a misspelt key is an
 * error rather than a silently ignored setting. The same schema is exported as JSON Schema to
 * `config/ballast.schema.json` (see `jsonSchema.ts`) for editor completion.
 *
 * Amounts are whole-unit decimal strings ("50000", "0.5"): the token's decimals come from GET /chains or the
 * chain itself (docs/relay-contract.md "Currency": `decimals`), so conversion to base units happens later, never through a
 * float.
 */
import { HaSectionSchema } from './haSchema.ts';
import { z } from 'zod';
import { FlowStrategySchema } from './strategySchema.ts';
import { SpendingLimitsSectionSchema } from './limitsSchema.ts';
import { ApprovalsSectionSchema, RouteApprovalsSchema } from './approvalsSchema.ts';
import { ChainSchema } from './chainSchema.ts';
import { WalletSchema } from './walletSchema.ts';
import { WITHDRAWALS_SECTION_DEFAULT, WithdrawalsSectionSchema } from './withdrawalsSchema.ts';
import { DEFAULT_WEBHOOKS, WebhooksSectionSchema } from './webhooksSchema.ts';
import { NotifySectionSchema } from './notifySchema.ts';
import { NeedsGraceSecSchema, NeedsHorizonSecSchema, NeedsSectionSchema } from './needsSchema.ts';
import { LISTEN_RE, NAME_RE, USD_AMOUNT_RE, WHOLE_AMOUNT_RE } from './patterns.ts';

/**
 * `policy.refillTo` of an asset without an entry: min + 40 % of (max − min), chosen by running every shipped and
 * Hyperlane scenario at each refill point (docs/simulate.md "Refill point": the same completion as `target`, less
 * volume, no more rebalances, the same waits, the least time below min).
 */
export const DEFAULT_REFILL_TO = '40%';

export { LISTEN_RE, NAME_RE, USD_AMOUNT_RE, WHOLE_AMOUNT_RE } from './patterns.ts';

/** pino log levels. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Default Relay API base URL (mainnet; docs/design.md "Base URLs"). */
export const DEFAULT_RELAY_BASE_URL = 'https://api.relay.link';
/** Default cron schedule of the daemon: every five minutes. */
export const DEFAULT_SCHEDULE = '*/5 * * * *';

const wholeAmount = (what: string) =>
  z
    .string({ error: `write ${what} as a quoted decimal string in whole units, e.g. "50000"` })
    .regex(WHOLE_AMOUNT_RE, `${what} must be a non-negative decimal in whole units, e.g. "50000" or "0.5"`);

const usdAmount = z
  .string({ error: 'write USD amounts as quoted decimal strings, e.g. "25"' })
  .regex(USD_AMOUNT_RE, 'expected a non-negative USD decimal string, e.g. "2.50"');

const bps = (what: string) =>
  z
    .number({ error: `${what} must be an integer number of basis points (100 = 1 %)` })
    .int(`${what} must be an integer number of basis points (100 = 1 %)`)
    .min(0, `${what} must be between 0 and 10000 basis points`)
    .max(10000, `${what} must be between 0 and 10000 basis points`);

/** Default `relay.chainsCacheSec`: GET /chains is fetched at most every five minutes (and when a quote needs it). */
export const DEFAULT_CHAINS_CACHE_SEC = 300;

/**
 * Default `relay.quotesPerMinute`: the documented default quote rate limit of an API key, 50 requests per minute
 * (https://docs.relay.link/references/api/api-keys; elevated keys: 10 per second).
 */
export const DEFAULT_QUOTES_PER_MINUTE = 50;

/** `relay:` section (docs/relay-contract.md "Authentication": the API key travels in `x-api-key`). */
export const RelaySectionSchema = z
  .strictObject({
    baseUrl: z
      .url({ protocol: /^https?$/, error: 'expected an http(s) URL such as https://api.relay.link' })
      .default(DEFAULT_RELAY_BASE_URL)
      .describe('Relay API base URL; mainnet https://api.relay.link, testnet https://api.testnets.relay.link'),
    apiKey: z
      .string({ error: 'expected a string; use ${RELAY_API_KEY}' })
      .min(1, 'must not be empty; remove the key or set the variable')
      .optional()
      .describe('API key sent as x-api-key; use ${RELAY_API_KEY} rather than a literal'),
    referrer: z.string().min(1).max(64).optional().describe('referrer string sent with every quote'),
    timeoutMs: z.number().int().min(100).max(300_000).default(15_000).describe('per-request timeout in milliseconds'),
    chainsCacheSec: z
      .number({ error: 'chainsCacheSec must be a whole number of seconds, e.g. 300' })
      .int('chainsCacheSec must be a whole number of seconds, e.g. 300')
      .min(0, 'chainsCacheSec must be between 0 (fetch every cycle) and 86400 seconds')
      .max(86_400, 'chainsCacheSec must be between 0 (fetch every cycle) and 86400 seconds')
      .default(DEFAULT_CHAINS_CACHE_SEC)
      .describe(
        'seconds a fetched GET /chains list is reused (0: fetch every cycle); a quote naming a chain or contract the list lacks fetches it again at once',
      ),
    quotesPerMinute: z
      .number({ error: 'quotesPerMinute must be a whole number of quote requests per minute, e.g. 50' })
      .int('quotesPerMinute must be a whole number of quote requests per minute, e.g. 50')
      .min(1, 'quotesPerMinute must be between 1 and 6000 (a key with elevated limits allows 10 per second = 600)')
      .max(6_000, 'quotesPerMinute must be between 1 and 6000 (a key with elevated limits allows 10 per second = 600)')
      .default(DEFAULT_QUOTES_PER_MINUTE)
      .describe(
        'client-side cap on quote requests per minute; Relay allows 50 per minute per key by default, more on request (https://docs.relay.link/references/api/api-keys)',
      ),
    quoteApi: z
      .enum(['v2', 'v3'], { error: 'expected v2 or v3' })
      .default('v2')
      .describe(
        'quote endpoint: v2 (POST /quote/v2, default) or v3 (POST /quote/v3, mapped into the same checks; v3 until its response is confirmed against the live API, see ballast api-check)',
      ),
  })
  .describe('Relay API client');

/** One holding of an asset (`assets.<symbol>[i]`): where it lives and the band to keep it in. */
export const AssetEntrySchema = z
  .strictObject({
    chain: z.string({ error: 'expected a chain name defined under chains:' }).describe('name under chains:'),
    currency: z
      .string({ error: 'expected the token address (the native token has its own identifier, see the example file)' })
      .min(1)
      .describe(
        'token on that chain: EVM 0x address (0x000…000 native); Solana base58 mint (11111111111111111111111111111111 native SOL); Bitcoin bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8 (BTC)',
      ),
    wallet: z.string({ error: 'expected a wallet name defined under wallets:' }).describe('name under wallets:'),
    min: wholeAmount('min')
      .optional()
      .describe('below this balance the chain receives funds (whole units); with target and max, or use weight'),
    target: wholeAmount('target').optional().describe('balance a rebalance aims for (whole units)'),
    max: wholeAmount('max').optional().describe('above this balance the chain gives funds (whole units)'),
    weight: z
      .number({ error: 'expected a positive number, e.g. 40 (weights of an asset are relative to their sum)' })
      .positive('weight must be above 0')
      .max(1_000_000)
      .optional()
      .describe(
        "instead of min/target/max: this holding's share of the asset's total across its holdings, relative to the sum of their weights (e.g. 40 and 60); every holding of the asset then has a weight",
      ),
    toleranceBps: bps('toleranceBps')
      .optional()
      .describe("with weight: the band around the weighted target, in bps of the asset's total (default 100 = ±1 %)"),
    decimals: z.number().int().min(0).max(255).optional().describe('token decimals; normally read from GET /chains or the token contract'),
  })
  .describe('one holding of the asset');

/** A per-component fee cap (policy `FeeCap`): USD and/or bps of the input value. */
export const FeeCapSchema = z.strictObject({
  usd: usdAmount.optional().describe('cap on this component in USD per transfer'),
  bps: bps('bps').optional().describe('cap on this component in bps of the input USD value'),
});

/** `policy.maxFees` (docs/relay-contract.md "Fee components": execution, swap, platform, app). */
export const MaxFeesSchema = z
  .strictObject({
    totalBps: bps('totalBps').optional().describe('cap on total cost in bps of the input USD value'),
    totalUsd: usdAmount.optional().describe('cap on total cost in USD per transfer'),
    components: z
      .strictObject({
        execution: FeeCapSchema.optional().describe('the flat execution fee and the destination fill gas'),
        swap: FeeCapSchema.optional().describe("DEX fees, DEX swap impact and the solver's cross-chain rebalancing"),
        platform: FeeCapSchema.optional().describe('the flat basis-point fee by pair type'),
        app: FeeCapSchema.optional().describe('fees an integrator adds on top'),
      })
      .optional()
      .describe('per-component caps (docs/relay-contract.md "Fee components")'),
  })
  .describe('fee ceilings; a quote above any cap is skipped');

/** `policy.transferLimits.<asset>`: transfer bounds for one asset, whole units of that asset. */
export const TransferLimitsSchema = z
  .strictObject({
    minTransfer: wholeAmount('minTransfer').describe('smallest transfer of this asset (whole units)'),
    maxTransfer: wholeAmount('maxTransfer').describe('largest single transfer of this asset (whole units)'),
  })
  .describe('transfer bounds of one asset');

/** Default `policy.routeChoice`: up to three donors quoted per transfer, all at once. */
export const DEFAULT_ROUTE_CHOICE = Object.freeze({ maxCandidates: 3, parallelQuotes: 3 });

/**
 * `policy.routeChoice`: when several surpluses could fill a deficit, how many donors are quoted (the planner's pick
 * included) and how many of those quotes run at once. Every quote also waits for the client's /quote rate limit.
 */
export const RouteChoiceSchema = z
  .strictObject({
    maxCandidates: z
      .number({ error: 'maxCandidates must be an integer from 1 (off) to 8' })
      .int('maxCandidates must be an integer from 1 (off) to 8')
      .min(1, "maxCandidates must be at least 1 (1 quotes only the planner's pick: route choice off)")
      .max(8, 'maxCandidates must be at most 8: each candidate costs a quote of the /quote rate limit (50 per minute)')
      .default(DEFAULT_ROUTE_CHOICE.maxCandidates)
      .describe(
        "donors quoted per planned transfer, the planner's pick included; the cheapest passing the fee policy and verification is sent; 1 = off",
      ),
    parallelQuotes: z
      .number({ error: 'parallelQuotes must be an integer from 1 to 8' })
      .int('parallelQuotes must be an integer from 1 to 8')
      .min(1, 'parallelQuotes must be at least 1')
      .max(8, 'parallelQuotes must be at most 8')
      .default(DEFAULT_ROUTE_CHOICE.parallelQuotes)
      .describe('candidate quotes of one transfer in flight at once'),
  })
  .default({ ...DEFAULT_ROUTE_CHOICE })
  .describe(
    'route choice: quote other donors of a transfer and keep the cheapest by total fees in USD that passes the fee policy and verification',
  );

/** One end of a `policy.routes` entry: a chain, a chain and wallet, or any holding. */
const ROUTE_END_RE = /^(\*|[A-Za-z][A-Za-z0-9_.-]{0,63}(:[A-Za-z][A-Za-z0-9_.-]{0,63})?)$/;
const routeEnd = (what: string) =>
  z
    .string({ error: `${what} must be "<chain>", "<chain>:<wallet>" or "*"` })
    .regex(ROUTE_END_RE, `${what} must be "<chain>", "<chain>:<wallet>" or "*" (names as under chains: and wallets:)`);

/**
 * `policy.routes[i]`: what one route (or a family of routes) may do. Entries are tried in order, the first match
 * wins (src/planner/routes.ts); cross references and entries that can never match are checked in routeChecks.ts.
 */
export const RouteRuleSchema = z
  .strictObject({
    from: routeEnd('from').describe('origin holding: <chain>, <chain>:<wallet> or "*" (any)'),
    to: routeEnd('to').describe('destination holding: <chain>, <chain>:<wallet> or "*" (any)'),
    asset: z
      .string()
      .regex(NAME_RE, 'expected an asset name defined under assets:')
      .optional()
      .describe('asset this entry is for; absent: every asset'),
    allow: z
      .boolean({ error: 'allow must be true or false' })
      .default(true)
      .describe('false: nothing moves on a matching route (default true)'),
    minTransfer: wholeAmount('minTransfer')
      .optional()
      .describe("smallest transfer on this route (whole units of the asset), instead of the asset's"),
    maxTransfer: wholeAmount('maxTransfer')
      .optional()
      .describe("largest single transfer on this route (whole units of the asset), instead of the asset's"),
    maxFees: MaxFeesSchema.optional().describe(
      'fee caps on this route; each key given replaces the same key of policy.maxFees, the others stay',
    ),
    approvals: RouteApprovalsSchema.optional(),
  })
  .describe('rules for the routes it matches (first matching entry wins)');

/** `policy:` section. */
export const PolicySectionSchema = z
  .strictObject({
    minTransfer: wholeAmount('minTransfer').describe('smallest transfer worth its fees (whole units of the asset)'),
    maxTransfer: wholeAmount('maxTransfer').describe('largest single transfer (whole units of the asset)'),
    transferLimits: z
      .record(z.string().regex(NAME_RE), TransferLimitsSchema)
      .optional()
      .describe('per-asset minTransfer/maxTransfer overriding the defaults (assets of different unit value, e.g. ETH)'),
    sweepTo: z
      .record(
        z.string().regex(NAME_RE),
        z
          .string()
          .regex(/^[A-Za-z0-9_-]+(:[A-Za-z0-9_-]+)?$/, 'expected <chain> or <chain>:<wallet>, a holding of the asset under assets:'),
      )
      .optional()
      .describe(
        'per asset, the home holding (<chain> or <chain>:<wallet>) that receives any surplus no deficit took this cycle; absent: surpluses stay where they are',
      ),
    refillTo: z
      .record(
        z.string().regex(NAME_RE),
        z.union([
          z.literal('target'),
          z
            .string()
            .regex(/^(100|[1-9]?[0-9])(\.[0-9]{1,2})?%$/, 'expected target or a share of the band such as "40%" (0% is min, 100% is max)'),
        ]),
      )
      .optional()
      .describe(
        `per asset, where a holding below min is refilled to: target, or a share of its band, e.g. "40%" = min + 40 % of (max - min); an asset without an entry: ${DEFAULT_REFILL_TO} (chosen by simulation: docs/simulate.md "Refill point")`,
      ),
    strategy: z
      .record(z.string().regex(NAME_RE), FlowStrategySchema)
      .optional()
      .describe(
        'per asset, how its holdings are planned; absent: bands alone. kind: flow also uses each holding\'s smoothed net flow (docs/design.md "Flow-aware strategy")',
      ),
    routes: z
      .array(RouteRuleSchema)
      .optional()
      .describe(
        'per-route overrides, tried in order, the first matching entry wins: allow, minTransfer/maxTransfer, maxFees; a route no entry matches keeps the defaults',
      ),
    onlyListedRoutes: z
      .boolean({ error: 'onlyListedRoutes must be true or false' })
      .default(false)
      .describe('true: a route no policy.routes entry matches is not allowed (default false: allowed with the defaults)'),
    batchSmallDeficits: z
      .boolean({ error: 'batchSmallDeficits must be true or false' })
      .default(true)
      .describe(
        'a deficit below minTransfer is raised to minTransfer when its band max allows, so one transfer pays the flat fee instead of many small ones; otherwise it waits (default true)',
      ),
    maxConcurrentTransfers: z
      .number({ error: 'maxConcurrentTransfers must be a whole number from 1 to 16' })
      .int('maxConcurrentTransfers must be a whole number from 1 to 16')
      .min(1, 'maxConcurrentTransfers must be at least 1 (1: each transfer is tracked to its fill before the next starts)')
      .max(16, 'maxConcurrentTransfers must be at most 16')
      .default(4)
      .describe(
        "transfers awaiting their fill at once: the next transfer is quoted, signed and sent once the previous one's deposit is confirmed, while earlier ones are still tracked; the daemon's fills tracked in the background after their cycle count too (default 4; 1: one at a time)",
      ),
    pauseRouteAfterOriginFailures: z
      .number({ error: 'pauseRouteAfterOriginFailures must be a whole number from 1 to 100' })
      .int()
      .min(1)
      .max(100)
      .default(3)
      .describe(
        'pause a route after this many origin transactions in a row failed on chain (reverted; each paid its fee), until `ballast resume` (default 3)',
      ),
    slippageBps: bps('slippageBps').optional().describe('sent as slippageTolerance; omitted = automatic'),
    maxFees: MaxFeesSchema,
    maxDeadlineSec: z
      .number()
      .int()
      .min(120)
      .max(7 * 86_400)
      .default(86_400)
      .describe('refuse orders whose output or refund deadline lies further ahead than this (seconds; default 24 h)'),
    limits: SpendingLimitsSectionSchema.optional(),
    approvals: ApprovalsSectionSchema.optional(),
    routeChoice: RouteChoiceSchema,
    needsHorizonSec: NeedsHorizonSecSchema,
    needsGraceSec: NeedsGraceSecSchema,
  })
  .describe('spending rules');

/**
 * `tracking:` section: how transfers are followed (docs/relay-contract.md "GET /intents/status/v3": poll about once per
 * second).
 */
export const TrackingSectionSchema = z
  .strictObject({
    pollMs: z.number().int().min(200).max(60_000).default(1000).describe('status poll interval in milliseconds'),
    timeoutSec: z.number().int().min(10).max(86_400).default(300).describe('give up waiting after this many seconds'),
    stalledAfterSec: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(1800)
      .describe(
        'flag a transfer still in flight after this many seconds as stalled (metric, history, log); a deposited one is also looked up by its deposit hash and re-announced. It stays in flight and credited',
      ),
  })
  .describe('status tracking');

/** `metrics:` section. */
export const MetricsSectionSchema = z
  .strictObject({
    listen: z
      .string()
      .regex(LISTEN_RE, 'expected host:port such as 127.0.0.1:9464')
      .refine((v) => Number(v.slice(v.lastIndexOf(':') + 1)) <= 65535, 'port must be between 0 and 65535')
      .default('127.0.0.1:9464')
      .describe('address of the /metrics, /healthz and /readyz server'),
    readyAfterSchedules: z
      .number({ error: 'expected a number of schedule intervals, e.g. 3' })
      .positive('readyAfterSchedules must be above 0')
      .max(1000, 'readyAfterSchedules must be at most 1000')
      .default(3)
      .describe(
        '/readyz answers 503 when no cycle finished within this many schedule intervals (also the start-up grace before the first cycle)',
      ),
  })
  .describe('Prometheus metrics server');

/** Log line formats: JSON lines, or pino-pretty's human-readable lines. */
export const LOG_FORMATS = ['json', 'pretty'] as const;

/** `log:` section. `format` absent: pretty when stderr is a terminal, JSON otherwise. */
export const LogSectionSchema = z
  .strictObject({
    level: z.enum(LOG_LEVELS).default('info').describe('pino log level (BALLAST_LOG_LEVEL and --log-level override it)'),
    format: z
      .enum(LOG_FORMATS)
      .optional()
      .describe('json or pretty; default pretty when stderr is a terminal, else json (BALLAST_LOG_FORMAT overrides it)'),
  })
  .describe('logging');

/** Whole configuration file. */
export const ConfigSchema = z
  .strictObject({
    relay: RelaySectionSchema.default({
      baseUrl: DEFAULT_RELAY_BASE_URL,
      timeoutMs: 15_000,
      chainsCacheSec: DEFAULT_CHAINS_CACHE_SEC,
      quotesPerMinute: DEFAULT_QUOTES_PER_MINUTE,
      quoteApi: 'v2',
    }),
    wallets: z.record(z.string().regex(NAME_RE), WalletSchema).describe('signing wallets by name'),
    chains: z.record(z.string().regex(NAME_RE), ChainSchema).describe('chains by name'),
    assets: z
      .record(z.string().regex(NAME_RE), z.array(AssetEntrySchema).min(1))
      .describe('assets by symbol; one asset = the same value held on several chains'),
    policy: PolicySectionSchema,
    tracking: TrackingSectionSchema.default({ pollMs: 1000, timeoutSec: 300, stalledAfterSec: 1800 }),
    monitorOnly: z
      .boolean()
      .default(false)
      .describe(
        'plan, quote and verify every cycle but sign nothing (daemon and run --once; withdraw refuses); what would have been done is logged and counted in ballast_monitor_* metrics. Same as daemon --monitor-only',
      ),
    schedule: z.string().default(DEFAULT_SCHEDULE).describe('node-cron expression for the daemon, e.g. "*/5 * * * *"'),
    store: z
      .string()
      .min(1)
      .default('./ballast.db')
      .describe(
        'SQLite file, relative to the config file (one process at a time); or a postgres:// URL, for replicas sharing one database (see ha:)',
      ),
    metrics: MetricsSectionSchema.default({ listen: '127.0.0.1:9464', readyAfterSchedules: 3 }),
    prices: z
      .record(z.string().regex(NAME_RE), usdAmount)
      .optional()
      .describe(
        'USD per whole unit of an asset (e.g. USDC: "1"), for ballast_balance_usd only; wins over the price taken from the latest quote',
      ),
    log: LogSectionSchema.default({ level: 'info' }),
    withdrawals: WithdrawalsSectionSchema.default(WITHDRAWALS_SECTION_DEFAULT),
    webhooks: WebhooksSectionSchema.default({ ...DEFAULT_WEBHOOKS }),
    ha: HaSectionSchema.optional(),
    notify: NotifySectionSchema.optional(),
    needs: NeedsSectionSchema.optional(),
  })
  .meta({ title: 'Ballast configuration', description: 'Treasury rebalancing through the Relay API' });

/** Parsed (shape-checked) configuration before secrets and references are resolved. */
export type ConfigFile = z.output<typeof ConfigSchema>;
/** One asset holding as written in the file. */
export type AssetEntryConfig = z.output<typeof AssetEntrySchema>;
/** The `policy` section as written in the file. */
export type PolicyConfig = z.output<typeof PolicySectionSchema>;
/** One `policy.routes` entry as loaded. */
export type RouteRuleConfig = z.output<typeof RouteRuleSchema>;
