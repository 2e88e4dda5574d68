/**
 * The world `ballast simulate` runs Ballast in: a simulated clock with an event queue, one in-memory EVM chain per
 * scenario chain (src/sim/chain.ts) holding the simulated token, and the in-memory Relay service
 * (src/sim/solver.ts). Time only moves when someone waits: blocks are mined every {@link WorldSpec.blockMs} (or, at
 * 0, as soon as a transaction is pending, like anvil's automine), queued events run at their time, and the solver
 * looks at the chains after each. Deterministic for a seed.
 */
import type { Address } from 'viem';
import { InMemoryChain, balanceKey } from './chain.ts';
import type { SimChain, SimIdentity, SimToken } from './identity.ts';
import type { LookupFault, NodeFees, NodeWorld, SendFault } from './node.ts';
import { SimRelay, type RouteSpec } from './solver.ts';

/** Virtual time between blocks on every simulated chain, ms, unless a scenario says otherwise. */
export const SIM_BLOCK_MS = 250;
/** Limit on automine rounds at one instant (a block, then the solver's reaction to it, then its block...). */
const AUTOMINE_ROUNDS = 16;
/**
 * With automine, a transaction is mined this long after it arrives: a node takes a moment, and a cycle that starts
 * at the instant a transaction is sent reads the state before it, as it would on a block cadence.
 */
export const SIM_AUTOMINE_MS = 1;
/** Confirmations the simulated chains need (the solver and Ballast's config use it). */
export const SIM_CONFIRMATIONS = 1;
/** The clock starts here (2027-01-15), unix ms. */
export const SIM_START_MS = 1_800_000_000_000;
/** Fee data every simulated chain quotes and estimates with, wei. */
export const SIM_GAS: NodeFees = { maxFeePerGas: 1_000_000_000n, maxPriorityFeePerGas: 100_000_000n };
/** Funds of the solver and of the counterparty per chain: effectively unbounded, base units of the token. */
const DEEP_POCKETS = 10n ** 40n;

/** A time window, ms after the start. */
export interface Window {
  fromMs: number;
  toMs: number;
}

/** What a world is made of. Balances in base units of the token. */
export interface WorldSpec {
  seed: number;
  chains: readonly SimChain[];
  token: SimToken;
  identity: SimIdentity;
  /** Treasury balance per chain name at the start. */
  treasury: Readonly<Record<string, bigint>>;
  route(origin: string, destination: string): RouteSpec;
  /** Windows in which every Relay call fails (an API outage). */
  outages?: readonly Window[];
  /**
   * Virtual ms between blocks on every chain (default {@link SIM_BLOCK_MS}); 0 mines a block for each transaction
   * {@link SIM_AUTOMINE_MS} after it arrives, as anvil's automine does (Hyperlane's simulator runs its chains on one
   * such node).
   */
  blockMs?: number;
}

/** A deterministic pseudo-random source (mulberry32) in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

interface Queued {
  atMs: number;
  seq: number;
  run: () => void;
}

/** The world of one simulation run. */
export class SimWorld implements NodeWorld {
  nowMs = SIM_START_MS;
  readonly chains = new Map<string, InMemoryChain>();
  readonly relay: SimRelay;
  readonly random: () => number;
  private readonly queue: Queued[] = [];
  private seq = 0;
  /** Ms between blocks; 0: automine. */
  readonly blockMs: number;
  private nextBlockMs: number;
  /** Instants an automining world has queued a wake for (a held-back transaction falls due). */
  private readonly wakes = new Set<number>();

  constructor(readonly spec: WorldSpec) {
    this.random = seededRandom(spec.seed);
    this.blockMs = spec.blockMs ?? SIM_BLOCK_MS;
    if (!Number.isInteger(this.blockMs) || this.blockMs < 0)
      throw new Error(`blockMs must be a whole number of ms ≥ 0, got ${this.blockMs}`);
    this.nextBlockMs = this.blockMs > 0 ? SIM_START_MS + this.blockMs : Infinity;
    const treasury = spec.identity.treasury.address.toLowerCase();
    for (const c of spec.chains) {
      const genesis = new Map<string, bigint>([
        [balanceKey(spec.token.address, treasury), spec.treasury[c.name] ?? 0n],
        [balanceKey(spec.token.address, spec.identity.solver.address), DEEP_POCKETS],
        [balanceKey(spec.token.address, spec.identity.counterparty), DEEP_POCKETS],
      ]);
      const contracts = {
        depository: spec.identity.depository,
        tokens: [{ address: spec.token.address, tether: false, decimals: spec.token.decimals }],
      };
      this.chains.set(c.name, new InMemoryChain(c.name, c.chainId, contracts, genesis, SIM_START_MS));
    }
    this.relay = new SimRelay(this);
  }

