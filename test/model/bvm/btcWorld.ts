/**
 * The world of a Bitcoin model schedule: a virtual clock, the in-memory Bitcoin chain (a block every
 * {@link BTC_BLOCK_MS}) with one node's mempool and "another node" that keeps evicted or forgotten transactions
 * and brings them back later (they stay valid), the EVM chain alpha where fills pay WBTC (the EVM model's
 * in-memory chain, a block every {@link BLOCK_MS}), the Bitcoin Relay service, and the fault oracle that
 * answers, call by call, whether an Esplora read, a broadcast or a Relay call misbehaves.
 */
import { balanceKey, InMemoryChain } from '../../../packages/ballast/src/sim/chain.ts';
import type { NodeWorld } from '../inMemoryNode.ts';
import { BLOCK_MS, START_MS } from '../world.ts';
import { ALPHA, BTC_KEYS } from './btcAccounts.ts';
import { BtcChain, type BtcTx } from './btcChain.ts';
import { BtcRelayModel } from './btcRelay.ts';
import { BTC_BANDS, SATS, type BroadcastFault, type BtcReorg, type BtcSchedule, type EsploraFault } from './btcSchedule.ts';

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
/** Seconds from quote to order deadline: ten of the model's one-minute blocks. */
export const MODEL_QUOTE_DEADLINE_SEC = 600;
/** Ballast's minimum deadline lead on the model's chain (`minDeadlineLeadSec`): one block and a minute for the fill. */
export const MODEL_DEADLINE_LEAD_SEC = 120;
export { ALPHA, BTC_KEYS };

/** Height of the block holding the treasury's coins; reorgs never reach it. */
export const FUNDING_HEIGHT = 1;

/** The treasury's starting holdings: Bitcoin at target + need + reserve, in three coins; alpha at target − need. */
export function startHoldings(need: bigint): { coins: bigint[]; alphaWbtc: bigint } {
  const onBitcoin = BTC_BANDS.bitcoin.target * SATS + need + MINER_FEE_RESERVE_SATS;
  const big = need + SATS / 10n;
  const rest = onBitcoin - big;
  return { coins: [big, rest / 2n, rest - rest / 2n], alphaWbtc: BTC_BANDS.alpha.target * SATS - need };
}

/** One world per schedule. */
export class BtcWorld implements NodeWorld {
  nowMs = START_MS;
  readonly bitcoin = new BtcChain(START_MS);
  readonly alpha: InMemoryChain;
  readonly relay: BtcRelayModel;
  faultsOn = true;
  readonly journal: string[] = [];
  readonly counters = { esplora: 0, broadcasts: 0, relay: 0 };
  /** Every transaction Ballast posted (`POST /tx`), by txid. */
  readonly posted = new Map<string, BtcTx>();
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
    const start = startHoldings(schedule.need);
    this.bitcoin.fund(
      start.coins.map((value) => ({ script: BTC_KEYS.treasuryScript, value })),
      START_MS,
    );
    const genesis = new Map<string, bigint>([
      [balanceKey(ALPHA.wbtc, ALPHA.treasury), start.alphaWbtc],
      [balanceKey(ALPHA.wbtc, ALPHA.solver), 1_000n * SATS],
    ]);
    const contracts = { depository: ALPHA.depository, tokens: [{ address: ALPHA.wbtc, tether: false, decimals: 8 }] };
    this.alpha = new InMemoryChain('alpha', ALPHA.chainId, contracts, genesis, START_MS);
    this.relay = new BtcRelayModel(this);
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

  /** Mines a Bitcoin block after the due evictions and returns, then applies the due reorgs. */
  private mineBitcoin(): void {
    const height = this.bitcoin.head() + 1;
    for (const e of [...this.evictions]) {
      if (e.atHeight > height) continue;
      this.evictions.splice(this.evictions.indexOf(e), 1);
      for (const id of this.bitcoin.evict(e.txid)) this.keepElsewhere(id, e.backAfter === null ? null : height + e.backAfter);
    }
    for (const [txid, back] of [...this.elsewhere]) {
      if (back === null || back > height) continue;
      this.elsewhere.delete(txid);
      try {
        this.bitcoin.submit(this.bitcoin.txs.get(txid)!);
        this.journal.push(`another node brought ${txid.slice(0, 12)} back at height ${height}`);
      } catch {
        // spent by a mined transaction, or replaced: the other node drops it too
      }
    }
    const block = this.bitcoin.mine(this.nowMs);
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
