/**
 * The in-memory Relay service of the model: GET /chains for alpha and beta (the sandbox's own document), quotes
 * built by the sandbox's pure builders (so Ballast's local verification passes) on the virtual clock, request
 * statuses driven by what the in-memory chains show, and a solver that acts on each order per the schedule's
 * {@link FillPlan} once the deposit is final: a fill paid on the destination, a refund from the depository, a
 * failure (the deposit stays in the depository) or nothing. A deposit mined after its order's deadline, or not
 * paying its order exactly, is refunded. The Relay's knowledge lags the chain by the plan's `indexDelayMs`.
 */
import { keccak256, stringToHex, type Hex } from 'viem';
import type { RelayClient } from '../../packages/ballast/src/relay/client.ts';
import {
  QuoteRequestSchema,
  QuoteResponseSchema,
  type ChainLiquidity,
  type IntentStatus,
  type QuoteResponse,
} from '../../packages/protocol/src/relay/schemas.ts';
import { lowerHex, type InMemoryChain } from '../../packages/ballast/src/sim/chain.ts';
import type { ProcessHandle } from '../../packages/ballast/src/sim/node.ts';
import {
  inMemoryRelayClient as relayClientOver,
  intentStatusOf,
  requestsOf,
  type RelayService,
  type StatusRecord as SimStatusRecord,
} from '../../packages/ballast/src/sim/relayApi.ts';
import { buildChainsDocument } from '../../packages/sandbox/src/api/chainsDocument.ts';
import { DEFAULT_SANDBOX_FAULTS } from '../../packages/sandbox/src/faults.ts';
import { buildQuote, type QuotedOrder } from '../../packages/sandbox/src/quote/buildQuote.ts';
import { sandboxChainInfo, type SandboxChainTable } from '../../packages/sandbox/src/quote/chainTable.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../packages/sandbox/src/quote/fees.ts';
import { DEFAULT_PRICES_USD, parsePrices } from '../../packages/sandbox/src/quote/prices.ts';
import { SandboxQuoteRequestSchema } from '../../packages/sandbox/src/quote/request.ts';
import { sandboxContractAddresses, DEFAULT_LOCAL_CHAINS } from '../../packages/sandbox/src/chains/localChains.ts';
import type { FillPlan } from './schedule.ts';
import { ACCOUNTS, ADDR, FINALITY_BLOCKS, type World } from './world.ts';

/** Fee data both chains quote and estimate with, wei. */
export const MODEL_FEES = { maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 100_000_000n };

/** The sandbox chain table for alpha and beta (RPC URLs are placeholders nobody contacts). */
const TABLE: SandboxChainTable = DEFAULT_LOCAL_CHAINS.map((def) =>
  sandboxChainInfo(def, 'http://127.0.0.1:9', sandboxContractAddresses(ACCOUNTS.deployer.address)),
);
const CHAINS_DOC = buildChainsDocument(TABLE, ACCOUNTS.solver.address);
const PRICES = parsePrices(DEFAULT_PRICES_USD);
/** A quoted order's plan when the schedule lists none for it: filled at once. */
const DEFAULT_FILL: FillPlan = { outcome: 'success', payMinimum: false, delayMs: 0, indexDelayMs: 0 };

/** What the service knows about one quoted order. */
export interface OrderRecord {
  index: number;
  order: QuotedOrder;
  plan: FillPlan;
  /** The deposit the Relay indexed (the first canonical one), if any. */
  deposit: { txHash: Hex; blockNumber: bigint } | null;
  indexedAtMs: number | null;
  /** What the solver did, once it acted (sticky: the service never takes it back). */
  action: { kind: 'fill' | 'refund'; chainId: number; txHash: Hex; amount: bigint } | { kind: 'failure' } | { kind: 'never' } | null;
  /** Whether the fill or refund was mined once (then the status stays final). */
  settled: boolean;
  reindexed: boolean;
  createdAtMs: number;
}

/** The service's state, shared by every process of a schedule. */
export class RelayModel implements RelayService {
  readonly orders: OrderRecord[] = [];
  private randomCount = 0;

  constructor(private readonly world: World) {}

  /** POST /quote/v2: a sandbox quote at the virtual time, remembered with the schedule's plan for it. */
  async quote(body: unknown): Promise<{ quote: QuoteResponse; raw: unknown }> {
    const request = SandboxQuoteRequestSchema.parse(QuoteRequestSchema.parse(body));
    const origin = this.world.chainById(request.originChainId);
    const destination = this.world.chainById(request.destinationChainId);
    const built = await buildQuote({
      request,
      chains: TABLE,
      prices: PRICES,
      pricing: DEFAULT_SANDBOX_PRICING,
      solver: ACCOUNTS.solver,
      nowSec: Math.floor(this.world.nowMs / 1000),
      faults: { ...DEFAULT_SANDBOX_FAULTS },
      feeData: { origin: MODEL_FEES, destination: MODEL_FEES },
      balances: {
        userIn: origin.balanceOf(request.originCurrency, request.user),
        solverOut: destination.balanceOf(request.destinationCurrency, ADDR.solver),
      },
      random: () => keccak256(stringToHex(`model-random-${this.randomCount++}`)),
    });
    const index = this.orders.length;
    const plan = this.world.schedule.fills[index] ?? DEFAULT_FILL;
    this.orders.push({
      index,
      order: built.order,
      plan,
      deposit: null,
      indexedAtMs: null,
      action: null,
      settled: false,
      reindexed: false,
      createdAtMs: this.world.nowMs,
    });
    const raw: unknown = JSON.parse(JSON.stringify(built.response));
    return { quote: QuoteResponseSchema.parse(raw), raw };
  }

