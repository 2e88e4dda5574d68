/**
 * An in-memory EVM chain (used by `ballast simulate` and the model tests): blocks, a mempool, nonces, ERC-20 balances and allowances (one
 * ordinary token and one Tether-style token whose `approve` reverts on a non-zero → non-zero change), and the
 * Relay depository (`depositErc20` pulls the allowance and emits `RelayErc20Deposit`). Signed transactions are
 * executed from their calldata (decoded with the depository and ERC-20 ABIs); solver fills and refunds are
 * "system" payouts that need no signature. Reorgs remove the last blocks and put their transactions back into
 * the new blocks, into the mempool, or forget them. Every block keeps the state after it, so reads at an older
 * block and reorgs are exact. Amounts are bigint base units; addresses are lower-case.
 */
import { decodeFunctionData, encodeAbiParameters, encodeEventTopics, erc20Abi, keccak256, stringToHex, type Address, type Hex } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';

/** Chain state: `b|token|holder`, `a|token|owner|spender`, `n|account` → amount or nonce. */
export type State = ReadonlyMap<string, bigint>;

/** A transaction as the chain holds it. */
export interface ChainTx {
  hash: Hex;
  from: Address;
  /** Null for a system payout (outside any nonce order). */
  nonce: number | null;
  to: Address;
  data: Hex;
  value: bigint;
  maxFeePerGas: bigint;
  /** Not included in a block before this time, unix ms (a transaction stuck under the fee market). */
  notBeforeMs: number;
  /** A system payout: `amount` of `token` moves from `from` to `payee`. */
  payout?: { token: Address; payee: Address; amount: bigint };
}

/** A log as `eth_getLogs` returns it (without the block fields, added by the node). */
export interface ChainLog {
  address: Address;
  topics: [Hex];
  data: Hex;
  logIndex: number;
  /** The decoded `RelayErc20Deposit` arguments (lower-case addresses). */
  deposit: { from: Address; token: Address; amount: bigint; id: Hex };
}

/** A transaction in a block, with its outcome. */
export interface MinedTx {
  tx: ChainTx;
  status: 'success' | 'reverted';
  logs: ChainLog[];
  index: number;
}

/** A block; `state` is the state after it. */
export interface Block {
  number: bigint;
  hash: Hex;
  timestampMs: number;
  txs: MinedTx[];
  state: State;
}

/** What happens to the transactions of the blocks a reorg removes. */
export type ReorgMode = 'reinclude' | 'mempool' | 'vanish';

/**
 * The contracts of a chain: the depository and the tokens (`tether`: approve reverts non-zero → non-zero;
 * `decimals` default 6).
 */
export interface ChainContracts {
  depository: Address;
  tokens: readonly { address: Address; tether: boolean; decimals?: number }[];
}

const ERC20_DEPOSIT_TOPIC = encodeEventTopics({ abi: depositoryAbi, eventName: 'RelayErc20Deposit' })[0] as Hex; // event without indexed args: one topic
const ERC20_DEPOSIT_DATA = [{ type: 'address' }, { type: 'address' }, { type: 'uint256' }, { type: 'bytes32' }] as const;

/** Lower-cases a hex string; it stays the same address or hash. */
export function lowerHex<T extends Hex>(value: string): T {
  return value.toLowerCase() as T; // only letter case changes: still 0x-hex of the same length
}

/** State key of a token balance. */
export const balanceKey = (token: string, holder: string) => `b|${token.toLowerCase()}|${holder.toLowerCase()}`;
/** State key of an allowance. */
export const allowanceKey = (token: string, owner: string, spender: string) =>
  `a|${token.toLowerCase()}|${owner.toLowerCase()}|${spender.toLowerCase()}`;
/** State key of an account nonce. */
export const nonceKey = (account: string) => `n|${account.toLowerCase()}`;

/** The in-memory chain. Methods throw plain `Error`s whose messages mimic geth's where a node would answer one. */
export class InMemoryChain {
  readonly blocks: Block[];
  readonly mempool = new Map<Hex, ChainTx>();
  /** Transactions the node knows (pending or mined), by hash; evicted or vanished ones are forgotten. */
  private readonly known = new Map<Hex, ChainTx>();
  private mined = new Map<Hex, { block: Block; mined: MinedTx }>();
  private salt = 0;
  /** Pending transactions {@link holdArrivals} has seen. */
  private readonly arrivals = new Set<Hex>();

