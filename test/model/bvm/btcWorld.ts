/**
 * The world of a Bitcoin model schedule: a virtual clock, the in-memory Bitcoin chain (a block every
 * {@link BTC_BLOCK_MS}) with one node's mempool and "another node" that keeps evicted, trimmed or forgotten
 * transactions and brings them back later (they stay valid; one our node refuses for its fee is offered again
 * every block), the fee market (btcMarket.ts: each block's clearing rate, the node's mempool minimum fee, the
 * estimates served), the EVM chain alpha where fills pay WBTC (the EVM model's in-memory chain, a block every
 * {@link BLOCK_MS}), the Bitcoin Relay service, and the fault oracle that answers, call by call, whether an
 * Esplora read, a broadcast or a Relay call misbehaves.
 */
import { balanceKey, InMemoryChain } from '../../../packages/ballast/src/sim/chain.ts';
import type { NodeWorld } from '../inMemoryNode.ts';
import { BLOCK_MS, START_MS } from '../world.ts';
import { ALPHA, BTC_KEYS } from './btcAccounts.ts';
import { BtcChain, BtcRejectError, buildBtcTx, type BtcTx } from './btcChain.ts';
import { FeeMarket } from './btcMarket.ts';
import { BtcRelayModel } from './btcRelay.ts';
import {
  BTC_BANDS,
  PENDING_CHANGE_SATS,
  SATS,
  type BroadcastFault,
  type BtcReorg,
  type BtcSchedule,
  type EsploraFault,
} from './btcSchedule.ts';

/** Virtual time between Bitcoin blocks, ms (a fast chain: a deadline of 10 minutes spans 10 blocks). */
export const BTC_BLOCK_MS = 60_000;
/** Alpha blocks mined at most per wait; longer waits jump (Bitcoin blocks are always mined). */
const MAX_ALPHA_BLOCKS_PER_WAIT = 30;
/** Depth at which a Bitcoin transaction is final for the invariants (a conflicting spend proves a loss). */
export const BTC_PROOF_DEPTH = 6;
/** Satoshis the planner keeps back for miner fees (`chains.bitcoin.minerFeeReserveSats`). */
export const MINER_FEE_RESERVE_SATS = 1_000_000n;
/** The highest rate Ballast signs (`chains.bitcoin.maxFeeRateSatPerVb`) and the absolute cap the model holds every fee to. */
export const MAX_FEE_RATE_SAT_PER_VB = 50;
export const MAX_MINER_FEE_SATS = 50_000n;
/**
 * The largest fee of a cancel (`chains.bitcoin.maxCancelFeeSats`), set apart from the deposits' cap so the
 * invariants tell which one Ballast applied to which transaction.
 */
export const MAX_CANCEL_FEE_SATS = 20_000n;
/** Blocks a cancel may stay unmined before Ballast re-prices it (`chains.bitcoin.cancelRepriceAfterBlocks`, its default). */
export const CANCEL_REPRICE_AFTER_BLOCKS = 2;
/** Seconds from quote to order deadline: ten of the model's one-minute blocks. */
export const MODEL_QUOTE_DEADLINE_SEC = 600;
/** Ballast's minimum deadline lead on the model's chain (`minDeadlineLeadSec`): one block and a minute for the fill. */
export const MODEL_DEADLINE_LEAD_SEC = 120;
export { ALPHA, BTC_KEYS };

/** Height of the block holding the treasury's coins; reorgs never reach it. */
export const FUNDING_HEIGHT = 1;

/**
 * The treasury's starting holdings: Bitcoin at target + need + reserve, in three coins (the first need + 0.1 BTC,
 * or need − 0.3 BTC when the Relay is to build on our unconfirmed change, so that one confirmed coin and that
 * change make the deposit); alpha at target − need.
 */
export function startHoldings(need: bigint, pendingChange = false): { coins: bigint[]; alphaWbtc: bigint } {
  const onBitcoin = BTC_BANDS.bitcoin.target * SATS + need + MINER_FEE_RESERVE_SATS;
  const big = pendingChange ? need - (3n * SATS) / 10n : need + SATS / 10n;
  const rest = onBitcoin - big;
  return { coins: [big, rest / 2n, rest - rest / 2n], alphaWbtc: BTC_BANDS.alpha.target * SATS - need };
}

