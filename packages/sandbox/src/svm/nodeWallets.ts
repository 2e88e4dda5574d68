/**
 * The sandbox Solana node's own wallets at work: airdrops from the faucet, test mints, minting to any owner
 * (creating the owner's associated token account), and the solver's fills. Every one is a real signed v0
 * transaction that goes through the node's full pipeline, so it lands in a slot, shows in
 * getSignaturesForAddress / getTransaction and moves balances only through the SVM.
 */
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import {
  MINT_SIZE,
  createAssociatedTokenAccountIdempotentInstruction,
  createInitializeMint2Instruction,
  createMintToCheckedInstruction,
  createTransferCheckedInstruction,
} from '@solana/spl-token';
import { TOKEN_PROGRAM_ID, associatedTokenAddress } from '@ballast/protocol/protocol/svmDepository.ts';
import { SolanaNodeError } from './errors.ts';
import type { LandedTransaction } from './ledger.ts';
import { RpcError } from './rpcError.ts';
import type { SvmEngine } from './svmEngine.ts';
import { isTokenProgram, parseMint, parseTokenAccount } from './tokenState.ts';
import { transactionErrorText } from './txErrors.ts';
import { decodeTransactionBytes } from './wireTransaction.ts';

const U64_MAX = 2n ** 64n - 1n;

function publicKey(value: string, field: string): PublicKey {
  try {
    return new PublicKey(value);
  } catch (error) {
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `${field} ${JSON.stringify(value)} is not a base58 public key`, { cause: error });
  }
}

function checkAmount(amount: bigint, field: string): void {
  if (amount <= 0n || amount > U64_MAX)
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `${field} must be in 1..2^64-1 base units, got ${amount}`);
}

/**
 * Signs (payer first) and runs a v0 transaction through the node's pipeline with preflight.
 *
 * @returns the landed, successful transaction
 * @throws SolanaNodeError `SOLANA_NODE_TX_FAILED` when it is refused or fails
 */
export function sendSigned(engine: SvmEngine, instructions: TransactionInstruction[], signers: Keypair[], what: string): LandedTransaction {
  const payer = signers[0];
  if (payer === undefined) throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `${what}: no signer`);
  const { blockhash } = engine.clock.latestBlockhash('confirmed');
  const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign(signers);
  let landed: LandedTransaction;
  try {
    landed = engine.submit(decodeTransactionBytes(tx.serialize()), { skipPreflight: false });
  } catch (error) {
    const logs = error instanceof RpcError ? ((error.data as { logs?: string[] } | undefined)?.logs ?? []) : []; // preflight data carries logs
    const detail = logs.length > 0 ? `; logs: ${logs.slice(-4).join(' | ')}` : '';
    throw new SolanaNodeError(
      'SOLANA_NODE_TX_FAILED',
      `${what} was refused: ${error instanceof Error ? error.message : String(error)}${detail}`,
      { cause: error },
    );
  }
  if (landed.err !== null) {
    throw new SolanaNodeError(
      'SOLANA_NODE_TX_FAILED',
      `${what} failed in slot ${landed.slot}: ${transactionErrorText(landed.err)} (${landed.signature})`,
    );
  }
  return landed;
}

/** Sends `lamports` from the faucet to `address` (a system transfer). */
export function airdrop(engine: SvmEngine, faucet: Keypair, address: string, lamports: bigint): LandedTransaction {
  checkAmount(lamports, 'lamports');
  const to = publicKey(address, 'address');
  return sendSigned(
    engine,
    [SystemProgram.transfer({ fromPubkey: faucet.publicKey, toPubkey: to, lamports })],
    [faucet],
    `airdrop of ${lamports} lamports to ${address}`,
  );
}

/**
 * Creates a mint whose mint authority is `authority`, paid by `payer`.
 *
 * @param tokenProgram SPL Token (default) or Token-2022
 * @returns the mint address
 */
