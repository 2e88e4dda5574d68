/**
 * The world of a Solana model schedule: a virtual clock, the in-memory Solana cluster (a slot every
 * {@link SLOT_MS}), the EVM chain alpha where fills pay USDC (the EVM model's in-memory chain, a block every
 * {@link BLOCK_MS}), the Solana Relay service, and the fault oracle that answers, call by call, whether a
 * JSON-RPC read, a send or a Relay call misbehaves.
 */
import { balanceKey, InMemoryChain } from '../../../packages/ballast/src/sim/chain.ts';
import type { NodeWorld } from '../inMemoryNode.ts';
import { BLOCK_MS, START_MS } from '../world.ts';
import { ALPHA, SOL } from './solAccounts.ts';
import { SLOT_MS, SolChain } from './solChain.ts';
import { SolRelayModel } from './solRelay.ts';
import { SOL_BANDS, USDC, type RpcFault, type SendFault, type SolSchedule } from './solSchedule.ts';

export { SLOT_MS };
/** Alpha blocks mined at most per wait; longer waits jump. */
const MAX_ALPHA_BLOCKS_PER_WAIT = 30;
/** The treasury's SOL for fees, lamports. */
export const TREASURY_LAMPORTS = 10_000_000_000n;
/** Solver liquidity on alpha, USDC base units. */
const SOLVER_FUNDS = 1_000_000n * USDC;

/** One world per schedule. */
export class SolWorld implements NodeWorld {
  nowMs = START_MS;
  readonly solana: SolChain;
  readonly alpha: InMemoryChain;
  readonly relay: SolRelayModel;
  faultsOn = true;
  readonly journal: string[] = [];
  readonly counters = { rpc: 0, sends: 0, relay: 0 };
  /** Every transaction Ballast sent (`sendTransaction`), by signature: base64 wire bytes. */
  readonly posted = new Map<string, string>();
  /** JSON-RPC methods the model was asked and does not answer (the test requires none). */
  readonly unknownMethods = new Set<string>();
  /** getSignatureStatuses answers still to forget every signature in. */
  forgetReads = 0;
  private readonly methodCalls = new Map<string, number>();
  private nextAlphaMs = START_MS + BLOCK_MS;

  constructor(readonly schedule: SolSchedule) {
    this.solana = new SolChain(
      START_MS,
      [[SOL.treasury, TREASURY_LAMPORTS]],
      [
        [SOL.treasuryAta, SOL_BANDS.solana.target * USDC + schedule.need],
        [SOL.vaultAta, 0n],
      ],
    );
    const genesis = new Map<string, bigint>([
      [balanceKey(ALPHA.usdc, ALPHA.treasury), SOL_BANDS.alpha.target * USDC - schedule.need],
      [balanceKey(ALPHA.usdc, ALPHA.solver), SOLVER_FUNDS],
    ]);
    const contracts = { depository: ALPHA.depository, tokens: [{ address: ALPHA.usdc, tether: false, decimals: 6 }] };
    this.alpha = new InMemoryChain('alpha', ALPHA.chainId, contracts, genesis, START_MS);
    this.relay = new SolRelayModel(this);
  }

  /** The cluster's current slot. */
  slot(): number {
    return this.solana.tip;
  }

  /** Lets `ms` pass: Solana slots every {@link SLOT_MS}, alpha blocks every {@link BLOCK_MS} (bounded per wait). */
  advance(ms: number): void {
    const end = this.nowMs + Math.max(0, ms);
    let alphaBlocks = 0;
    while (this.nextAlphaMs <= end) {
      this.nowMs = this.nextAlphaMs;
      this.solana.advanceTo(this.solana.slotAt(this.nowMs));
      this.alpha.mine(this.nowMs);
      alphaBlocks += 1;
      this.nextAlphaMs = alphaBlocks < MAX_ALPHA_BLOCKS_PER_WAIT ? this.nextAlphaMs + BLOCK_MS : Math.max(this.nextAlphaMs + BLOCK_MS, end);
      this.relay.tick();
    }
    this.nowMs = end;
    this.solana.advanceTo(this.solana.slotAt(this.nowMs));
    this.relay.tick();
  }

  /** The fault of the next JSON-RPC call of `method` (sends have their own). */
  nextRpcFault(method: string): RpcFault | undefined {
    const at = this.counters.rpc++;
    const nth = this.methodCalls.get(method) ?? 0;
    this.methodCalls.set(method, nth + 1);
    if (!this.faultsOn) return undefined;
    const hit = this.schedule.rpcFaults.find((f) => (f.method === undefined ? f.at === at : f.method === method && f.at === nth));
    if (hit) this.journal.push(`rpc #${at} ${method} (#${nth} of it): ${JSON.stringify(hit.fault)}`);
    return hit?.fault;
  }

  /** The fault of the next `sendTransaction`. */
  nextSolSendFault(): SendFault | undefined {
    const at = this.counters.sends++;
    const hit = this.faultsOn ? this.schedule.sendFaults.find((f) => f.at === at) : undefined;
    if (hit) this.journal.push(`send #${at}: ${JSON.stringify(hit.fault)}`);
    return hit?.fault;
  }

  /** Whether the next Relay call fails. */
  nextRelayFails(endpoint: string): boolean {
    const at = this.counters.relay++;
    const fails = this.faultsOn && this.schedule.relayFaults.includes(at);
    if (fails) this.journal.push(`relay #${at} ${endpoint}: error`);
    return fails;
  }

  /** Alpha's node has no faults in this model: the Solana side is under test. */
  nextLookupFault(): undefined {
    return undefined;
  }

  nextSendFault(): undefined {
    return undefined;
  }
}
