/**
 * The in-memory Relay service of the Solana model: GET /chains for alpha and Solana (the sandbox's own document,
 * naming the depository program and the USDC mint), quotes for USDC (Solana) → USDC (alpha) built by the
 * sandbox's pure builders (`buildVmQuote`, whose Solana step is the `deposit_token` instruction), so Ballast's
 * local verification passes; statuses through the EVM model's `intentStatusOf` / `requestsOf`. The solver
 * indexes a deposit once landed (its `DepositEvent` for the order id, the amount and the depositor) and acts per
 * the schedule's {@link FillPlan} once it is finalized: a USDC fill on alpha, a refund from the vault's token
 * account to the treasury's, a failure, or nothing. A deposit landed after its order's deadline is refunded
 * whatever the plan.
 */
import { keccak256, stringToHex, type Hex } from 'viem';
import { RelayApiError } from '../../../packages/ballast/src/relay/errors.ts';
import {
  QuoteRequestSchema,
  QuoteResponseSchema,
  type IntentStatus,
  type QuoteResponse,
} from '../../../packages/protocol/src/relay/schemas.ts';
import { buildChainsDocument } from '../../../packages/sandbox/src/api/chainsDocument.ts';
import { DEFAULT_LOCAL_CHAINS, sandboxContractAddresses } from '../../../packages/sandbox/src/chains/localChains.ts';
import { DEFAULT_SANDBOX_FAULTS } from '../../../packages/sandbox/src/faults.ts';
import { sandboxChainInfo, type SandboxChainTable } from '../../../packages/sandbox/src/quote/chainTable.ts';
import { SandboxApiError } from '../../../packages/sandbox/src/quote/errors.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../packages/sandbox/src/quote/fees.ts';
import { DEFAULT_PRICES_USD, parsePrices } from '../../../packages/sandbox/src/quote/prices.ts';
import { resolveQuoteRoute, SandboxQuoteRequestSchema } from '../../../packages/sandbox/src/quote/request.ts';
import { sandboxSolanaChain, SOLANA_CHAIN_ID } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { buildVmQuote } from '../../../packages/sandbox/src/quote/vmQuote.ts';
import { intentStatusOf, MODEL_FEES, requestsOf, type RelayService, type StatusRecord } from '../inMemoryRelay.ts';
import type { FillPlan } from '../schedule.ts';
import { ACCOUNTS, START_MS } from '../world.ts';
import { ALPHA, SOL } from './solAccounts.ts';
import { FINALIZED_DEPTH, GENESIS_SLOT, SLOT_MS, type LandedSolTx } from './solChain.ts';
import type { SolWorld } from './solWorld.ts';

/** Placeholder URLs of the model's Solana node (nothing contacts them). */
export const SOLANA_RPC_URL = 'http://127.0.0.1:9';
const TABLE: SandboxChainTable = [
  sandboxChainInfo(DEFAULT_LOCAL_CHAINS[0]!, 'http://127.0.0.1:9', sandboxContractAddresses(ACCOUNTS.deployer.address)),
];
const SOLANA = sandboxSolanaChain({
  rpcUrl: SOLANA_RPC_URL,
  wsUrl: 'ws://127.0.0.1:10',
  depositoryProgramId: SOL.depository,
  usdcMint: SOL.usdcMint,
});
/** GET /chains of the Solana model: alpha and Solana. */
export const SOL_CHAINS_DOC = buildChainsDocument(TABLE, ACCOUNTS.solver.address, [SOLANA]);
const PRICES = parsePrices(DEFAULT_PRICES_USD);
const DEFAULT_FILL: FillPlan = { outcome: 'success', payMinimum: false, delayMs: 0, indexDelayMs: 0 };

/** Virtual time of a slot, unix ms. */
export function slotTimeMs(slot: number): number {
  return START_MS + (slot - GENESIS_SLOT) * SLOT_MS;
}

/** What the service knows about one quoted order. */
export interface SolOrderRecord extends StatusRecord {
  index: number;
  plan: FillPlan;
  indexedAtMs: number | null;
  reindexed: boolean;
}

/** Whether a landed transaction is the successful deposit of an order (order id, amount, depositor). */
export function isDepositOf(t: LandedSolTx, orderId: string, amount: bigint, user: string): boolean {
  const e = t.deposit;
  return t.err === null && e !== null && e.id.toLowerCase() === orderId.toLowerCase() && e.amount === amount && e.depositor === user;
}

/** The service, shared by every process of a schedule. */
export class SolRelayModel implements RelayService {
  readonly orders: SolOrderRecord[] = [];
  private randomCount = 0;

  constructor(private readonly world: SolWorld) {}

