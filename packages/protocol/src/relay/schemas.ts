/**
 * zod schemas for the Relay API responses Ballast reads (docs/relay-contract.md "Resources and their fields").
 *
 * Untrusted JSON stays `unknown` until one of these schemas parses it, so an unparsed quote cannot reach
 * signing. Objects are "loose": unknown fields are kept (the API adds fields over time) and the raw JSON is
 * stored separately. Amount fields are validated as integer strings; they are turned into bigint at use.
 */
import { z } from 'zod';
import { Bytes32Hex, DecimalString, HexString, IntString, UintString } from '../core/units.ts';

/**
 * Currency record (docs/relay-contract.md "Currency"). `address` is the token address; native tokens use the VM's
 * identifier.
 */
export const CurrencySchema = z.looseObject({
  chainId: z.number().int(),
  address: z.string().min(1),
  symbol: z.string(),
  name: z.string().optional(),
  decimals: z.number().int().min(0).max(255),
  metadata: z.looseObject({}).optional(),
});
export type Currency = z.infer<typeof CurrencySchema>;

/**
 * Currency amount (docs/relay-contract.md "Currency amount"). `amount` is a base-unit integer string; in the deprecated fee
 * set it may be negative (`relayerService`), so this schema accepts a sign. `amountUsd` is a decimal string.
 */
export const CurrencyAmountSchema = z.looseObject({
  currency: CurrencySchema,
  amount: IntString,
  amountFormatted: z.string().optional(),
  amountUsd: DecimalString.optional(),
  minimumAmount: IntString.optional(),
});
export type CurrencyAmount = z.infer<typeof CurrencyAmountSchema>;

/** `check` of a step item: the status endpoint to poll (docs/relay-contract.md "Step item"). */
export const StepCheckSchema = z.looseObject({ endpoint: z.string().min(1), method: z.string() });

/**
 * Step item (docs/relay-contract.md "Step item"). `data` differs by VM (EVM calldata, Solana instructions, Bitcoin `psbt`),
 * so it stays an open object here and each VM adapter parses it with its own schema before signing.
 */
export const StepItemSchema = z.looseObject({
  status: z.string(),
  data: z.looseObject({}),
  check: StepCheckSchema.optional(),
});
export type StepItem = z.infer<typeof StepItemSchema>;

/** Step (docs/relay-contract.md "Step"): `approve`, `deposit`, ...; `kind` is `transaction` or `signature`. */
export const StepSchema = z.looseObject({
  id: z.string(),
  action: z.string().optional(),
  description: z.string().optional(),
  kind: z.enum(['transaction', 'signature']),
  requestId: z.string().optional(),
  depositAddress: z.string().optional(),
  items: z.array(StepItemSchema),
});
export type Step = z.infer<typeof StepSchema>;

/**
 * EVM transaction payload of a step item (docs/relay-contract.md "Step item": from, to, data, value, chainId, gas,
 * maxFeePerGas, maxPriorityFeePerGas; an approval has from, to, chainId plus data).
 */
export const EvmTxDataSchema = z.looseObject({
  from: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  to: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  data: HexString.default('0x'),
  value: UintString.default('0'),
  chainId: z.number().int().positive(),
  gas: UintString.optional(),
  maxFeePerGas: UintString.optional(),
  maxPriorityFeePerGas: UintString.optional(),
});
export type EvmTxData = z.infer<typeof EvmTxDataSchema>;

/** `{usd, percent}` impact pair (docs/relay-contract.md "details": totalImpact, swapImpact). */
export const ImpactSchema = z.looseObject({ usd: DecimalString, percent: DecimalString.optional() });

/**
 * `details.expandedPriceImpact` (docs/relay-contract.md "Full fee breakdown"): component name → `{usd}`. docs/relay-contract.md
 * names `swap`, `execution`, `service`, `app`, `sponsored`; live responses key the platform component `relay`.
 * Costs are negative USD strings; `sponsored` is positive.
 */
export const ExpandedPriceImpactSchema = z.record(z.string(), z.looseObject({ usd: DecimalString }));
export type ExpandedPriceImpact = z.infer<typeof ExpandedPriceImpactSchema>;

/** Quote `details` (docs/relay-contract.md "details (quote response)"); only the fields Ballast reads are required. */
export const QuoteDetailsSchema = z.looseObject({
  operation: z.string().optional(),
  sender: z.string().optional(),
  recipient: z.string().optional(),
  currencyIn: CurrencyAmountSchema,
  currencyOut: CurrencyAmountSchema,
  refundCurrency: CurrencyAmountSchema.optional(),
  totalImpact: ImpactSchema.optional(),
  swapImpact: ImpactSchema.optional(),
  expandedPriceImpact: ExpandedPriceImpactSchema.optional(),
  rate: z.string().optional(),
  timeEstimate: z.number().optional(),
  userBalance: z.string().optional(),
});
export type QuoteDetails = z.infer<typeof QuoteDetailsSchema>;