/** One world per schedule. */
export class BtcWorld implements NodeWorld {
  nowMs = START_MS;
  readonly bitcoin = new BtcChain(START_MS);
  readonly alpha: InMemoryChain;
  readonly relay: BtcRelayModel;
  readonly market: FeeMarket;
  /** Our own self-transfer pending at the start ({@link BtcSchedule.unconfirmedChange}), if any. */
  readonly pendingChange: BtcTx | undefined;
  faultsOn = true;
  readonly journal: string[] = [];
  readonly counters = { esplora: 0, broadcasts: 0, relay: 0 };
  /** Every transaction Ballast posted (`POST /tx`), by txid. */
  readonly posted = new Map<string, BtcTx>();
  /** Txids of the transactions Ballast posted that our node refused at least once. */
  readonly refused = new Set<string>();
  /** Transactions another node keeps: txid → the height at which it brings them back (null: never). */
  readonly elsewhere = new Map<string, number | null>();
  /** Mempool transactions due to be evicted from our node at a height, with when they come back. */
  private readonly evictions: { txid: string; atHeight: number; backAfter: number | null }[] = [];
  private readonly routeCalls = new Map<string, number>();
  private readonly dueReorgs: { atHeight: number; reorg: BtcReorg }[] = [];
  private nextAlphaMs = START_MS + BLOCK_MS;
  private nextBtcMs = START_MS + BTC_BLOCK_MS;
  private minedCount = 0;

  constructor(readonly schedule: BtcSchedule) {
    this.market = new FeeMarket(schedule.market, schedule.marketJumps, schedule.minFeeMoves);
    const pending = schedule.unconfirmedChange;
    const start = startHoldings(schedule.need, pending !== undefined);
    // The coin of the pending self-transfer comes on top: it is spent in the mempool, so the balance Ballast
    // plans with (confirmed funded − confirmed spent − mempool spent) is the same as without it.
    const coins = [...start.coins, ...(pending ? [PENDING_CHANGE_SATS] : [])];
    const funding = this.bitcoin.fund(
      coins.map((value) => ({ script: BTC_KEYS.treasuryScript, value })),
      START_MS,
    );
    this.pendingChange = pending ? this.selfTransfer(funding, coins.length - 1, BigInt(pending.parentSatPerVb)) : undefined;
    this.trimTo(this.market.minFeeAt(this.bitcoin.head()), this.bitcoin.head());
    const genesis = new Map<string, bigint>([
      [balanceKey(ALPHA.wbtc, ALPHA.treasury), start.alphaWbtc],
      [balanceKey(ALPHA.wbtc, ALPHA.solver), 1_000n * SATS],
    ]);
    const contracts = { depository: ALPHA.depository, tokens: [{ address: ALPHA.wbtc, tether: false, decimals: 8 }] };
    this.alpha = new InMemoryChain('alpha', ALPHA.chainId, contracts, genesis, START_MS);
    this.relay = new BtcRelayModel(this);
  }

  /** Our own self-transfer of output `vout` of `funding` at `satPerVb`, accepted by the node (one output back to us). */
  private selfTransfer(funding: BtcTx, vout: number, satPerVb: bigint): BtcTx {
    const value = funding.outputs[vout]!.value; // the funding transaction has that output
    const sized = buildBtcTx([{ txid: funding.txid, vout }], [{ script: BTC_KEYS.treasuryScript, value }], 'pending-change');
    const tx = buildBtcTx(
      [{ txid: funding.txid, vout }],
      [{ script: BTC_KEYS.treasuryScript, value: value - BigInt(sized.vsize) * satPerVb }],
      'pending-change',
    );
    this.bitcoin.submit(tx);
    return tx;
  }

  /** Notes that the Relay answered quote `index`: the market jumps it triggers start at the next block. */
  quoted(index: number): void {
    for (const j of this.market.quoted(index, this.bitcoin.head()))
      this.journal.push(`quote #${index} at ${this.bitcoin.head()}: market jump ${JSON.stringify(j)}`);
  }

  /** Lets `ms` pass: Bitcoin blocks every {@link BTC_BLOCK_MS}, alpha blocks every {@link BLOCK_MS} (bounded per wait). */
  advance(ms: number): void {
    const end = this.nowMs + Math.max(0, ms);
    let alphaBlocks = 0;
    while (Math.min(this.nextAlphaMs, this.nextBtcMs) <= end) {
      if (this.nextBtcMs <= this.nextAlphaMs) {
        this.nowMs = this.nextBtcMs;
        this.mineBitcoin();
        this.nextBtcMs += BTC_BLOCK_MS;
      } else {
        this.nowMs = this.nextAlphaMs;
        this.alpha.mine(this.nowMs);
        alphaBlocks += 1;
        this.nextAlphaMs =
          alphaBlocks < MAX_ALPHA_BLOCKS_PER_WAIT ? this.nextAlphaMs + BLOCK_MS : Math.max(this.nextAlphaMs + BLOCK_MS, end);
      }
      this.relay.tick();
    }
    this.nowMs = end;
    this.relay.tick();
  }