  /** POST /quote/v2 for USDC (Solana) → USDC (alpha). @throws RelayApiError 400 for anything else */
  async quote(body: unknown): Promise<{ quote: QuoteResponse; raw: unknown }> {
    const request = SandboxQuoteRequestSchema.parse(QuoteRequestSchema.parse(body));
    const refuse = (message: string, code = 'UNSUPPORTED_ROUTE') =>
      new RelayApiError({
        endpoint: 'POST /quote/v2',
        httpStatus: 400,
        body: { message, errorCode: code },
        bodyText: message,
        retryAfterMs: undefined,
      });
    if (request.originChainId !== SOLANA_CHAIN_ID || request.destinationChainId !== ALPHA.chainId)
      throw refuse('the model quotes Solana → alpha only');
    let built;
    try {
      const route = resolveQuoteRoute(request, TABLE, DEFAULT_SANDBOX_PRICING.defaultSlippageBps, [SOLANA]);
      built = await buildVmQuote({
        route,
        chains: TABLE,
        vmChains: [SOLANA],
        prices: PRICES,
        solver: ACCOUNTS.solver,
        nowSec: Math.floor(this.world.nowMs / 1000),
        faults: DEFAULT_SANDBOX_FAULTS,
        destinationFill: { gasPriceWei: MODEL_FEES.maxFeePerGas },
        balances: {
          userIn: this.world.solana.tokensAt(SOL.treasuryAta, this.world.slot()),
          solverOut: this.world.alpha.balanceOf(ALPHA.usdc, ALPHA.solver),
        },
        random: () => keccak256(stringToHex(`sol-model-random-${this.randomCount++}`)),
      });
    } catch (error) {
      if (error instanceof SandboxApiError) throw refuse(error.message, error.code ?? 'UNKNOWN');
      throw error;
    }
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
  find(id: string): SolOrderRecord | undefined {
    const want = id.toLowerCase();
    return this.orders.find((r) => r.order.requestId.toLowerCase() === want || r.order.orderId.toLowerCase() === want);
  }

  /** The landed deposit of an order, if any. */
  depositOf(r: SolOrderRecord): LandedSolTx | undefined {
    return this.world.solana.ledger.find((t) => isDepositOf(t, r.order.orderId, r.order.amountIn, r.order.user));
  }

  /** Looks at the chains: indexes deposits (after the plan's lag), acts once one is finalized, notes settlements. */
  tick(): void {
    const chain = this.world.solana;
    for (const r of this.orders) {
      if (r.action === null) {
        const deposit = this.depositOf(r);
        if (!deposit) continue;
        const landedMs = slotTimeMs(deposit.slot);
        if (this.world.nowMs < landedMs + (r.reindexed ? 0 : r.plan.indexDelayMs)) continue;
        r.indexedAtMs ??= this.world.nowMs;
        r.deposit = { txHash: deposit.signature, blockNumber: BigInt(deposit.slot) };
        if (chain.tip - deposit.slot >= FINALIZED_DEPTH && this.world.nowMs >= r.indexedAtMs + r.plan.delayMs) this.act(r, landedMs);
      }
      const a = r.action;
      if (a && (a.kind === 'fill' || a.kind === 'refund')) {
        r.settled =
          a.kind === 'fill'
            ? this.world.alpha.minedTx(a.txHash as Hex) !== undefined
            : chain.landedAt(a.txHash, chain.tip - 1) !== undefined;
      }
    }
  }

  private act(r: SolOrderRecord, landedMs: number): void {
    const o = r.order;
    const late = landedMs > o.deadlineSec * 1000;
    if (late || r.plan.outcome === 'refund') {
      const txHash = this.world.solana.systemTransfer(SOL.vaultAta, SOL.treasuryAta, o.amountIn, this.world.slot());
      r.action = { kind: 'refund', chainId: SOLANA_CHAIN_ID, txHash, amount: o.amountIn };
      return;
    }
    if (r.plan.outcome === 'failure' || r.plan.outcome === 'never') {
      r.action = { kind: r.plan.outcome };
      return;
    }
    const amount = r.plan.payMinimum ? o.minimumOut : o.expectedOut;
    const txHash = this.world.alpha.payout(ALPHA.solver, ALPHA.usdc, ALPHA.treasury, amount, `fill-${r.index}`);
    r.action = { kind: 'fill', chainId: ALPHA.chainId, txHash, amount };
  }

  status(requestId: string): IntentStatus {
    this.tick();
    return intentStatusOf(this.find(requestId), this.world.nowMs);
  }

  requests(q: { id: string } | { user: string; status?: string }) {
    return requestsOf(this, q, this.world.nowMs);
  }

  /** POST /transactions/index: a deposit announced again is indexed at once. */
  index(body: { chainId: number; txHash: string }): { message: string } {
    const t = this.world.solana.bySignature.get(body.txHash);
    const r = t ? this.orders.find((o) => isDepositOf(t, o.order.orderId, o.order.amountIn, o.order.user)) : undefined;
    if (r) r.reindexed = true;
    this.tick();
    return { message: 'Success' };
  }
}