  constructor(
    readonly name: string,
    readonly chainId: number,
    readonly contracts: ChainContracts,
    genesis: State,
    startMs: number,
  ) {
    this.blocks = [{ number: 0n, hash: this.blockHash(0n), timestampMs: startMs, txs: [], state: genesis }];
  }

  /** The head block number. */
  head(): bigint {
    return BigInt(this.blocks.length - 1);
  }

  /** The state after block `n` (default: head). */
  stateAt(n: bigint = this.head()): State {
    const block = this.blocks[Number(n)];
    if (!block) throw new Error(`header not found: block ${n} (head ${this.head()})`);
    return block.state;
  }

  /** Token balance at block `n`, base units. */
  balanceOf(token: string, holder: string, n?: bigint): bigint {
    return this.stateAt(n).get(balanceKey(token, holder)) ?? 0n;
  }

  /** Allowance at block `n`, base units. */
  allowance(token: string, owner: string, spender: string, n?: bigint): bigint {
    return this.stateAt(n).get(allowanceKey(token, owner, spender)) ?? 0n;
  }

  /** Mined transaction count of `account` at block `n`. */
  nonceAt(account: string, n?: bigint): number {
    return Number(this.stateAt(n).get(nonceKey(account)) ?? 0n);
  }

  /** Next nonce counting the account's executable mempool transactions (geth's `pending` tag). */
  pendingNonce(account: string): number {
    const from = account.toLowerCase();
    let nonce = this.nonceAt(from);
    const pending = new Set([...this.mempool.values()].filter((t) => t.from === from).map((t) => t.nonce));
    while (pending.has(nonce)) nonce += 1;
    return nonce;
  }

  /** The canonical mined transaction with this hash, with its block, at or below `atOrBelow`. */
  minedTx(hash: Hex, atOrBelow: bigint = this.head()): { block: Block; mined: MinedTx } | undefined {
    const hit = this.mined.get(lowerHex(hash));
    return hit && hit.block.number <= atOrBelow ? hit : undefined;
  }

  /** The canonical mined transaction of `from` with `nonce`, if any. */
  minedByNonce(from: Address, nonce: number): { block: Block; mined: MinedTx } | undefined {
    for (const hit of this.mined.values()) if (hit.mined.tx.from === from && hit.mined.tx.nonce === nonce) return hit;
    return undefined;
  }

  /** A transaction the node knows (pending or mined). */
  knownTx(hash: Hex): ChainTx | undefined {
    return this.known.get(lowerHex(hash));
  }

  /**
   * Accepts a transaction into the mempool (replacing a pending one of the same sender and nonce when it pays
   * at least 10 % more).
   *
   * @throws Error `already known`, `nonce too low` or `replacement transaction underpriced`, like geth
   */
  submit(tx: ChainTx): void {
    if (this.mempool.has(tx.hash) || this.mined.has(tx.hash)) throw new Error('already known');
    if (tx.nonce !== null) {
      if (tx.nonce < this.nonceAt(tx.from)) throw new Error('nonce too low');
      const rival = [...this.mempool.values()].find((t) => t.from === tx.from && t.nonce === tx.nonce);
      if (rival) {
        if (tx.maxFeePerGas * 10n < rival.maxFeePerGas * 11n) throw new Error('replacement transaction underpriced');
        this.mempool.delete(rival.hash);
      }
    }
    this.mempool.set(tx.hash, tx);
    this.known.set(tx.hash, tx);
  }

  /** Queues a system payout (solver fill or depository refund); returns its hash. */
  payout(from: Address, token: Address, payee: Address, amount: bigint, label: string): Hex {
    const hash = keccak256(stringToHex(`${this.chainId}/payout/${label}/${this.salt++}`));
    this.submit({
      hash,
      from,
      nonce: null,
      to: token,
      data: '0x',
      value: 0n,
      maxFeePerGas: 0n,
      notBeforeMs: 0,
      payout: { token, payee, amount },
    });
    return hash;
  }

  /** Forgets a pending transaction (evicted from this node's pool). */
  evict(hash: Hex): void {
    this.mempool.delete(hash);
    if (!this.mined.has(hash)) this.known.delete(hash);
  }

