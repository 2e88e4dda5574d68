/**
 * The simulated Relay service: quotes priced with each route's fee model (src/sim/quote.ts), request statuses
 * driven by what the simulated chains show (src/sim/relayApi.ts), and a solver that, once an order's deposit is
 * final, pays the fill on the destination after the route's delivery delay ± jitter, or refunds it (a fill that
 * fails, at the route's failure rate). A deposit mined after its order's deadline or not paying it exactly is
 * refunded. Faults a scenario switches on per route: quotes refused (HTTP 400 `NO_QUOTES`, as the API answers),
 * fee spikes (other fees inside time windows) and late fills (some fills come a fixed time later).
 */
import { keccak256, stringToHex, type Address, type Hex } from 'viem';
import {
  QuoteRequestSchema,
  QuoteResponseSchema,
  type ChainLiquidity,
  type IntentStatus,
  type QuoteResponse,
} from '@ballast/protocol/relay/schemas.ts';
import { lowerHex } from './chain.ts';
import { simChainsDocument } from './identity.ts';
import { buildSimQuote, routeFeesAt, simFeeOf, type FeeSpike, type RouteFees, type SimOrder } from './quote.ts';
import { intentStatusOf, relayApiAnswer, requestsOf, type RelayService, type StatusRecord } from './relayApi.ts';
import { SIM_CONFIRMATIONS, SIM_GAS, type SimWorld } from './world.ts';

/** How a route behaves: delivery delay ± uniform jitter (ms), the share of fills that fail (0–1), its fees. */
export interface RouteSpec {
  delayMs: number;
  jitterMs: number;
  failureRate: number;
  fees: RouteFees;
  /** Quotes on this route are refused: POST /quote/v2 answers HTTP 400 `NO_QUOTES`. */
  refuseQuotes?: boolean;
  /** Windows (ms after the start) in which the route quotes other fees; the first window holding the quote time wins. */
  feeSpikes?: FeeSpike[];
  /**
   * Late fills: with probability `rate` (0–1, drawn from the world's seeded random) the solver acts `extraMs` later
   * than the delay ± jitter it would otherwise act after.
   */
  lateFills?: { rate: number; extraMs: number };
}

/** Endpoint label of the quote call, as the real client names it. */
const QUOTE_ENDPOINT = 'POST /quote/v2';

/** What the service knows of one order. */
export interface SimOrderRecord extends StatusRecord<SimOrder> {
  /** When the solver acts, unix ms, once the deposit is final (null before). */
  actAtMs: number | null;
  /** When the fill or refund was mined, unix ms. */
  settledAtMs: number | null;
}

/** The service shared by every process of a run. */
export class SimRelay implements RelayService {
  readonly orders: SimOrderRecord[] = [];
  readonly chainsDocument: unknown;
  private count = 0;

  constructor(private readonly world: SimWorld) {
    this.chainsDocument = simChainsDocument(world.spec.chains, world.spec.token, world.spec.identity);
  }

  private chainOf(chainId: number) {
    const c = this.world.spec.chains.find((x) => x.chainId === chainId);
    if (!c) throw new Error(`no simulated chain ${chainId}`);
    return c;
  }

  /**
   * POST /quote/v2 at the virtual time, priced with the route's fees at that time (a fee spike's inside its window).
   *
   * @throws RelayApiError HTTP 400 `NO_QUOTES` when the route refuses quotes, `AMOUNT_TOO_LOW` when the fees would
   *   take the whole input (what the real client raises for these answers)
   */
  async quote(body: unknown): Promise<{ quote: QuoteResponse; raw: unknown }> {
    const request = QuoteRequestSchema.parse(body);
    const origin = this.chainOf(request.originChainId);
    const destination = this.chainOf(request.destinationChainId);
    const route = this.world.spec.route(origin.name, destination.name);
    if (route.refuseQuotes) {
      const message = `No quotes available: the simulated solver refuses ${origin.name} -> ${destination.name}`;
      throw relayApiAnswer(QUOTE_ENDPOINT, 400, { message, errorCode: 'NO_QUOTES' });
    }
    const fees = routeFeesAt(route.fees, route.feeSpikes, this.world.elapsedMs);
    const fee = simFeeOf(this.world.spec.token, fees, BigInt(request.amount)).total;
    if (fee >= BigInt(request.amount)) {
      const message = `Amount too low: fees of ${fee} take the whole input of ${request.amount}`;
      throw relayApiAnswer(QUOTE_ENDPOINT, 400, { message, errorCode: 'AMOUNT_TOO_LOW' });
    }
    const n = this.count++;
    const id = this.world.spec.identity;
    const built = await buildSimQuote({
      request,
      origin,
      destination,
      token: this.world.spec.token,
      id,
      fees,
      gas: SIM_GAS,
      nowSec: Math.floor(this.world.nowMs / 1000),
      userBalance: this.world.chain(origin.name).balanceOf(this.world.spec.token.address, request.user),
      requestId: keccak256(stringToHex(`sim-${id.seed}-request-${n}`)),
      salt: keccak256(stringToHex(`sim-${id.seed}-salt-${n}`)),
    });
    this.orders.push({
      order: built.order,
      deposit: null,
      action: null,
      settled: false,
      createdAtMs: this.world.nowMs,
      actAtMs: null,
      settledAtMs: null,
    });
    const raw: unknown = JSON.parse(JSON.stringify(built.response));
    return { quote: QuoteResponseSchema.parse(raw), raw };
  }