  /**
   * Mines a Bitcoin block after the due evictions and returns (a transaction our node refuses for its fee
   * stays with the other node, offered again each block), at the block's clearing rate; then moves the node's
   * mempool minimum fee to the block's (trimming what falls below it, kept by the other node) and applies the
   * due reorgs.
   */
  private mineBitcoin(): void {
    const height = this.bitcoin.head() + 1;
    for (const e of [...this.evictions]) {
      if (e.atHeight > height) continue;
      this.evictions.splice(this.evictions.indexOf(e), 1);
      for (const id of this.bitcoin.evict(e.txid)) this.keepElsewhere(id, e.backAfter === null ? null : height + e.backAfter);
    }
    for (const [txid, back] of [...this.elsewhere]) {
      if (back === null || back > height) continue;
      try {
        this.bitcoin.submit(this.bitcoin.txs.get(txid)!);
        this.elsewhere.delete(txid);
        this.journal.push(`another node brought ${txid.slice(0, 12)} back at height ${height}`);
      } catch (error) {
        // Refused for its fee, or its parent is still with the other node: offered again next block. Spent by
        // a mined transaction, or replaced: dropped.
        const parentAway = this.bitcoin.txs.get(txid)!.inputs.some((i) => this.elsewhere.has(i.txid));
        if (error instanceof BtcRejectError && (error.feeTooLow || parentAway)) this.elsewhere.set(txid, height + 1);
        else this.elsewhere.delete(txid);
      }
    }
    const block = this.bitcoin.mine(this.nowMs, this.market.clearingAt(height));
    this.trimTo(this.market.minFeeAt(height), height);
    for (const txid of block.txids) {
      const at = this.minedCount++;
      const trigger = this.faultsOn ? this.schedule.reorgs.find((r) => r.afterMined === at) : undefined;
      if (!trigger) continue;
      this.dueReorgs.push({ atHeight: block.height + trigger.delayBlocks, reorg: trigger });
      this.journal.push(`mined #${at} ${txid.slice(0, 12)} at ${block.height}: reorg ${JSON.stringify(trigger)}`);
    }
    for (const due of [...this.dueReorgs]) {
      if (this.bitcoin.head() < due.atHeight) continue;
      this.dueReorgs.splice(this.dueReorgs.indexOf(due), 1);
      const forgotten = this.bitcoin.reorg(due.reorg.depth, due.reorg.mode, this.nowMs, FUNDING_HEIGHT + 1);
      for (const id of forgotten) this.keepElsewhere(id, this.bitcoin.head() + 2);
      this.trimTo(this.market.minFeeAt(this.bitcoin.head()), this.bitcoin.head());
    }
  }

  /** Sets the node's mempool minimum fee; what it trims goes to the other node, offered again from the next block. */
  private trimTo(minFee: bigint, height: number): void {
    const moved = minFee !== this.bitcoin.minFeeSatPerVb;
    const trimmed = this.bitcoin.setMinFee(minFee);
    if (moved) this.journal.push(`mempool min fee ${minFee} sat/vB at ${height}`);
    for (const id of trimmed) {
      this.journal.push(`trimmed ${id.slice(0, 12)} below ${minFee} sat/vB at ${height}`);
      this.keepElsewhere(id, height + 1);
    }
  }

  /** Another node keeps a transaction our node dropped and brings it back at `backAt` (null: never). */
  private keepElsewhere(txid: string, backAt: number | null): void {
    if (this.bitcoin.txs.get(txid)?.coinbase) return;
    this.elsewhere.set(txid, backAt);
  }

  /** The fault of the next Esplora read of `route` (its path with ids cut out). */
  nextEsploraFault(route: string): EsploraFault | undefined {
    const at = this.counters.esplora++;
    const nth = this.routeCalls.get(route) ?? 0;
    this.routeCalls.set(route, nth + 1);
    if (!this.faultsOn) return undefined;
    const hit = this.schedule.esploraFaults.find((f) => (f.route === undefined ? f.at === at : f.route === route && f.at === nth));
    if (hit) this.journal.push(`esplora #${at} ${route} (#${nth} of it): ${JSON.stringify(hit.fault)}`);
    return hit?.fault;
  }

  /** The fault of the next broadcast. */
  nextBroadcastFault(): BroadcastFault | undefined {
    const at = this.counters.broadcasts++;
    const hit = this.faultsOn ? this.schedule.broadcastFaults.find((f) => f.at === at) : undefined;
    if (hit) this.journal.push(`broadcast #${at}: ${JSON.stringify(hit.fault)}`);
    return hit?.fault;
  }

  /** Schedules the eviction of a just accepted transaction (a `evict` broadcast fault). */
  evictLater(txid: string, afterBlocks: number, backAfter: number | null): void {
    this.evictions.push({ txid, atHeight: this.bitcoin.head() + 1 + afterBlocks, backAfter });
  }

  /** Whether the next Relay call fails. */
  nextRelayFails(endpoint: string): boolean {
    const at = this.counters.relay++;
    const fails = this.faultsOn && this.schedule.relayFaults.includes(at);
    if (fails) this.journal.push(`relay #${at} ${endpoint}: error`);
    return fails;
  }

  /** Alpha's node has no faults in this model: the Bitcoin side is under test. */
  nextLookupFault(): undefined {
    return undefined;
  }

  nextSendFault(): undefined {
    return undefined;
  }
}