  /** Whether a call (no nonce, no payout) would succeed at the head state. */
  simulate(call: { from: Address; to: Address; data: Hex; value: bigint }): boolean {
    const state = new Map(this.stateAt());
    const probe: ChainTx = { ...call, hash: '0x', nonce: null, maxFeePerGas: 0n, notBeforeMs: 0 };
    return this.execute(state, probe, 0).status === 'success';
  }

  /**
   * Whether a block mined at `timestampMs` would include (or drop as already used) a pending transaction: one that
   * is due and is a system payout or the next (or a spent) nonce of its sender at the head.
   */
  hasDueTransaction(timestampMs: number): boolean {
    const head = this.stateAt();
    for (const tx of this.mempool.values()) {
      if (tx.notBeforeMs > timestampMs) continue;
      if (tx.nonce === null || tx.nonce <= Number(head.get(nonceKey(tx.from)) ?? 0n)) return true;
    }
    return false;
  }

  /**
   * Keeps every transaction that arrived since the last call out of blocks before `untilMs` (an automining node
   * includes a transaction a moment after it arrives, so a read at the instant it was sent sees the state before it).
   */
  holdArrivals(untilMs: number): void {
    for (const [hash, tx] of this.mempool) {
      if (this.arrivals.has(hash)) continue;
      this.arrivals.add(hash);
      if (tx.notBeforeMs >= untilMs) continue;
      const held = { ...tx, notBeforeMs: untilMs };
      this.mempool.set(hash, held);
      this.known.set(hash, held);
    }
  }

  /** The earliest `notBeforeMs` after `timestampMs` among pending transactions, or undefined when none waits so. */
  nextDueAfter(timestampMs: number): number | undefined {
    let next: number | undefined;
    for (const tx of this.mempool.values()) {
      if (tx.notBeforeMs > timestampMs && (next === undefined || tx.notBeforeMs < next)) next = tx.notBeforeMs;
    }
    return next;
  }

  /**
   * Mines one block at `timestampMs`: every pending transaction that is due and next in its sender's nonce order
   * (repeatedly), system payouts in arrival order. Pending transactions whose nonce is already used are dropped.
   */
  mine(timestampMs: number, includeTxs = true): Block {
    const parent = this.blocks[this.blocks.length - 1]!;
    const state = new Map(parent.state);
    const txs: MinedTx[] = [];
    for (let progress = includeTxs; progress;) {
      progress = false;
      for (const tx of this.mempool.values()) {
        if (tx.notBeforeMs > timestampMs) continue;
        const next = Number(state.get(nonceKey(tx.from)) ?? 0n);
        if (tx.nonce !== null && tx.nonce < next) {
          this.mempool.delete(tx.hash);
          continue;
        }
        if (tx.nonce !== null && tx.nonce !== next) continue;
        this.mempool.delete(tx.hash);
        txs.push({ tx, ...this.execute(state, tx, txs.length), index: txs.length });
        progress = true;
      }
    }
    const number = parent.number + 1n;
    const block: Block = { number, hash: this.blockHash(number), timestampMs, txs, state: txs.length > 0 ? state : parent.state };
    this.blocks.push(block);
    for (const m of txs) this.mined.set(m.tx.hash, { block, mined: m });
    return block;
  }

  /**
   * Removes the last `depth` blocks and mines `depth + 1` in their place at `timestampMs`. Their transactions go
   * into the first new block (`reinclude`), back to the mempool (`mempool`), or are forgotten together with
   * every pending signed transaction (`vanish`: the node lost its pool); system payouts are always resent.
   */
  reorg(depth: number, mode: ReorgMode, timestampMs: number): void {
    const keep = Math.max(1, this.blocks.length - depth);
    const removed = this.blocks.splice(keep);
    const txs = removed.flatMap((b) => b.txs.map((m) => m.tx));
    this.mined = new Map([...this.mined].filter(([, hit]) => hit.block.number < BigInt(keep)));
    if (mode === 'vanish') {
      for (const tx of [...this.mempool.values()]) if (!tx.payout) this.evict(tx.hash);
    }
    for (const tx of txs) {
      if (mode === 'vanish' && !tx.payout) this.known.delete(tx.hash);
      else {
        this.mempool.set(tx.hash, tx);
        this.known.set(tx.hash, tx);
      }
    }
    for (let i = 0; i <= removed.length; i++) this.mine(timestampMs, mode === 'reinclude' && i === 0);
  }

