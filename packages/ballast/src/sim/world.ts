/**
 * The world `ballast simulate` runs Ballast in: a simulated clock with an event queue, one in-memory EVM chain per
 * scenario chain (src/sim/chain.ts) holding the simulated token, and the in-memory Relay service
 * (src/sim/solver.ts). Time only moves when someone waits: blocks are mined every {@link SIM_BLOCK_MS}, queued
 * events run at their time, and the solver looks at the chains after each. Deterministic for a seed.
 */
import type { Address } from 'viem';
import { InMemoryChain, balanceKey } from './chain.ts';
import type { SimChain, SimIdentity, SimToken } from './identity.ts';
import type { LookupFault, NodeFees, NodeWorld, SendFault } from './node.ts';
import { SimRelay, type RouteSpec } from './solver.ts';

/** Virtual time between blocks on every simulated chain, ms. */
export const SIM_BLOCK_MS = 250;
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
  private nextBlockMs = SIM_START_MS + SIM_BLOCK_MS;

  constructor(readonly spec: WorldSpec) {
    this.random = seededRandom(spec.seed);
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
    for (;;) {
      const event = this.queue[0];
      const eventAt = event && event.atMs <= end ? event.atMs : Infinity;
      const blockAt = this.nextBlockMs <= end ? this.nextBlockMs : Infinity;
      if (eventAt === Infinity && blockAt === Infinity) break;
      if (blockAt <= eventAt) {
        this.nowMs = blockAt;
        for (const chain of this.chains.values()) chain.mine(this.nowMs);
        this.nextBlockMs += SIM_BLOCK_MS;
      } else {
        this.queue.shift();
        this.nowMs = Math.max(this.nowMs, eventAt);
        event!.run(); // eventAt is finite only when the queue has a head
      }
      this.relay.tick();
    }
    this.nowMs = end;
    this.relay.tick();
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
