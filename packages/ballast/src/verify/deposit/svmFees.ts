/**
 * Compute-budget instructions of a Solana step item and the `fee-cap` rule: the quote may set a compute-unit
 * limit and price (the priority fee we would pay) only within Ballast's caps. Decoded with @solana/web3.js
 * `ComputeBudgetInstruction`; `SetLoadedAccountsDataSizeLimit` (type 4), which web3.js 1.x does not know, is
 * read directly (u32 little-endian after the type byte). Also what a step item's transaction pays the network
 * (base fee + priority fee), for the fee policy's origin cost (src/verify/deposit/originCost.ts). Pure.
 */
import { ComputeBudgetInstruction, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { COMPUTE_BUDGET_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { outcome } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import type { DepositLimits } from './types.ts';
import { allInstructions, parsedItems, type ParsedSvmItem, type SvmItem } from './svmItems.ts';

/** A decoded compute-budget instruction: units in compute units, price in micro-lamports per CU, sizes in bytes. */
export type ComputeBudgetSetting =
  | { type: 'SetComputeUnitLimit'; units: number }
  | { type: 'SetComputeUnitPrice'; microLamports: bigint }
  | { type: 'RequestHeapFrame'; bytes: number }
  | { type: 'SetLoadedAccountsDataSizeLimit'; bytes: number };

/** Exact data length of each accepted compute-budget instruction (type byte included). */
const DATA_LENGTH: Readonly<Record<ComputeBudgetSetting['type'], number>> = {
  RequestHeapFrame: 5,
  SetComputeUnitLimit: 5,
  SetComputeUnitPrice: 9,
  SetLoadedAccountsDataSizeLimit: 5,
};
const LOADED_ACCOUNTS_DATA_SIZE_TYPE = 4;

/**
 * Decodes one compute-budget instruction's data.
 *
 * @param data instruction data (the program id is the caller's to check)
 * @returns the setting, or a string saying why it is refused (unknown or deprecated type, wrong length)
 */
export function decodeComputeBudget(data: Uint8Array): ComputeBudgetSetting | string {
  if (data[0] === LOADED_ACCOUNTS_DATA_SIZE_TYPE && data.length === DATA_LENGTH.SetLoadedAccountsDataSizeLimit) {
    return { type: 'SetLoadedAccountsDataSizeLimit', bytes: new DataView(data.buffer, data.byteOffset, data.length).getUint32(1, true) };
  }
  const ix = new TransactionInstruction({ programId: new PublicKey(COMPUTE_BUDGET_PROGRAM_ID), keys: [], data: Buffer.from(data) });
  let type: ReturnType<typeof ComputeBudgetInstruction.decodeInstructionType>;
  try {
    type = ComputeBudgetInstruction.decodeInstructionType(ix);
  } catch {
    return `compute-budget instruction type ${data[0] ?? 'none'} is not one Ballast accepts`;
  }
  if (type === 'RequestUnits') return 'the deprecated compute-budget RequestUnits is not accepted';
  if (data.length !== DATA_LENGTH[type]) return `compute-budget ${type} data is ${data.length} bytes, expected ${DATA_LENGTH[type]}`;
  switch (type) {
    case 'SetComputeUnitLimit':
      return { type, units: ComputeBudgetInstruction.decodeSetComputeUnitLimit(ix).units };
    case 'SetComputeUnitPrice':
      return { type, microLamports: BigInt(ComputeBudgetInstruction.decodeSetComputeUnitPrice(ix).microLamports) };
    case 'RequestHeapFrame':
      return { type, bytes: ComputeBudgetInstruction.decodeRequestHeapFrame(ix).bytes };
  }
}

/**
 * `fee-cap` (Solana): every compute-budget instruction decodes as `SetComputeUnitLimit` (≤
 * `limits.svmMaxComputeUnits` CU), `SetComputeUnitPrice` (≤ `limits.svmMaxMicroLamportsPerCu` micro-lamports
 * per CU), `RequestHeapFrame` or `SetLoadedAccountsDataSizeLimit`; any other type under that program is
 * refused, and so is a second instruction of one type.
 */
export function checkSvmFeeCap(items: readonly SvmItem[], limits: DepositLimits): RuleResult {
  const problems: string[] = [];
  const settings: string[] = [];
  for (const item of parsedItems(items)) {
    // One of each kind per transaction: the runtime rejects a duplicate, and two prices leave the fee unclear.
    const seen = new Map<string, string>();
    for (const { path, ix } of allInstructions([item])) {
      if (ix.programId !== COMPUTE_BUDGET_PROGRAM_ID) continue;
      const setting = decodeComputeBudget(ix.data);
      if (typeof setting === 'string') {
        problems.push(`${path}: ${setting}`);
        continue;
      }
      const first = seen.get(setting.type);
      if (first !== undefined) problems.push(`${path}: a second ${setting.type} (first at ${first}); one of each kind at most`);
      else seen.set(setting.type, path);
      if (setting.type === 'SetComputeUnitLimit') {
        settings.push(`${setting.units} CU`);
        if (setting.units > limits.svmMaxComputeUnits) {
          problems.push(`${path}: SetComputeUnitLimit ${setting.units} CU exceeds the cap ${limits.svmMaxComputeUnits} CU`);
        }
      } else if (setting.type === 'SetComputeUnitPrice') {
        settings.push(`${setting.microLamports} micro-lamports/CU`);
        if (setting.microLamports > limits.svmMaxMicroLamportsPerCu) {
          problems.push(
            `${path}: SetComputeUnitPrice ${setting.microLamports} micro-lamports/CU exceeds the cap ${limits.svmMaxMicroLamportsPerCu}`,
          );
        }
      } else {
        settings.push(`${setting.type} ${setting.bytes} bytes`);
      }
    }
  }
  const okDetail = settings.length
    ? `compute budget within caps: ${settings.join(', ')}`
    : 'no compute-budget instructions (default limit, no priority fee)';
  return outcome('fee-cap', problems, okDetail);
}

/** Solana's base fee per signature, lamports (the runtime's `lamports_per_signature`). */
export const SVM_LAMPORTS_PER_SIGNATURE = 5_000n;
/** Compute units the runtime grants each non-compute-budget instruction when no limit is set. */
export const SVM_DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
/** Largest compute-unit limit of one transaction (the runtime's cap). */
const SVM_MAX_TX_UNITS = 1_400_000;

/**
 * What one Solana step item's transaction pays the network when signed as Ballast signs it (our wallet the fee
 * payer and only signer, verified by `origin-inputs`): the base fee of 5,000 lamports per signature (the fee
 * payer plus any other account marked signer) plus the priority fee `ceil(price × limit / 1,000,000)` lamports,
 * where price is `SetComputeUnitPrice` (micro-lamports per CU, 0 when absent) and limit is
 * `SetComputeUnitLimit`, else the runtime default of 200,000 CU per other instruction up to 1,400,000.
 *
 * @param item a parsed step item
 * @param feePayer our wallet (base58), counted as one signature
 * @returns lamports, or a string saying why it cannot be told (a compute-budget instruction that does not decode)
 */
export function svmNetworkFeeLamports(item: ParsedSvmItem, feePayer: string): bigint | string {
  const signers = new Set<string>([feePayer]);
  let limit: number | null = null;
  let price = 0n;
  let others = 0;
  for (const ix of item.stepData.instructions) {
    for (const key of ix.keys) if (key.isSigner) signers.add(key.pubkey);
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM_ID) {
      others += 1;
      continue;
    }
    const setting = decodeComputeBudget(ix.data);
    if (typeof setting === 'string') return `${item.path}: ${setting}`;
    if (setting.type === 'SetComputeUnitLimit') limit = setting.units;
    if (setting.type === 'SetComputeUnitPrice') price = setting.microLamports;
  }
  const units = BigInt(limit ?? Math.min(SVM_MAX_TX_UNITS, SVM_DEFAULT_UNITS_PER_INSTRUCTION * others));
  const priority = (price * units + 999_999n) / 1_000_000n; // micro-lamports → lamports, rounded up
  return SVM_LAMPORTS_PER_SIGNATURE * BigInt(signers.size) + priority;
}