  /** Depository logs of canonical blocks `from..to` (inclusive), with their blocks. */
  logs(address: Address, from: bigint, to: bigint): { block: Block; mined: MinedTx; log: ChainLog }[] {
    const out: { block: Block; mined: MinedTx; log: ChainLog }[] = [];
    for (const block of this.blocks.slice(Number(from), Number(to) + 1)) {
      for (const mined of block.txs)
        for (const log of mined.logs) if (log.address === address.toLowerCase()) out.push({ block, mined, log });
    }
    return out;
  }

  /** Every canonical deposit event, oldest first, with the transaction and block that carry it. */
  deposits(): { txHash: Hex; block: Block; deposit: ChainLog['deposit'] }[] {
    const out: { txHash: Hex; block: Block; deposit: ChainLog['deposit'] }[] = [];
    for (const { block, mined } of this.mined.values())
      for (const log of mined.logs) out.push({ txHash: mined.tx.hash, block, deposit: log.deposit });
    return out.sort((a, b) => Number(a.block.number - b.block.number));
  }

  /** A unique 32-byte block hash (chain id, a counter that changes on every reorg, number); no hashing needed. */
  private blockHash(n: bigint): Hex {
    const word = (BigInt(this.chainId) << 160n) | (BigInt(this.salt++) << 64n) | n;
    return `0x${word.toString(16).padStart(64, '0')}`;
  }

  /** Executes `tx` on `state` (mutated); a revert keeps only the nonce increment. */
  private execute(state: Map<string, bigint>, tx: ChainTx, index: number): { status: 'success' | 'reverted'; logs: ChainLog[] } {
    if (tx.nonce !== null) state.set(nonceKey(tx.from), BigInt(tx.nonce + 1));
    const scratch = new Map(state);
    const logs: ChainLog[] = [];
    const ok = this.effects(scratch, tx, logs, index);
    if (!ok) return { status: 'reverted', logs: [] };
    for (const [k, v] of scratch) state.set(k, v);
    return { status: 'success', logs };
  }

  private effects(s: Map<string, bigint>, tx: ChainTx, logs: ChainLog[], index: number): boolean {
    const move = (token: string, from: string, to: string, amount: bigint): boolean => {
      const have = s.get(balanceKey(token, from)) ?? 0n;
      if (have < amount) return false;
      s.set(balanceKey(token, from), have - amount);
      s.set(balanceKey(token, to), (s.get(balanceKey(token, to)) ?? 0n) + amount);
      return true;
    };
    if (tx.payout) return move(tx.payout.token, tx.from, tx.payout.payee, tx.payout.amount);
    const token = this.contracts.tokens.find((t) => t.address === tx.to);
    if (token) {
      const call = tryDecode(() => decodeFunctionData({ abi: erc20Abi, data: tx.data }));
      if (call?.functionName !== 'approve' || tx.value !== 0n) return false;
      const [spender, amount] = call.args;
      const key = allowanceKey(tx.to, tx.from, spender);
      if (token.tether && amount !== 0n && (s.get(key) ?? 0n) !== 0n) return false;
      s.set(key, amount);
      return true;
    }
    if (tx.to === this.contracts.depository) {
      const call = tryDecode(() => decodeFunctionData({ abi: depositoryAbi, data: tx.data }));
      if (call?.functionName !== 'depositErc20' || tx.value !== 0n) return false;
      const [depositor, tokenAddress, amount, id] = call.args;
      const key = allowanceKey(tokenAddress, tx.from, this.contracts.depository);
      const allowed = s.get(key) ?? 0n;
      if (allowed < amount || !move(tokenAddress, tx.from, this.contracts.depository, amount)) return false;
      s.set(key, allowed - amount);
      const credited: Address = /^0x0{40}$/.test(depositor) ? tx.from : lowerHex(depositor);
      const data = encodeAbiParameters(ERC20_DEPOSIT_DATA, [credited, tokenAddress, amount, id]);
      const deposit = { from: credited, token: lowerHex<Address>(tokenAddress), amount, id: lowerHex(id) };
      logs.push({ address: this.contracts.depository, topics: [ERC20_DEPOSIT_TOPIC], data, logIndex: index * 10, deposit });
      return true;
    }
    // A 0-value call to oneself without data: an operator's cancel.
    return tx.to === tx.from && tx.data === '0x' && tx.value === 0n;
  }
}

function tryDecode<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch {
    return undefined;
  }
}
