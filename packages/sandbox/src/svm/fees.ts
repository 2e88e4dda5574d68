/**
 * Transaction fees as a validator charges them (what getFeeForMessage answers and meta.fee records), in
 * lamports: 5 000 per signature (transaction signatures plus those checked by the ed25519 / secp256k1 /
 * secp256r1 precompiles) plus the priority fee ceil(compute-unit price in micro-lamports × compute-unit
 * limit / 1 000 000). Without SetComputeUnitLimit the limit is 200 000 per instruction of a non-builtin
 * program plus 3 000 per builtin instruction, capped at 1 400 000. Pure.
 */
import { COMPUTE_BUDGET_PROGRAM_ID, SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';

/** Base fee per signature, lamports. */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Highest compute-unit limit a transaction may request. */
export const MAX_COMPUTE_UNIT_LIMIT = 1_400_000;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000;
const DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION = 3_000;

const PRECOMPILES = new Set([
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
]);
/** Programs that run natively (not sBPF) and so reserve only 3 000 units by default. */
const BUILTINS = new Set([
  SYSTEM_PROGRAM_ID,
  COMPUTE_BUDGET_PROGRAM_ID,
  'Vote111111111111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  ...PRECOMPILES,
]);

/** What the fee depends on: the signature count and each instruction's program id (base58) and data. */
export interface FeeInput {
  numRequiredSignatures: number;
  instructions: { programId: string; data: Uint8Array }[];
}

/** The compute budget a message asks for. */
export interface ComputeBudgetRequest {
  /** Compute-unit limit (requested, or the default). */
  unitLimit: number;
  /** Price per compute unit in micro-lamports (0 when not set). */
  microLamportsPerUnit: bigint;
}

/** Reads SetComputeUnitLimit / SetComputeUnitPrice from the message, or the defaults. */
export function computeBudgetOf(input: FeeInput): ComputeBudgetRequest {
  let limit: number | null = null;
  let price = 0n;
  let builtins = 0;
  let others = 0;
  for (const ix of input.instructions) {
    if (BUILTINS.has(ix.programId)) builtins += 1;
    else others += 1;
    if (ix.programId !== COMPUTE_BUDGET_PROGRAM_ID) continue;
    const view = new DataView(ix.data.buffer, ix.data.byteOffset, ix.data.byteLength);
    if (ix.data[0] === 2 && ix.data.length >= 5) limit = view.getUint32(1, true);
    if (ix.data[0] === 3 && ix.data.length >= 9) price = view.getBigUint64(1, true);
  }
  const unitLimit = limit ?? others * DEFAULT_UNITS_PER_INSTRUCTION + builtins * DEFAULT_UNITS_PER_BUILTIN_INSTRUCTION;
  return { unitLimit: Math.min(unitLimit, MAX_COMPUTE_UNIT_LIMIT), microLamportsPerUnit: price };
}

/**
 * The fee a validator charges the fee payer for this message, in lamports.
 *
 * @example transactionFee({ numRequiredSignatures: 1, instructions: [] }) // 5000n
 */
export function transactionFee(input: FeeInput): bigint {
  let signatures = BigInt(input.numRequiredSignatures);
  for (const ix of input.instructions) {
    if (PRECOMPILES.has(ix.programId) && ix.data.length > 0) signatures += BigInt(ix.data[0] ?? 0);
  }
  const budget = computeBudgetOf(input);
  const priority = (budget.microLamportsPerUnit * BigInt(budget.unitLimit) + 999_999n) / 1_000_000n;
  return signatures * LAMPORTS_PER_SIGNATURE + priority;
}
