/**
 * The parts of a landed transaction's `meta` the node derives from account state and from litesvm's result:
 * lamport balances and token balances of every account key before/after, and inner instructions mapped
 * back onto the original message's account keys (a depository instruction's replacements become its inner
 * instructions, one level deeper). Pure: state comes through `readAccount`.
 */
import { base58 } from '@scure/base';
import type { ExecutedInstruction } from './depositoryRewrite.ts';
import type { InnerInstructionJson, InnerInstructionsJson, TokenBalanceJson } from './ledger.ts';
import { parseMint, parseTokenAccount, uiTokenAmount, type AccountState } from './tokenState.ts';

/** Balances of every account key at one moment. */
export interface BalanceSnapshot {
  lamports: bigint[];
  tokens: TokenBalanceJson[];
}

/** Reads lamports and token balances of `accountKeys` (in that order). */
export function snapshotBalances(accountKeys: string[], readAccount: (address: string) => AccountState | null): BalanceSnapshot {
  const tokens: TokenBalanceJson[] = [];
  const lamports = accountKeys.map((key, accountIndex) => {
    const state = readAccount(key);
    const token = parseTokenAccount(key, state);
    if (token !== null && state !== null) {
      const mint = token.mint.toBase58();
      const decimals = parseMint(mint, readAccount(mint))?.decimals ?? 0;
      tokens.push({
        accountIndex,
        mint,
        owner: token.owner.toBase58(),
        programId: state.owner,
        uiTokenAmount: uiTokenAmount(token.amount, decimals),
      });
    }
    return state?.lamports ?? 0n;
  });
  return { lamports, tokens };
}

/** One inner instruction as litesvm reports it, with indexes into the executed message's keys. */
export interface ExecutedInnerInstruction {
  programIdIndex: number;
  accounts: Uint8Array;
  data: Uint8Array;
  stackHeight: number;
}

/** Inputs of {@link mapInnerInstructions}. */
export interface MapInnerInput {
  /** Original message keys (static, loaded writable, loaded readonly). */
  originalKeys: string[];
  /** Executed message keys, same order convention. */
  executedKeys: string[];
  /** Executed top-level instructions and the original instruction each stands for. */
  executed: ExecutedInstruction[];
  origin: number[];
  /** Original instruction indexes that were depository instructions replaced by what they invoke. */
  replaced: ReadonlySet<number>;
  /** litesvm's inner instructions per executed top-level instruction. */
  inner: ExecutedInnerInstruction[][];
}

/** `meta.innerInstructions` of the original transaction (only entries with at least one instruction). */
export function mapInnerInstructions(input: MapInnerInput): InnerInstructionsJson[] {
  const indexOf = new Map<string, number>();
  input.originalKeys.forEach((k, i) => {
    if (!indexOf.has(k)) indexOf.set(k, i);
  });
  const byOriginal = new Map<number, InnerInstructionJson[]>();
  const push = (
    original: number,
    programId: string | undefined,
    accounts: (string | undefined)[],
    data: Uint8Array,
    stackHeight: number,
  ): void => {
    const programIdIndex = programId === undefined ? undefined : indexOf.get(programId);
    const mapped = accounts.map((a) => (a === undefined ? undefined : indexOf.get(a)));
    if (programIdIndex === undefined || mapped.some((m) => m === undefined)) return; // key unknown to the original message
    const list = byOriginal.get(original) ?? [];
    list.push({ programIdIndex, accounts: mapped as number[], data: base58.encode(data), stackHeight }); // undefined entries excluded just above
    byOriginal.set(original, list);
  };
  input.executed.forEach((ix, j) => {
    const original = input.origin[j] ?? -1;
    const deeper = input.replaced.has(original) ? 1 : 0;
    if (deeper === 1) push(original, ix.programId, ix.accounts, ix.data, 2);
    for (const inner of input.inner[j] ?? []) {
      const accounts = [...inner.accounts].map((i) => input.executedKeys[i]);
      push(original, input.executedKeys[inner.programIdIndex], accounts, inner.data, inner.stackHeight + deeper);
    }
  });
  return [...byOriginal.entries()].sort((a, b) => a[0] - b[0]).map(([index, instructions]) => ({ index, instructions }));
}