/** orderData input payment (docs/relay-contract.md "protocol.v2"); `chainId` is a protocol chain slug. */
export const OrderInputPaymentSchema = z.looseObject({
  chainId: z.string().min(1),
  currency: z.string().min(1),
  amount: UintString,
  weight: UintString,
});

/** orderData refund option. `deadline` is unix seconds. */
export const OrderRefundSchema = z.looseObject({
  chainId: z.string().min(1),
  recipient: z.string().min(1),
  currency: z.string().min(1),
  minimumAmount: UintString,
  deadline: z.number().int().nonnegative(),
  extraData: HexString,
});

/** orderData output payment: `minimumAmount` is the settlement floor, `expectedAmount` only an estimate. */
export const OrderOutputPaymentSchema = z.looseObject({
  recipient: z.string().min(1),
  currency: z.string().min(1),
  minimumAmount: UintString,
  expectedAmount: UintString,
});

/** orderData hub fee. */
export const OrderFeeSchema = z.looseObject({
  recipientChainId: z.string().min(1),
  recipient: z.string().min(1),
  currencyChainId: z.string().min(1),
  currency: z.string().min(1),
  amount: UintString,
});

/** The canonical order (docs/relay-contract.md "protocol.v2" orderData, version `v1`). */
export const OrderDataSchema = z.looseObject({
  version: z.literal('v1'),
  solverChainId: z.string().min(1),
  solver: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  salt: HexString,
  inputs: z.array(z.looseObject({ payment: OrderInputPaymentSchema, refunds: z.array(OrderRefundSchema) })),
  output: z.looseObject({
    chainId: z.string().min(1),
    payments: z.array(OrderOutputPaymentSchema),
    calls: z.array(HexString),
    deadline: z.number().int().nonnegative(),
    extraData: HexString,
  }),
  fees: z.array(OrderFeeSchema),
});
export type OrderData = z.infer<typeof OrderDataSchema>;

/** `protocol.v2.paymentDetails`: where and what to deposit. `chainId` is a protocol slug. */
export const PaymentDetailsSchema = z.looseObject({
  chainId: z.string().min(1),
  depository: z.string().min(1),
  currency: z.string().min(1),
  amount: UintString,
});

/** `protocol.v2` block, present when the quote request sets `includeProtocolData`. */
export const ProtocolV2Schema = z.looseObject({
  orderId: Bytes32Hex,
  hubType: z.string().optional(),
  orderData: OrderDataSchema,
  orderSignature: HexString.optional(),
  paymentDetails: PaymentDetailsSchema,
});
export type ProtocolV2 = z.infer<typeof ProtocolV2Schema>;

/** POST /quote/v2 response (docs/relay-contract.md "Quote response"). */
export const QuoteResponseSchema = z.looseObject({
  requestId: z.string().optional(),
  steps: z.array(StepSchema).min(1),
  fees: z.record(z.string(), CurrencyAmountSchema).optional(),
  feeSponsorship: z.looseObject({}).optional(),
  details: QuoteDetailsSchema,
  protocol: z.looseObject({ v2: ProtocolV2Schema.optional() }).optional(),
});
export type QuoteResponse = z.infer<typeof QuoteResponseSchema>;

/** POST /quote/v2 request body (docs/relay-contract.md "POST /quote/v2"), the fields Ballast sends. */
export const QuoteRequestSchema = z.object({
  user: z.string().min(1),
  recipient: z.string().min(1),
  originChainId: z.number().int(),
  destinationChainId: z.number().int(),
  originCurrency: z.string().min(1),
  destinationCurrency: z.string().min(1),
  amount: UintString,
  tradeType: z.literal('EXACT_INPUT'),
  includeProtocolData: z.literal(true),
  referrer: z.string().optional(),
  refundTo: z.string().optional(),
  slippageTolerance: z
    .string()
    .regex(/^([0-9]{1,4}|10000)$/)
    .optional(),
  /** Solana origin: at most this many swap hops (docs/relay-contract.md "POST /quote/v2"; recommended 4, then 3). */
  maxRouteLength: z.number().int().positive().optional(),
  /** Solana origin: only these swap sources (a single one is the size-conservative option). */
  includedOriginSwapSources: z.array(z.string().min(1)).optional(),
});
export type QuoteRequest = z.infer<typeof QuoteRequestSchema>;