  /** The record of a request id or order id (any case). */
  find(id: string): OrderRecord | undefined {
    const want = id.toLowerCase();
    return this.orders.find((r) => r.order.requestId.toLowerCase() === want || r.order.orderId.toLowerCase() === want);
  }

  /** Looks at the chains: indexes deposits (after the plan's lag), acts once a deposit is final, notes settlements. */
  tick(): void {
    for (const r of this.orders) {
      const origin = this.world.chainById(r.order.originChainId);
      if (r.action === null) {
        const deposit = origin.deposits().find((d) => d.deposit.id === r.order.orderId.toLowerCase());
        if (!deposit) {
          r.deposit = null;
          r.indexedAtMs = null;
          continue;
        }
        if (r.deposit && r.deposit.txHash !== deposit.txHash) {
          r.deposit = null;
          r.indexedAtMs = null;
        }
        const lagMs = r.reindexed ? 0 : r.plan.indexDelayMs;
        if (this.world.nowMs < deposit.block.timestampMs + lagMs) continue;
        const indexedAtMs = r.deposit?.txHash === deposit.txHash && r.indexedAtMs !== null ? r.indexedAtMs : this.world.nowMs;
        r.indexedAtMs = indexedAtMs;
        r.deposit = { txHash: deposit.txHash, blockNumber: deposit.block.number };
        const final = origin.head() - deposit.block.number + 1n >= BigInt(FINALITY_BLOCKS);
        if (final && this.world.nowMs >= indexedAtMs + r.plan.delayMs) this.act(r, deposit);
      }
      const a = r.action;
      if (a && (a.kind === 'fill' || a.kind === 'refund') && this.world.chainById(a.chainId).minedTx(a.txHash)) r.settled = true;
    }
  }

  private act(r: OrderRecord, deposit: ReturnType<InMemoryChain['deposits']>[number]): void {
    const o = r.order;
    const exact =
      deposit.deposit.amount === o.amountIn &&
      deposit.deposit.token === o.currencyIn.address.toLowerCase() &&
      deposit.deposit.from === o.user.toLowerCase();
    const late = deposit.block.timestampMs > o.deadlineSec * 1000;
    const refund = () => {
      // No refundTo: automatic refund is off (https://docs.relay.link/references/api/api_core_concepts/refunds).
      if (o.refundTo === null) {
        r.action = { kind: 'failure' };
        return;
      }
      const chain = this.world.chainById(o.originChainId);
      const txHash = chain.payout(
        ADDR.depository,
        deposit.deposit.token,
        lowerHex(o.refundTo),
        deposit.deposit.amount,
        `refund-${r.index}`,
      );
      r.action = { kind: 'refund', chainId: o.originChainId, txHash, amount: deposit.deposit.amount };
    };
    if (!exact || late) return refund();
    if (r.plan.outcome === 'refund') return refund();
    if (r.plan.outcome === 'failure' || r.plan.outcome === 'never') {
      r.action = { kind: r.plan.outcome };
      return;
    }
    const chain = this.world.chainById(o.destinationChainId);
    const amount = r.plan.payMinimum ? o.minimumOut : o.expectedOut;
    const txHash = chain.payout(ADDR.solver, lowerHex(o.currencyOut.address), lowerHex(o.recipient), amount, `fill-${r.index}`);
    r.action = { kind: 'fill', chainId: o.destinationChainId, txHash, amount };
  }

  /** GET /intents/status/v3 as the service would answer it now. */
  status(requestId: string): IntentStatus {
    this.tick();
    return intentStatusOf(this.find(requestId), this.world.nowMs);
  }

  /** GET /requests/v3 records (v3 shape: `data.inTxs[].txHash`) by id or by user. */
  requests(q: { id: string } | { user: string; status?: string }) {
    return requestsOf(this, q, this.world.nowMs);
  }

  /** POST /transactions/index: a deposit announced again is indexed at once. */
  index(body: { chainId: number; txHash: string }): { message: string } {
    const chain = this.world.chainById(body.chainId);
    const hit = chain.deposits().find((d) => d.txHash.toLowerCase() === body.txHash.toLowerCase());
    const r = hit ? this.find(hit.deposit.id) : undefined;
    if (r) r.reindexed = true;
    this.tick();
    return { message: 'Success' };
  }

  /** GET /chains/liquidity: the solver's USDC and USDT on the chain at its head. */
  liquidity(chainId: number): ChainLiquidity[] {
    const info = TABLE.find((c) => c.chainId === chainId);
    if (!info) return [];
    const chain = this.world.chainById(chainId);
    return info.erc20.map((c) => ({
      chainId,
      currencyId: c.id,
      symbol: c.symbol,
      address: c.address,
      decimals: c.decimals,
      balance: chain.balanceOf(c.address, ADDR.solver),
    }));
  }
}

export { intentStatusOf, requestsOf };
export type { RelayService } from '../../packages/ballast/src/sim/relayApi.ts';
/** What the status and requests endpoints read of a model order (src/sim/relayApi.ts), with the sandbox's order. */
export type StatusRecord = SimStatusRecord<QuotedOrder>;

/**
 * One process's Relay client over the model's service (src/sim/relayApi.ts), serving the model's GET /chains
 * document unless another is given.
 */
export function inMemoryRelayClient(
  world: { nextRelayFails(endpoint: string): boolean; readonly relay: RelayService },
  proc: ProcessHandle,
  chainsDoc: unknown = CHAINS_DOC,
): RelayClient {
  return relayClientOver(world, proc, chainsDoc);
}
