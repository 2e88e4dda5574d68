/**
 * Signs one Solana step item the way the verifier checked it (docs/design.md "Solana step data"): exactly the
 * item's instructions, in order, nothing added; fee payer and only signer = our wallet; a fresh blockhash
 * from the node at the configured commitment; compiled as a v0 message against the lookup tables the item
 * names, read on chain right now (`buildSvmV0Transaction`, the builder the verifier measured). Before signing
 * it checks that the message needs no other signature, that every compiled instruction resolves back to the
 * item's instruction (program, accounts in order, data) and that the wire size is at most 1232 bytes. Last, the
 * message is simulated unsigned (src/chains/svm/simulate.ts): only a message the node runs successfully, on a
 * node at least as far along as the slot its blockhash was read at, is signed. Until then no signature exists,
 * so any refusal here leaves nothing that could land. The serialized message is signed through the wallet's
 * {@link SvmSigner} (a key on the host or in a key service, one path) and the signature added as the fee payer's.
 */
import { base58, base64 } from '@scure/base';
import type { PlannedItem } from '../adapter.ts';
import { parseSvmStepData, type SvmInstruction } from '../../verify/deposit/svmStepData.ts';
import {
  buildSvmV0Transaction,
  resolveInstructionAccounts,
  resolveLookupTables,
  SOLANA_TX_MAX_BYTES,
  svmTransactionWireSize,
  type SvmResolvedInstruction,
} from '../../verify/deposit/svmTransaction.ts';
import { SvmAdapterError } from './errors.ts';
import { readLookupTables } from './lookupTables.ts';
import type { SvmFinality, SvmRpc } from './rpc.ts';
import type { SvmSigner } from './signer.ts';
import { simulateBeforeSigning } from './simulate.ts';
import { svmTxRecord } from './txRecord.ts';

/** A signed Solana transaction: base58 signature, base64 wire bytes and the write-ahead record. */
export interface SignedSvmTx {
  signature: string;
  /** base64 of the serialized transaction (what `sendTransaction` takes). */
  rawTx: string;
  request: Record<string, string | number>;
  /** Wire size, bytes (at most {@link SOLANA_TX_MAX_BYTES}). */
  size: number;
}

function sameInstruction(resolved: SvmResolvedInstruction, want: SvmInstruction | undefined): boolean {
  return (
    want !== undefined &&
    resolved.programId === want.programId &&
    resolved.accounts.length === want.keys.length &&
    resolved.accounts.every((a, k) => a.pubkey === want.keys[k]?.pubkey) &&
    Buffer.from(resolved.data).equals(Buffer.from(want.data))
  );
}

/**
 * Builds and signs the transaction of one verified step item.
 *
 * @param args.signer our wallet's signer (fee payer and only signer; src/chains/svm/signer.ts)
 * @param args.chainName config name, for messages
 * @returns the signed transaction; nothing is sent
 * @throws SvmAdapterError when the item's data is not Solana step data, a named lookup table cannot be used,
 *   the message needs another signer, does not resolve back to the item, or exceeds 1232 bytes
 * @throws SvmSimulationFailedError when the unsigned message's simulation fails (nothing signed)
 * @throws SvmRpcError when the node cannot be read (tables, blockhash) or could not simulate the message (a node
 *   behind the blockhash's slot included); nothing is signed
 * @throws SignerError when a key service cannot sign or its signature does not verify (nothing is returned)
 */
export async function signSvmStepItem(
  rpc: SvmRpc,
  args: { item: PlannedItem; signer: SvmSigner; commitment: SvmFinality; chainName: string },
): Promise<SignedSvmTx> {
  const { item, signer, commitment } = args;
  const where = `${item.stepId} item ${item.itemIndex}`;
  const parsed = parseSvmStepData(item.data);
  if (!parsed.ok)
    throw new SvmAdapterError(`${where}: data is not Solana step data (${parsed.error}); nothing is signed on chain ${args.chainName}`);
  const { instructions, addressLookupTableAddresses: named } = parsed.data;

  const tables = resolveLookupTables(named, await readLookupTables(rpc, named, commitment));
  if (tables.missing.length > 0) {
    throw new SvmAdapterError(
      `${where}: lookup table(s) ${tables.missing.join(', ')} are missing, deactivated or not lookup tables on chain ${args.chainName}; nothing is signed`,
    );
  }
  const latest = await rpc.call('getLatestBlockhash', (c) => c.getLatestBlockhashAndContext({ commitment }));
  const payer = signer.publicKey.toBase58();
  let tx: ReturnType<typeof buildSvmV0Transaction>;
  try {
    tx = buildSvmV0Transaction({ instructions, payer, recentBlockhash: latest.value.blockhash, lookupTables: tables.accounts });
  } catch (error) {
    throw new SvmAdapterError(`${where}: the v0 transaction does not compile: ${(error as Error).message}`, { cause: error }); // web3.js throws Error
  }
  const { message } = tx;
  const signers = message.staticAccountKeys.slice(0, message.header.numRequiredSignatures).map((k) => k.toBase58());
  if (signers.length !== 1 || signers[0] !== payer) {
    throw new SvmAdapterError(`${where}: the transaction needs signatures of ${signers.join(', ')}; only our wallet ${payer} signs`);
  }
  const resolved = resolveInstructionAccounts(message, tables.accounts);
  const drift = resolved.findIndex((r, i) => !sameInstruction(r, instructions[i]));
  if (drift !== -1 || resolved.length !== instructions.length) {
    throw new SvmAdapterError(
      `${where}: compiled instruction ${drift === -1 ? resolved.length : drift} does not resolve back to the item's instruction; nothing is signed`,
    );
  }
  const size = svmTransactionWireSize(message);
  if (size > SOLANA_TX_MAX_BYTES) {
    throw new SvmAdapterError(
      `${where}: the transaction is ${size} bytes, ${size - SOLANA_TX_MAX_BYTES} over the ${SOLANA_TX_MAX_BYTES}-byte limit; nothing is signed`,
    );
  }
  // The blockhash and the tables were read at `latest.context.slot` (tables first, at the same commitment).
  await simulateBeforeSigning(rpc, message, { where, minContextSlot: latest.context.slot });
  const signature = await signer.signMessage(message.serialize());
  tx.addSignature(signer.publicKey, signature);
  return {
    signature: base58.encode(signature),
    rawTx: base64.encode(tx.serialize()),
    request: svmTxRecord({
      feePayer: payer,
      blockhash: latest.value.blockhash,
      lastValidBlockHeight: latest.value.lastValidBlockHeight,
      blockhashSlot: latest.context.slot,
    }),
    size,
  };
}
