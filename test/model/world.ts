/**
 * The world a model schedule runs in: a virtual clock, the two in-memory chains (alpha, beta) with the sandbox's
 * contract addresses and accounts, the in-memory Relay service, and the fault oracle that answers, call by call,
 * whether a lookup, a broadcast or a Relay call misbehaves. Time only moves when someone waits: every
 * {@link BLOCK_MS} of virtual time each chain mines a block and the solver looks at the chains.
 */
import { getAddress, type Address } from 'viem';
import { sandboxAccounts, sandboxContractAddresses, DEFAULT_LOCAL_CHAINS } from '../../packages/sandbox/src/chains/localChains.ts';
import { InMemoryChain, balanceKey } from '../../packages/ballast/src/sim/chain.ts';
import { RelayModel } from './inMemoryRelay.ts';
import {
  BANDS,
  UNIT,
  type AssetName,
  type ChainName,
  type LookupFault,
  type MinedReorg,
  type Schedule,
  type SendFault,
} from './schedule.ts';

/** Virtual time between blocks on both chains, ms. */
export const BLOCK_MS = 2_000;
/** At most this many blocks are mined per chain for one wait; longer waits jump (an idle chain). */
const MAX_BLOCKS_PER_WAIT = 30;
/** The virtual clock starts here (2027-01-15), unix ms. */
export const START_MS = 1_800_000_000_000;
/** Depth at which the model's chains are final: reorgs are shallower, and the solver waits for it. */
export const FINALITY_BLOCKS = 3;
/** Solver liquidity per token and chain, base units. */
const SOLVER_FUNDS = 1_000_000n * UNIT;

/** The sandbox accounts: treasury (dev key 0) and solver (dev key 1). */
export const ACCOUNTS = sandboxAccounts();
const CONTRACTS = sandboxContractAddresses(ACCOUNTS.deployer.address);
const lower = (a: string) => getAddress(a).toLowerCase() as Address; // checked, then lower-cased

/** Lower-case addresses of the model's contracts and accounts (the same on both chains). */
export const ADDR = {
  treasury: lower(ACCOUNTS.treasury.address),
  solver: lower(ACCOUNTS.solver.address),
  depository: lower(CONTRACTS.depository),
  USDC: lower(CONTRACTS.usdc),
  USDT: lower(CONTRACTS.usdt),
} as const;

/** Chain ids, as the sandbox's default chains have them. */
export const CHAIN_IDS: Readonly<Record<ChainName, number>> = {
  alpha: DEFAULT_LOCAL_CHAINS[0]!.chainId,
  beta: DEFAULT_LOCAL_CHAINS[1]!.chainId,
};

/** The asset a token address holds, or undefined. */
export function assetOfToken(token: string): AssetName | undefined {
  const t = token.toLowerCase();
  return t === ADDR.USDC ? 'USDC' : t === ADDR.USDT ? 'USDT' : undefined;
}

/**
 * Treasury balances before the first cycle, base units: every holding at its target, except that each need
 * moves its amount from the other side (so both ends leave their bands by exactly `amount`).
 */
export function initialBalances(schedule: Schedule): Record<AssetName, Record<ChainName, bigint>> {
  const holdings = (asset: AssetName): Record<ChainName, bigint> => {
    const need = schedule.needs.find((n) => n.asset === asset);
    const shift = (chain: ChainName) => (!need ? 0n : need.from === chain ? need.amount : -need.amount);
    return { alpha: BANDS.alpha.target * UNIT + shift('alpha'), beta: BANDS.beta.target * UNIT + shift('beta') };
  };
  return { USDC: holdings('USDC'), USDT: holdings('USDT') };
}

/** The world of one schedule. */
export class World {
  nowMs = START_MS;
  readonly chains: Record<ChainName, InMemoryChain>;
  readonly relay: RelayModel;
  /** Faults are injected only while this is true (the settling cycles at the end turn it off). */
  faultsOn = true;
  readonly counters = { lookups: 0, sends: 0, relay: 0 };
  /** What was injected, in order, for failure reports. */
  readonly journal: string[] = [];
  private nextBlockMs = START_MS + BLOCK_MS;
  private readonly lookupFaults: Map<string, LookupFault>;
  private readonly methodCalls = new Map<string, number>();
  private readonly sendFaults: Map<number, SendFault>;
  private readonly relayFaults: Set<number>;
  private readonly reorgTriggers: Map<number, MinedReorg>;
  private readonly dueReorgs: { chain: ChainName; atHeight: bigint; reorg: MinedReorg }[] = [];
  private minedCount = 0;