  /** The record of a request id or order id (any case). */
  find(id: string): SimOrderRecord | undefined {
    const want = id.toLowerCase();
    return this.orders.find((r) => r.order.requestId.toLowerCase() === want || r.order.orderId.toLowerCase() === want);
  }

  /** Looks at the chains: indexes deposits, acts when due, notes settlements. */
  tick(): void {
    for (const r of this.orders) {
      if (r.action === null) this.watchDeposit(r);
      const a = r.action;
      if (a && (a.kind === 'fill' || a.kind === 'refund') && !r.settled) {
        const hit = this.world.chainById(a.chainId).minedTx(a.txHash as Hex);
        if (hit) {
          r.settled = true;
          r.settledAtMs = hit.block.timestampMs;
        }
      }
    }
  }

  private watchDeposit(r: SimOrderRecord): void {
    const o = r.order;
    const origin = this.world.chainById(o.originChainId);
    const deposit = origin.deposits().find((d) => d.deposit.id === o.orderId.toLowerCase());
    if (!deposit) {
      r.deposit = null;
      return;
    }
    r.deposit = { txHash: deposit.txHash, blockNumber: deposit.block.number };
    if (origin.head() - deposit.block.number + 1n < BigInt(SIM_CONFIRMATIONS)) return;
    const route = this.world.spec.route(this.chainOf(o.originChainId).name, this.chainOf(o.destinationChainId).name);
    if (r.actAtMs === null) {
      const jitter = route.jitterMs > 0 ? Math.round((this.world.random() * 2 - 1) * route.jitterMs) : 0;
      const extra = route.lateFills && route.lateFills.rate > 0 && this.world.random() < route.lateFills.rate ? route.lateFills.extraMs : 0;
      r.actAtMs = deposit.block.timestampMs + Math.max(0, route.delayMs + jitter) + extra;
      // With no block cadence nothing else wakes the world at that instant: queue a look then.
      if (this.world.automining) this.world.at(r.actAtMs, () => undefined);
    }
    if (this.world.nowMs < r.actAtMs) return;
    const exact = deposit.deposit.amount === o.amountIn && deposit.deposit.from === o.user.toLowerCase();
    const late = deposit.block.timestampMs > o.deadlineSec * 1000;
    const fails = route.failureRate > 0 && this.world.random() < route.failureRate;
    if (!exact || late || fails) {
      const refundTo = lowerHex<Address>(o.refundTo ?? o.user);
      const txHash = origin.payout(
        this.world.spec.identity.depository,
        deposit.deposit.token,
        refundTo,
        deposit.deposit.amount,
        `refund-${o.orderId}`,
      );
      r.action = { kind: 'refund', chainId: o.originChainId, txHash, amount: deposit.deposit.amount };
      return;
    }
    const destination = this.world.chainById(o.destinationChainId);
    const solver = lowerHex<Address>(this.world.spec.identity.solver.address);
    const txHash = destination.payout(solver, this.world.spec.token.address, lowerHex(o.recipient), o.expectedOut, `fill-${o.orderId}`);
    r.action = { kind: 'fill', chainId: o.destinationChainId, txHash, amount: o.expectedOut };
  }

  /** GET /intents/status/v3 now. */
  status(requestId: string): IntentStatus {
    this.tick();
    return intentStatusOf(this.find(requestId), this.world.nowMs);
  }

  /** GET /requests/v3 by id or by user. */
  requests(q: { id: string } | { user: string; status?: string }) {
    return requestsOf(this, q, this.world.nowMs);
  }

  /** POST /transactions/index: the service looks at the chains again. */
  index(_body: { chainId: number; txHash: string }): { message: string } {
    this.tick();
    return { message: 'Success' };
  }

  /** GET /chains/liquidity: the solver's token balance on the chain at its head. */
  liquidity(chainId: number): ChainLiquidity[] {
    const { token, identity } = this.world.spec;
    const balance = this.world.chainById(chainId).balanceOf(token.address, identity.solver.address);
    return [{ chainId, symbol: token.symbol, address: token.address, decimals: token.decimals, balance }];
  }
}
