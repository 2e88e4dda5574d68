/**
 * JSON shapes the sandbox serves for POST /quote/v2 (docs/relay-contract.md "Quote response", "Step", "Step item",
 * "Currency amount", "details", "protocol.v2"), typed precisely so the builder and the tamper code are
 * checked by the compiler. Ballast's client parses the same JSON with `QuoteResponseSchema`.
 */
import type { Address, Hex } from 'viem';
import type { EvmStepData } from '@ballast/protocol/protocol/quoteParts.ts';
import type { OrderData } from '../api/wire/orderData.ts';

/** Spec "Currency". */
export interface CurrencyJson {
  chainId: number;
  address: string;
  symbol: string;
  name: string;
  decimals: number;
  metadata: { logoURI: string; verified: boolean; isNative: boolean };
}

/** Spec "Currency amount": amounts are base-unit integer strings (signed only in the deprecated fee set). */
export interface CurrencyAmountJson {
  currency: CurrencyJson;
  amount: string;
  amountFormatted: string;
  amountUsd: string;
  minimumAmount: string;
}

/** EVM transaction payload of a step item (docs/relay-contract.md "Step item"), the shared quote parts' own. */
export type EvmStepDataJson = EvmStepData;

/**
 * Solana-origin step data (docs/design.md "Solana step data", relay-kit's shape): instructions with base58 keys and
 * hex data (no 0x), and the lookup tables the message may use.
 */
export interface SvmStepDataJson {
  instructions: { keys: { pubkey: string; isSigner: boolean; isWritable: boolean }[]; programId: string; data: string }[];
  addressLookupTableAddresses: string[];
}

/** Bitcoin-origin step data (docs/relay-contract.md "Step item"): the PSBT to sign, hex. */
export interface BvmStepDataJson {
  psbt: string;
}

/** Step data of any origin VM. */
export type AnyStepDataJson = EvmStepDataJson | SvmStepDataJson | BvmStepDataJson;

/** Spec "Step item". `D` is the origin VM's transaction data (EVM by default). */
export interface StepItemJson<D = EvmStepDataJson> {
  status: 'incomplete';
  data: D;
  check?: { endpoint: string; method: 'GET' };
}

/** Spec "Step". */
export interface StepJson<D = EvmStepDataJson> {
  id: string;
  action: string;
  description: string;
  kind: 'transaction';
  requestId: Hex;
  depositAddress?: string;
  items: StepItemJson<D>[];
}

/** `{usd, percent}` (docs/relay-contract.md "details": totalImpact, swapImpact). */
export interface ImpactJson {
  usd: string;
  percent: string;
}

/** A Currency amount whose currency carries no `metadata` (as `feeSponsorship` members are in a live quote). */
export interface PlainCurrencyAmountJson extends Omit<CurrencyAmountJson, 'currency'> {
  currency: Omit<CurrencyJson, 'metadata'>;
}

/** One `feeSponsorship` component: whether it is sponsored and its total, sponsored and user-paid parts. */
export interface SponsorshipComponentJson {
  selected: boolean;
  total: PlainCurrencyAmountJson;
  sponsored: PlainCurrencyAmountJson;
  userPays: PlainCurrencyAmountJson;
}

/** Spec "feeSponsorship (quote response)", the `quoted` half (the only one a fresh quote has). */
export interface FeeSponsorshipJson {
  quoted: {
    selectedComponents: string[];
    capHit: boolean;
    components: Record<string, SponsorshipComponentJson>;
    sponsoredTotal: PlainCurrencyAmountJson;
    userPaysTotal: PlainCurrencyAmountJson;
  };
}

/** One leg of docs/relay-contract.md "details": `route` (origin or destination). */
export interface RouteLegJson {
  inputCurrency: CurrencyAmountJson;
  outputCurrency: CurrencyAmountJson;
  router: string;
}

/** Spec "details (quote response)". `expandedPriceImpact` costs are negative USD strings. */
export interface QuoteDetailsJson {
  operation: 'bridge' | 'swap';
  /** The origin wallet in its chain's form (0x hex, base58, bech32). */
  sender: string;
  /** The destination wallet in its chain's form. */
  recipient: string;
  currencyIn: CurrencyAmountJson;
  currencyOut: CurrencyAmountJson;
  refundCurrency: CurrencyAmountJson;
  totalImpact: ImpactJson;
  swapImpact: ImpactJson;
  expandedPriceImpact: Record<string, { usd: string }>;
  rate: string;
  slippageTolerance: {
    origin: { usd: string; value: string; percent: string };
    destination: { usd: string; value: string; percent: string };
  };
  timeEstimate: number;
  userBalance: string;
  isFixedRate: boolean;
  route: { origin: RouteLegJson; destination: RouteLegJson };
}

/** Spec "protocol.v2". */
export interface ProtocolV2Json {
  orderId: Hex;
  hubType: 'onchain';
  orderData: OrderData;
  orderSignature: Hex;
  /** `depository` and `currency` in the payment chain's form (0x hex, base58, bech32). */
  paymentDetails: { chainId: string; depository: string; currency: string; amount: string };
}

/** Members of the deprecated fee set (docs/relay-contract.md "Deprecated fee set"). */
export type DeprecatedFeeKey = 'gas' | 'relayer' | 'relayerGas' | 'relayerService' | 'app' | 'subsidized';

/**
 * The full quote response the sandbox serves. `protocol` is present when the request asked for it. `D` is the
 * origin VM's step data (EVM by default).
 */
export interface SandboxQuoteResponse<D = EvmStepDataJson> {
  requestId: Hex;
  steps: StepJson<D>[];
  fees: Record<DeprecatedFeeKey, CurrencyAmountJson>;
  feeSponsorship: FeeSponsorshipJson;
  details: QuoteDetailsJson;
  protocol?: { v2: ProtocolV2Json };
}
