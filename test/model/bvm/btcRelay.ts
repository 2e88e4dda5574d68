/**
 * The in-memory Relay service of the Bitcoin model: GET /chains for alpha (with WBTC) and Bitcoin (the sandbox's
 * own document), quotes for BTC → WBTC on alpha built by the sandbox's pure builders (`buildVmQuote`, whose
 * Bitcoin step is `buildDepositPsbt` over the treasury's confirmed coins), so Ballast's local verification
 * passes; statuses through the EVM model's `intentStatusOf` / `requestsOf`. Its PSBTs pay the market's rate for
 * the next two blocks as the sandbox reads it (`esploraFeeRate`: GET /fee-estimates, the smallest target ≥ 2,
 * rounded up; 5 sat/vB in the flat legacy market), from the market `relayLagBlocks` blocks back when the
 * schedule makes the Relay stale; for its first quotes the schedule may have it build on our own unconfirmed
 * change. The solver indexes a deposit once mined (by the order-id OP_RETURN and the exact payment to the
 * depository) and acts per the schedule's {@link FillPlan} once it is final ({@link SOLVER_FINAL_BLOCKS} blocks,
 * deeper than any reorg of the schedule): a WBTC fill on alpha, a refund on Bitcoin (the depository output sent
 * back to `refundTo`, at a rate no market of the schedule reaches), a failure, or nothing. A deposit mined after
 * its order's deadline is refunded whatever the plan.
 */
import { Psbt, networks } from 'bitcoinjs-lib';
import { keccak256, stringToHex, type Hex } from 'viem';
import { decodeOrderIdMemoScript } from '../../../packages/protocol/src/protocol/bitcoinDeposit.ts';
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
import type { BitcoinCoin } from '../../../packages/sandbox/src/quote/bvmSteps.ts';
import { sandboxChainInfo, type SandboxChainTable } from '../../../packages/sandbox/src/quote/chainTable.ts';
import { SandboxApiError } from '../../../packages/sandbox/src/quote/errors.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../packages/sandbox/src/quote/fees.ts';
import { DEFAULT_PRICES_USD, parsePrices } from '../../../packages/sandbox/src/quote/prices.ts';
import { resolveQuoteRoute, SandboxQuoteRequestSchema } from '../../../packages/sandbox/src/quote/request.ts';
import { sandboxBitcoinChain, BITCOIN_CHAIN_ID } from '../../../packages/sandbox/src/quote/vmChains.ts';
import { buildVmQuote } from '../../../packages/sandbox/src/quote/vmQuote.ts';
import { intentStatusOf, MODEL_FEES, requestsOf, type RelayService, type StatusRecord } from '../inMemoryRelay.ts';
import type { FillPlan } from '../schedule.ts';
import { ACCOUNTS } from '../world.ts';
import type { BtcChain, BtcTx } from './btcChain.ts';
import { twoBlockRate } from './btcMarket.ts';
import { ALPHA, BTC_KEYS } from './btcAccounts.ts';
import { MODEL_QUOTE_DEADLINE_SEC, type BtcWorld } from './btcWorld.ts';

/** Blocks (the including one counted) after which the solver acts on a deposit: one more than the deepest reorg a schedule makes (3). */
export const SOLVER_FINAL_BLOCKS = 4;

/** Virtual size the solver's refund is priced for, vbytes (one P2WPKH input, one P2WPKH output, with room). */
const REFUND_VSIZE = 150n;

const TABLE: SandboxChainTable = [
  sandboxChainInfo(DEFAULT_LOCAL_CHAINS[0]!, 'http://127.0.0.1:9', sandboxContractAddresses(ACCOUNTS.deployer.address), { wbtc: true }),
];
const BITCOIN = sandboxBitcoinChain('http://127.0.0.1:9/api', BTC_KEYS.depository);
/** GET /chains of the Bitcoin model: alpha and Bitcoin. */
export const BTC_CHAINS_DOC = buildChainsDocument(TABLE, ACCOUNTS.solver.address, [BITCOIN]);
const PRICES = parsePrices(DEFAULT_PRICES_USD);
const DEFAULT_FILL: FillPlan = { outcome: 'success', payMinimum: false, delayMs: 0, indexDelayMs: 0 };

/** What the service knows about one quoted order. */
export interface BtcOrderRecord extends StatusRecord {
  index: number;
  plan: FillPlan;
  /** The outpoints its PSBT spends (`txid:vout`). */
  inputs: string[];
  indexedAtMs: number | null;
  reindexed: boolean;
}

/** The service, shared by every process of a schedule. */
export class BtcRelayModel implements RelayService {
  readonly orders: BtcOrderRecord[] = [];
  private randomCount = 0;

  constructor(private readonly world: BtcWorld) {}