/** Chain currency record inside GET /chains (native `currency`, `erc20Currencies`, `solverCurrencies`). */
export const ChainCurrencySchema = z.looseObject({
  id: z.string().optional(),
  symbol: z.string(),
  name: z.string().optional(),
  address: z.string().min(1),
  decimals: z.number().int().min(0).max(255),
  supportsBridging: z.boolean().optional(),
});
export type ChainCurrency = z.infer<typeof ChainCurrencySchema>;

/** `vmType` values (docs/relay-contract.md "What the service does" 4). Unknown families are kept as strings. */
export const VM_TYPES = ['evm', 'svm', 'bvm', 'tvm', 'tonvm', 'hypevm', 'lvm', 'xrpvm'] as const;
export type VmType = (typeof VM_TYPES)[number];

/** Chain object (docs/relay-contract.md "Chain object (GET /chains, array `chains`)"). */
export const ChainSchema = z.looseObject({
  id: z.number().int(),
  name: z.string(),
  displayName: z.string().optional(),
  httpRpcUrl: z.string().optional(),
  vmType: z.string(),
  depositEnabled: z.boolean().optional(),
  disabled: z.boolean().optional(),
  blockProductionLagging: z.boolean().optional(),
  currency: ChainCurrencySchema,
  erc20Currencies: z.array(ChainCurrencySchema).optional(),
  solverCurrencies: z.array(ChainCurrencySchema).optional(),
  featuredTokens: z.array(z.looseObject({})).optional(),
  /**
   * Contract addresses by name, with nested groups kept as given: `v3` (docs/relay-contract.md "Chain object") and, since
   * Router 3.2, `v3.2` (https://docs.relay.link/references/api/api_resources/contract-addresses); any group is accepted
   * so a new generation never fails the parse. Read through `listedContracts` (src/verify/chainsIndex.ts).
   */
  contracts: z.record(z.string(), z.unknown()).optional(),
  solverAddresses: z.array(z.string()).optional(),
  protocol: z
    .looseObject({
      v2: z.looseObject({ chainId: z.string().optional(), depository: z.string().optional() }).optional(),
    })
    .optional(),
});
export type Chain = z.infer<typeof ChainSchema>;

/** GET /chains response. */
export const ChainsResponseSchema = z.looseObject({ chains: z.array(ChainSchema) });
export type ChainsResponse = z.infer<typeof ChainsResponseSchema>;

/** GET /chains envelope only: each chain is parsed on its own by {@link parseChainsLeniently}. */
export const ChainsEnvelopeSchema = z.looseObject({ chains: z.array(z.unknown()) });

/** A chain of a GET /chains response left out because it does not parse. */
export interface SkippedChain {
  /** Position in `chains`. */
  index: number;
  /** Its `id` and `name` when readable, for the warning. */
  id?: unknown;
  name?: unknown;
  /** The zod issues, one line. */
  reason: string;
}

/**
 * Parses a GET /chains body chain by chain: a chain with an unexpected shape is skipped (and reported), it
 * does not take the other chains down. The envelope itself (`{chains: [...]}`) must parse.
 *
 * @param raw the JSON body as received
 * @returns the chains that parse, and the skipped ones
 * @throws ZodError when the body is not `{chains: array}`
 */
export function parseChainsLeniently(raw: unknown): { chains: ChainsResponse; skipped: SkippedChain[] } {
  const envelope = ChainsEnvelopeSchema.parse(raw);
  const chains: Chain[] = [];
  const skipped: SkippedChain[] = [];
  envelope.chains.forEach((entry, index) => {
    const parsed = ChainSchema.safeParse(entry);
    if (parsed.success) {
      chains.push(parsed.data);
      return;
    }
    const rec = typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {}; // only read for the report
    skipped.push({
      index,
      id: rec['id'],
      name: rec['name'],
      reason: parsed.error.issues.map((i) => `${i.path.join('.') || '(chain)'}: ${i.message}`).join('; '),
    });
  });
  return { chains: { ...envelope, chains }, skipped };
}

/**
 * One entry of GET /chains/liquidity (docs/relay-contract.md "GET /chains/liquidity",
 * https://docs.relay.link/references/api/get-chains-liquidity): the solver's balance of one currency on the chain.
 * `balance` is a base-unit integer string in `decimals`; `address` is the currency's identifier on that chain (0x
 * hex on EVM, native the VM's identifier). The published schema marks no field required: Ballast needs `address`,
 * `decimals` and `balance`, the others are kept when present.
 */
