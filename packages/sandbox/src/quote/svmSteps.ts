/**
 * The step of a Solana-origin quote (docs/design.md "Solana step data", relay-kit's shape): one item whose data is
 * `{instructions: [deposit_native | deposit_token], addressLookupTableAddresses: []}`, the instruction built
 * with `depositAccounts` / `encodeDepositData` for sender = depositor = the user, its data as hex without
 * `0x`. Also measures the wire size of the v0 transaction a client compiles from it (fee payer = the user;
 * @solana/web3.js `compileToV0Message`), for the 1232-byte limit (docs/relay-contract.md "Limits"). Pure.
 */
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { bytesToHex, type Hex } from 'viem';
import { depositAccounts, encodeDepositData, TOKEN_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { depositStep } from '@ballast/protocol/protocol/quoteParts.ts';
import type { StepJson, SvmStepDataJson } from './types.ts';
import type { SandboxVmCurrency } from './vmChains.ts';

/** Inputs of {@link buildSvmSteps}. `amountIn` in lamports or token base units. */
export interface SvmStepParams {
  requestId: Hex;
  /** Depository program id (GET /chains `protocol.v2.depository`). */
  programId: string;
  /** The user's wallet: fee payer, sender and credited depositor. */
  user: string;
  currencyIn: SandboxVmCurrency;
  amountIn: bigint;
  orderId: Hex;
  outputSymbol: string;
}

/** The deposit instruction as step data (`deposit_native` for SOL, else `deposit_token` under SPL Token). */
export function depositInstructionJson(p: Omit<SvmStepParams, 'requestId' | 'outputSymbol'>): SvmStepDataJson['instructions'][number] {
  const kind = p.currencyIn.isNative ? 'native' : 'token';
  const keys = depositAccounts({
    programId: p.programId,
    sender: p.user,
    depositor: p.user,
    ...(kind === 'token' ? { mint: p.currencyIn.address, tokenProgram: TOKEN_PROGRAM_ID } : {}),
  });
  return { keys, programId: p.programId, data: bytesToHex(encodeDepositData(kind, p.amountIn, p.orderId)).slice(2) };
}

/**
 * The single `deposit` step of a Solana-origin quote, with a status `check` ({@link depositStep}).
 */
export function buildSvmSteps(p: SvmStepParams): StepJson<SvmStepDataJson>[] {
  const data: SvmStepDataJson = { instructions: [depositInstructionJson(p)], addressLookupTableAddresses: [] };
  return [depositStep(p.requestId, p.outputSymbol, data)];
}

/**
 * Wire size of the v0 transaction of some step-data instructions, fee payer `payer`, with every required
 * signature (64 bytes each) and a 32-byte blockhash: what a client's `VersionedTransaction.serialize()` gives.
 *
 * @returns bytes
 * @throws Error when web3.js cannot compile or serialize the message (e.g. it exceeds the packet size)
 */
export function svmWireSize(instructions: SvmStepDataJson['instructions'], payer: string): number {
  const message = new TransactionMessage({
    payerKey: new PublicKey(payer),
    recentBlockhash: PublicKey.default.toBase58(),
    instructions: instructions.map(
      (ix) =>
        new TransactionInstruction({
          programId: new PublicKey(ix.programId),
          keys: ix.keys.map((k) => ({ pubkey: new PublicKey(k.pubkey), isSigner: k.isSigner, isWritable: k.isWritable })),
          data: Buffer.from(ix.data, 'hex'),
        }),
    ),
  }).compileToV0Message();
  return new VersionedTransaction(message).serialize().length;
}