  /** POST /quote/v2 for BTC (Bitcoin) → WBTC (alpha). @throws RelayApiError 400 for anything else or too few coins */
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
    if (request.originChainId !== BITCOIN_CHAIN_ID || request.destinationChainId !== ALPHA.chainId)
      throw refuse('the model quotes Bitcoin → alpha only');
    const coins = this.coinsFor(BigInt(request.amount));
    const feeRateSatPerVb = this.priceNow();
    let built;
    try {
      const route = resolveQuoteRoute(request, TABLE, DEFAULT_SANDBOX_PRICING.defaultSlippageBps, [BITCOIN]);
      built = await buildVmQuote({
        route,
        chains: TABLE,
        vmChains: [BITCOIN],
        prices: PRICES,
        solver: ACCOUNTS.solver,
        nowSec: Math.floor(this.world.nowMs / 1000),
        faults: { ...DEFAULT_SANDBOX_FAULTS, bitcoinQuoteDeadlineSec: MODEL_QUOTE_DEADLINE_SEC },
        destinationFill: { gasPriceWei: MODEL_FEES.maxFeePerGas },
        balances: { userIn: coins.reduce((s, c) => s + c.value, 0n), solverOut: this.world.alpha.balanceOf(ALPHA.wbtc, ALPHA.solver) },
        bitcoinOrigin: { coins, feeRateSatPerVb },
        random: () => keccak256(stringToHex(`btc-model-random-${this.randomCount++}`)),
      });
    } catch (error) {
      if (error instanceof SandboxApiError) throw refuse(error.message, error.code ?? 'UNKNOWN');
      throw error;
    }
    const psbtInputs = coinsOf(built.response);
    const index = this.orders.length;
    const plan = this.world.schedule.fills[index] ?? DEFAULT_FILL;
    this.orders.push({
      index,
      order: built.order,
      plan,
      inputs: psbtInputs,
      deposit: null,
      indexedAtMs: null,
      action: null,
      settled: false,
      reindexed: false,
      createdAtMs: this.world.nowMs,
    });
    this.world.quoted(index);
    const raw: unknown = JSON.parse(JSON.stringify(built.response));
    return { quote: QuoteResponseSchema.parse(raw), raw };
  }

  /** The rate of the next PSBT, sat/vB: the two-block estimate of the market `relayLagBlocks` blocks back. */
  private priceNow(): bigint {
    const at = Math.max(0, this.world.bitcoin.head() - (this.world.schedule.relayLagBlocks ?? 0));
    return twoBlockRate(this.world.market.estimates(at, this.world.market.minFeeAt(at)));
  }

  /**
   * The coins of the next PSBT: the treasury's confirmed coins (not those earlier quotes used, with
   * `avoidQuoted`, when the rest covers the amount with a tenth to spare); or, for the first
   * `unconfirmedChange.quotes` quotes, our own unconfirmed change (outputs of mempool transactions spending only
   * our coins) with the largest confirmed coin that needs it to cover `amount`, so the PSBT spends both.
   */
  private coinsFor(amount: bigint): BitcoinCoin[] {
    const chain = this.world.bitcoin;
    const utxos = chain.utxos(BTC_KEYS.treasuryScript, chain.tipView());
    const asCoins = (list: typeof utxos): BitcoinCoin[] => list.map((u) => ({ txid: u.txid, vout: u.vout, value: u.value }));
    const confirmed = utxos.filter((u) => u.height !== null);
    const change = this.orders.length < (this.world.schedule.unconfirmedChange?.quotes ?? 0) ? ownChange(chain, utxos) : [];
    if (change.length > 0) {
      const spare = amount / 50n; // room for the fee
      const total = change.reduce((s, u) => s + u.value, 0n);
      const partner = confirmed
        .filter((u) => u.value < amount + spare && u.value + total >= amount + spare)
        .sort((a, b) => (a.value === b.value ? 0 : a.value > b.value ? -1 : 1))[0];
      if (partner) return asCoins([...change, partner]);
    }
    const quoted = new Set(this.orders.filter((r) => r.deposit === null).flatMap((r) => r.inputs));
    const fresh = confirmed.filter((u) => !quoted.has(`${u.txid}:${u.vout}`));
    const avoid = this.world.schedule.coinSelection === 'avoidQuoted' && fresh.reduce((s, u) => s + u.value, 0n) > (amount * 11n) / 10n;
    return asCoins(avoid ? fresh : confirmed);
  }

  /** The record of a request id or order id (any case). */
  find(id: string): BtcOrderRecord | undefined {
    const want = id.toLowerCase();
    return this.orders.find((r) => r.order.requestId.toLowerCase() === want || r.order.orderId.toLowerCase() === want);
  }

  /** The canonical mined deposit of an order: pays the depository exactly `amountIn`, with its order-id memo. */
  depositOf(r: BtcOrderRecord): { tx: BtcTx; height: number } | undefined {
    const chain = this.world.bitcoin;
    for (const tx of chain.addressTxs(BTC_KEYS.depositoryScript, chain.tipView()).chain.reverse()) {
      const height = chain.heightOf(tx.txid);
      if (height !== undefined && isDepositOf(tx, r.order.orderId, r.order.amountIn)) return { tx, height };
    }
    return undefined;
  }

  /** Looks at the chains: indexes deposits (after the plan's lag), acts once one is final, notes settlements. */
  tick(): void {
    const chain = this.world.bitcoin;
    for (const r of this.orders) {
      if (r.action === null) {
        const deposit = this.depositOf(r);
        if (!deposit || (r.deposit && r.deposit.txHash !== deposit.tx.txid)) {
          r.deposit = null;
          r.indexedAtMs = null;
          if (!deposit) continue;
        }
        const minedMs = chain.blocks[deposit.height]!.timeMs;
        if (this.world.nowMs < minedMs + (r.reindexed ? 0 : r.plan.indexDelayMs)) continue;
        r.indexedAtMs ??= this.world.nowMs;
        r.deposit = { txHash: deposit.tx.txid, blockNumber: BigInt(deposit.height) };
        // The solver acts only on a deposit deeper than any reorg the schedule makes (like the EVM model's
        // finality): a fill paid for a deposit a reorg then removes would hand the treasury the solver's money.
        const final = chain.head() - deposit.height + 1 >= SOLVER_FINAL_BLOCKS;
        if (final && this.world.nowMs >= r.indexedAtMs + r.plan.delayMs) this.act(r, deposit.tx, minedMs);
      }
      const a = r.action;
      if (a && (a.kind === 'fill' || a.kind === 'refund')) {
        r.settled = a.kind === 'fill' ? this.world.alpha.minedTx(a.txHash as Hex) !== undefined : chain.heightOf(a.txHash) !== undefined; // fills are alpha hashes
      }
    }
  }

  private act(r: BtcOrderRecord, deposit: BtcTx, minedMs: number): void {
    const o = r.order;
    const late = minedMs > o.deadlineSec * 1000;
    if (late || r.plan.outcome === 'refund') {
      const vout = deposit.outputs.findIndex((out) => out.script === BTC_KEYS.depositoryScript && out.value === o.amountIn);
      const fee = REFUND_VSIZE * this.world.market.ceilingSatPerVb();
      const refund = this.world.bitcoin.systemSpend(
        [{ txid: deposit.txid, vout }],
        [{ script: BTC_KEYS.treasuryScript, value: o.amountIn - fee }],
        `refund-${r.index}`,
      );
      r.action = { kind: 'refund', chainId: BITCOIN_CHAIN_ID, txHash: refund.txid, amount: o.amountIn - fee };
      return;
    }
    if (r.plan.outcome === 'failure' || r.plan.outcome === 'never') {
      r.action = { kind: r.plan.outcome };
      return;
    }
    const amount = r.plan.payMinimum ? o.minimumOut : o.expectedOut;
    const txHash = this.world.alpha.payout(ALPHA.solver, ALPHA.wbtc, ALPHA.treasury, amount, `fill-${r.index}`);
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
    const tx = this.world.bitcoin.txs.get(body.txHash.toLowerCase());
    const r = tx ? this.orders.find((o) => isDepositOf(tx, o.order.orderId, o.order.amountIn)) : undefined;
    if (r) r.reindexed = true;
    this.tick();
    return { message: 'Success' };
  }
}