  constructor(readonly schedule: Schedule) {
    const balances = initialBalances(schedule);
    const make = (name: ChainName) => {
      const genesis = new Map<string, bigint>();
      for (const asset of ['USDC', 'USDT'] as const) {
        genesis.set(balanceKey(ADDR[asset], ADDR.treasury), balances[asset][name]);
        genesis.set(balanceKey(ADDR[asset], ADDR.solver), SOLVER_FUNDS);
      }
      const contracts = {
        depository: ADDR.depository,
        tokens: [
          { address: ADDR.USDC, tether: false },
          { address: ADDR.USDT, tether: true },
        ],
      };
      return new InMemoryChain(name, CHAIN_IDS[name], contracts, genesis, START_MS);
    };
    this.chains = { alpha: make('alpha'), beta: make('beta') };
    this.lookupFaults = new Map(schedule.lookupFaults.map((f) => [`${f.method ?? '*'}#${f.at}`, f.fault]));
    this.sendFaults = new Map(schedule.sendFaults.map((f) => [f.at, f.fault]));
    this.relayFaults = new Set(schedule.relayFaults);
    this.reorgTriggers = new Map(schedule.reorgs.map((r) => [r.afterMined, r]));
    this.relay = new RelayModel(this);
  }

  /** The chain with this EIP-155 id. */
  chainById(chainId: number): InMemoryChain {
    const chain = Object.values(this.chains).find((c) => c.chainId === chainId);
    if (!chain) throw new Error(`no model chain ${chainId}`);
    return chain;
  }

  /** Lets `ms` of virtual time pass: blocks are mined on both chains and the solver looks at them. */
  advance(ms: number): void {
    const end = this.nowMs + Math.max(0, ms);
    let blocks = 0;
    while (this.nextBlockMs <= end) {
      this.nowMs = this.nextBlockMs;
      for (const name of ['alpha', 'beta'] as const) this.mineOn(name);
      this.relay.tick();
      blocks += 1;
      this.nextBlockMs += blocks < MAX_BLOCKS_PER_WAIT ? BLOCK_MS : Math.max(BLOCK_MS, end - this.nowMs);
    }
    this.nowMs = end;
    this.relay.tick();
  }

  /** Mines one block on a chain, then applies the reorgs tied to mined transactions that are due. */
  private mineOn(name: ChainName): void {
    const chain = this.chains[name];
    const block = chain.mine(this.nowMs);
    for (const mined of block.txs) {
      const at = this.minedCount++;
      const trigger = this.faultsOn ? this.reorgTriggers.get(at) : undefined;
      if (!trigger) continue;
      this.dueReorgs.push({ chain: name, atHeight: block.number + BigInt(trigger.delayBlocks), reorg: trigger });
      this.journal.push(`mined #${at} ${mined.tx.hash} on ${name}: reorg ${JSON.stringify(trigger)}`);
    }
    for (const due of [...this.dueReorgs]) {
      if (due.chain !== name || chain.head() < due.atHeight) continue;
      this.dueReorgs.splice(this.dueReorgs.indexOf(due), 1);
      chain.reorg(due.reorg.depth, due.reorg.mode, this.nowMs);
    }
  }

  /** The fault of the next node lookup (a reorg is applied here, before the lookup is answered). */
  nextLookupFault(method: string): LookupFault | undefined {
    const at = this.counters.lookups++;
    const nth = this.methodCalls.get(method) ?? 0;
    this.methodCalls.set(method, nth + 1);
    const fault = this.faultsOn ? (this.lookupFaults.get(`*#${at}`) ?? this.lookupFaults.get(`${method}#${nth}`)) : undefined;
    if (!fault) return undefined;
    this.journal.push(`lookup #${at} ${method} (#${nth} of ${method}): ${JSON.stringify(fault)}`);
    if (fault.kind === 'reorg') {
      this.chains[fault.chain].reorg(fault.depth, fault.mode, this.nowMs);
      this.relay.tick();
    }
    return fault;
  }

  /** The fault of the next broadcast. */
  nextSendFault(): SendFault | undefined {
    const at = this.counters.sends++;
    const fault = this.faultsOn ? this.sendFaults.get(at) : undefined;
    if (fault) this.journal.push(`send #${at}: ${fault}`);
    return fault;
  }

  /** Whether the next Relay call fails. */
  nextRelayFails(endpoint: string): boolean {
    const at = this.counters.relay++;
    const fails = this.faultsOn && this.relayFaults.has(at);
    if (fails) this.journal.push(`relay #${at} ${endpoint}: error`);
    return fails;
  }
}