  /** Milliseconds since the start. */
  get elapsedMs(): number {
    return this.nowMs - SIM_START_MS;
  }

  /** The chain of a scenario chain name. @throws Error for an unknown name */
  chain(name: string): InMemoryChain {
    const chain = this.chains.get(name);
    if (!chain) throw new Error(`no simulated chain ${name}`);
    return chain;
  }

  /** The chain with this EIP-155 id. @throws Error for an unknown id */
  chainById(chainId: number): InMemoryChain {
    for (const chain of this.chains.values()) if (chain.chainId === chainId) return chain;
    throw new Error(`no simulated chain ${chainId}`);
  }

  /** The treasury's token balance on a chain at the head, base units. */
  treasuryBalance(name: string): bigint {
    return this.chain(name).balanceOf(this.spec.token.address, this.spec.identity.treasury.address);
  }

  /** Runs `run` when the clock reaches `atMs` (unix ms; at once on the next advance when already past). */
  at(atMs: number, run: () => void): void {
    this.queue.push({ atMs, seq: this.seq++, run });
    this.queue.sort((a, b) => a.atMs - b.atMs || a.seq - b.seq);
  }

  /** Lets `ms` of virtual time pass: blocks are mined, queued events run in time order, the solver looks on. */
  advance(ms: number): void {
    const end = this.nowMs + Math.max(0, ms);
    this.automine(); // what was sent since the last advance (Ballast's own transactions)
    for (;;) {
      const event = this.queue[0];
      const eventAt = event && event.atMs <= end ? event.atMs : Infinity;
      const blockAt = this.nextBlockMs <= end ? this.nextBlockMs : Infinity;
      if (eventAt === Infinity && blockAt === Infinity) break;
      if (blockAt <= eventAt) {
        this.nowMs = blockAt;
        for (const chain of this.chains.values()) chain.mine(this.nowMs);
        this.nextBlockMs += this.blockMs;
      } else {
        this.queue.shift();
        this.nowMs = Math.max(this.nowMs, eventAt);
        event!.run(); // eventAt is finite only when the queue has a head
      }
      this.relay.tick();
      this.automine();
    }
    this.nowMs = end;
    this.relay.tick();
    this.automine();
  }

  /** Whether blocks are mined as transactions arrive (`blockMs` 0) rather than on a cadence. */
  get automining(): boolean {
    return this.blockMs === 0;
  }

  /**
   * With automine, mines a block now on every chain with a transaction due ({@link SIM_AUTOMINE_MS} after it
   * arrived), lets the solver look, and again while that makes more due; queues a wake for the next transaction to
   * fall due. Nothing on a block cadence.
   */
  private automine(): void {
    if (!this.automining) return;
    for (let round = 0; round < AUTOMINE_ROUNDS; round++) {
      let mined = false;
      for (const chain of this.chains.values()) {
        chain.holdArrivals(this.nowMs + SIM_AUTOMINE_MS);
        if (!chain.hasDueTransaction(this.nowMs)) continue;
        chain.mine(this.nowMs);
        mined = true;
      }
      if (!mined) break;
      this.relay.tick();
    }
    // A transaction held back until later (just arrived, or under the fee market) is mined when its time comes: wake then.
    for (const chain of this.chains.values()) {
      const due = chain.nextDueAfter(this.nowMs);
      if (due !== undefined && !this.wakes.has(due)) {
        this.wakes.add(due);
        this.at(due, () => this.wakes.delete(due));
      }
    }
  }

  /** Moves `amount` of the token from `from` to `to` on a chain as a system transfer; returns its hash. */
  transfer(name: string, from: Address, to: Address, amount: bigint, label: string) {
    return this.chain(name).payout(from, this.spec.token.address, to, amount, label);
  }

  /** The simulated nodes answer every lookup. */
  nextLookupFault(_method: string): LookupFault | undefined {
    return undefined;
  }

  /** The simulated nodes take every broadcast. */
  nextSendFault(): SendFault | undefined {
    return undefined;
  }

  /** Whether a Relay call now fails: inside an outage window. */
  nextRelayFails(_endpoint: string): boolean {
    const t = this.elapsedMs;
    return (this.spec.outages ?? []).some((w) => t >= w.fromMs && t < w.toMs);
  }
}