/** Our own unconfirmed change: mempool outputs paying the treasury whose transaction spends only treasury coins. */
function ownChange(chain: BtcChain, utxos: ReturnType<BtcChain['utxos']>): ReturnType<BtcChain['utxos']> {
  const ours = (txid: string) => chain.txs.get(txid)!.inputs.every((i) => chain.prevout(i)?.script === BTC_KEYS.treasuryScript);
  return utxos.filter((u) => u.height === null && ours(u.txid));
}

/** Whether `tx` pays the depository `amount` with the order-id memo of `orderId` in its first OP_RETURN. */
export function isDepositOf(tx: BtcTx, orderId: string, amount: bigint): boolean {
  if (!tx.outputs.some((o) => o.script === BTC_KEYS.depositoryScript && o.value === amount)) return false;
  const memo = tx.outputs.find((o) => o.script.startsWith('6a'));
  return memo !== undefined && decodeOrderIdMemoScript(Buffer.from(memo.script, 'hex'))?.orderId === orderId.toLowerCase();
}

/** The outpoints the quote's PSBT spends, from the sandbox's `data.psbt`. */
function coinsOf(response: unknown): string[] {
  const text = JSON.stringify(response);
  const psbt = /"psbt":"([0-9a-f]+)"/.exec(text)?.[1];
  if (!psbt) return [];
  const unsigned = psbtInputs(psbt);
  return unsigned.map((i) => `${i.txid}:${i.vout}`);
}

function psbtInputs(psbtHex: string): { txid: string; vout: number }[] {
  return Psbt.fromHex(psbtHex, { network: networks.regtest }).txInputs.map((i) => ({
    txid: Buffer.from(i.hash).reverse().toString('hex'),
    vout: i.index,
  }));
}