export const ChainLiquidityEntrySchema = z.looseObject({
  chainId: z.number().int().optional(),
  currencyId: z.string().optional(),
  symbol: z.string().optional(),
  address: z.string().min(1),
  decimals: z.number().int().min(0).max(255),
  balance: UintString,
  amountUsd: z.string().optional(),
});
export type ChainLiquidityEntry = z.infer<typeof ChainLiquidityEntrySchema>;

/** GET /chains/liquidity?chainId= response: `{liquidity: [entry]}`. */
export const ChainLiquidityResponseSchema = z.looseObject({ liquidity: z.array(ChainLiquidityEntrySchema) });
export type ChainLiquidityResponse = z.infer<typeof ChainLiquidityResponseSchema>;

/**
 * A GET /chains/liquidity entry as Ballast uses it: `balance` as bigint base units (in `decimals`), `chainId` the
 * chain asked about. `amountUsd` is the API's decimal string, informative only.
 */
export interface ChainLiquidity {
  chainId: number;
  currencyId?: string;
  symbol?: string;
  address: string;
  decimals: number;
  balance: bigint;
  amountUsd?: string;
}

/**
 * Request status values Ballast knows (docs/relay-contract.md "States and transitions", plus `delayed`, which the live API
 * also sends; docs/design.md "Status enum"). The API may send others (e.g. `fallback`, named in the
 * `failReason` of docs/relay-contract.md "Webhooks"): any value outside {@link TERMINAL_REQUEST_STATUSES} is non-final.
 */
export const REQUEST_STATUSES = ['waiting', 'depositing', 'pending', 'submitted', 'delayed', 'success', 'failure', 'refund'] as const;
/** One of {@link REQUEST_STATUSES}. */
export type KnownRequestStatus = (typeof REQUEST_STATUSES)[number];
/** A status as the API sent it: a known value, or any other string (treated as non-final). */
export type RequestStatus = KnownRequestStatus | (string & {});
/** Terminal request statuses: nothing moves after these. */
export const TERMINAL_REQUEST_STATUSES = ['success', 'failure', 'refund'] as const;
export type TerminalRequestStatus = (typeof TERMINAL_REQUEST_STATUSES)[number];

/** True when `status` is `success`, `failure` or `refund`; every other value, unknown ones included, is not. */
export function isTerminalRequestStatus(status: string): status is TerminalRequestStatus {
  return (TERMINAL_REQUEST_STATUSES as readonly string[]).includes(status);
}

/** True when `status` is one of {@link REQUEST_STATUSES}. */
export function isKnownRequestStatus(status: string): status is KnownRequestStatus {
  return (REQUEST_STATUSES as readonly string[]).includes(status);
}

/**
 * GET /intents/status/v3 response (docs/relay-contract.md "Request status record"). `updatedAt` is milliseconds. `status` is
 * any non-empty string: an unknown value is recorded and tracked on as non-final, never a parse failure.
 * `failReason` / `refundFailReason` mirror the webhook payload (docs/relay-contract.md "Events": `N/A` when not failed).
 */
export const IntentStatusSchema = z.looseObject({
  status: z.string().min(1),
  inTxHashes: z.array(z.string()).default([]),
  txHashes: z.array(z.string()).default([]),
  updatedAt: z.number().optional(),
  originChainId: z.number().int().optional(),
  destinationChainId: z.number().int().optional(),
  failReason: z.string().optional(),
  refundFailReason: z.string().optional(),
  details: z.unknown().optional(),
});
export type IntentStatus = z.infer<typeof IntentStatusSchema>;

/** GET /requests/v3 response: `requests` array of request records (docs/relay-contract.md "Request record"). */
export const RequestsResponseSchema = z.looseObject({
  requests: z.array(
    z.looseObject({
      id: z.string(),
      status: z.string(),
      user: z.string().optional(),
      recipient: z.string().optional(),
      data: z.looseObject({}).optional(),
      protocol: z.looseObject({}).optional(),
      createdAt: z.string().optional(),
      updatedAt: z.string().optional(),
    }),
  ),
  continuation: z.string().optional(),
});
export type RequestsResponse = z.infer<typeof RequestsResponseSchema>;

/**
 * Error body (docs/relay-contract.md "Errors": every shape has `message`; most add `errorCode`, some `requestId`).
 * `errorData` is a string in the v2 shapes and an object in the single v3 shape `{message, errorCode, requestId,
 * errorData}` (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3).
 */
export const RelayErrorBodySchema = z.looseObject({
  message: z.string(),
  errorCode: z.string().optional(),
  errorData: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  requestId: z.string().optional(),
  approxSimulatedBlock: z.number().optional(),
  failedCallData: z.looseObject({}).optional(),
});
export type RelayErrorBody = z.infer<typeof RelayErrorBodySchema>;