export function createMint(
  engine: SvmEngine,
  payer: Keypair,
  authority: PublicKey,
  decimals: number,
  tokenProgram: string = TOKEN_PROGRAM_ID,
): string {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 18)
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `decimals must be an integer 0..18, got ${decimals}`);
  if (!isTokenProgram(tokenProgram))
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `tokenProgram ${tokenProgram} is neither SPL Token nor Token-2022`);
  const mint = Keypair.generate();
  const program = new PublicKey(tokenProgram);
  // web3.js types createAccount's lamports as a number; a mint's rent (~1.5e6) is far below 2^53.
  const rent = Number(engine.svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)));
  sendSigned(
    engine,
    [
      SystemProgram.createAccount({
        fromPubkey: payer.publicKey,
        newAccountPubkey: mint.publicKey,
        lamports: rent,
        space: MINT_SIZE,
        programId: program,
      }),
      createInitializeMint2Instruction(mint.publicKey, decimals, authority, null, program),
    ],
    [payer, mint],
    `creating a ${decimals}-decimals mint`,
  );
  return mint.publicKey.toBase58();
}

/** Mint facts needed to move its tokens. */
function mintInfo(engine: SvmEngine, mint: string): { program: PublicKey; decimals: number } {
  const state = engine.readAccount(publicKey(mint, 'mint').toBase58());
  const parsed = parseMint(mint, state);
  if (parsed === null || state === null)
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `mint ${mint} does not exist on the sandbox node; create it with createMint`);
  return { program: new PublicKey(state.owner), decimals: parsed.decimals };
}

/**
 * Mints `amount` base units of `mint` to `owner`'s associated token account, creating it if missing
 * (fees and rent paid by `payer`; `authority` must be the mint authority).
 */
export function mintTo(
  engine: SvmEngine,
  payer: Keypair,
  authority: Keypair,
  owner: string,
  mint: string,
  amount: bigint,
): LandedTransaction {
  checkAmount(amount, 'amount');
  const ownerKey = publicKey(owner, 'owner');
  const { program, decimals } = mintInfo(engine, mint);
  const mintKey = new PublicKey(mint);
  const ata = new PublicKey(associatedTokenAddress(owner, mint, program.toBase58()));
  return sendSigned(
    engine,
    [
      createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, ata, ownerKey, mintKey, program),
      createMintToCheckedInstruction(mintKey, ata, authority.publicKey, amount, decimals, [], program),
    ],
    payer.publicKey.equals(authority.publicKey) ? [payer] : [payer, authority],
    `minting ${amount} of ${mint} to ${owner}`,
  );
}

/**
 * Pays `amount` from `from` to `recipient`: lamports when `mint` is null, else tokens from `from`'s ATA to
 * the recipient's ATA (created if missing, paid by `from`).
 */
export function transferFrom(
  engine: SvmEngine,
  from: Keypair,
  args: { recipient: string; mint: string | null; amount: bigint },
): LandedTransaction {
  checkAmount(args.amount, 'amount');
  const to = publicKey(args.recipient, 'recipient');
  if (args.mint === null) {
    const transfer = SystemProgram.transfer({ fromPubkey: from.publicKey, toPubkey: to, lamports: args.amount });
    return sendSigned(engine, [transfer], [from], `fill of ${args.amount} lamports to ${args.recipient}`);
  }
  const { program, decimals } = mintInfo(engine, args.mint);
  const mintKey = new PublicKey(args.mint);
  const source = new PublicKey(associatedTokenAddress(from.publicKey.toBase58(), args.mint, program.toBase58()));
  const dest = new PublicKey(associatedTokenAddress(args.recipient, args.mint, program.toBase58()));
  return sendSigned(
    engine,
    [
      createAssociatedTokenAccountIdempotentInstruction(from.publicKey, dest, to, mintKey, program),
      createTransferCheckedInstruction(source, mintKey, dest, from.publicKey, args.amount, decimals, [], program),
    ],
    [from],
    `fill of ${args.amount} of ${args.mint} to ${args.recipient}`,
  );
}

/** Lamports of `address` (0 when it does not exist). */
export function lamportsOf(engine: SvmEngine, address: string): bigint {
  return engine.readAccount(publicKey(address, 'address').toBase58())?.lamports ?? 0n;
}

/** Base units of `mint` in `owner`'s associated token account (0 when it does not exist). */
export function tokenBalanceOf(engine: SvmEngine, owner: string, mint: string): bigint {
  publicKey(owner, 'owner');
  const { program } = mintInfo(engine, mint);
  const ata = associatedTokenAddress(owner, mint, program.toBase58());
  return parseTokenAccount(ata, engine.readAccount(ata))?.amount ?? 0n;
}
