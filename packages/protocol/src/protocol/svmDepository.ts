/**
 * The Relay depository program on Solana (`relayprotocol/relay-depository` packages/solana-vm, Anchor 0.30):
 * program-derived addresses, the `deposit_native` / `deposit_token` instruction layout and the `DepositEvent`
 * it emits. Pure: PDAs are computed with @solana/web3.js `PublicKey` (hashing only, no connection).
 *
 * Layout (docs/design.md "Solana step data"; Anchor discriminators are sha256("global:<name>")[0..8] and
 * sha256("event:<Name>")[0..8]):
 * - data = discriminator ‖ amount u64 LE ‖ id [u8; 32] (48 bytes);
 * - `deposit_native` accounts: relay_depository PDA, sender (signer, writable), depositor, vault PDA (writable),
 *   system program;
 * - `deposit_token` accounts: relay_depository PDA, sender (signer, writable), depositor, vault PDA, mint,
 *   sender's token account (writable), vault's token account (writable), token program (SPL Token or
 *   Token-2022), associated-token program, system program;
 * - event `DepositEvent { depositor: Pubkey, token: Option<Pubkey>, amount: u64, id: [u8; 32] }`, logged by
 *   Anchor as `Program data: <base64(discriminator ‖ borsh fields)>`.
 */
import { PublicKey } from '@solana/web3.js';
import { bytesToHex, hexToBytes, type Hex } from 'viem';

/** Mainnet program id of the Relay depository (`declare_id!`). GET /chains names the one to use. */
export const RELAY_DEPOSITORY_PROGRAM_ID = '99vQwtBwYtrqqD9YSXbdum3KBdxPAVxYTaQ3cfnJSrN2';
/** The system program (also Solana's native currency id, docs/relay-contract.md "Currency"). */
export const SYSTEM_PROGRAM_ID = '11111111111111111111111111111111';
/** SPL Token program. */
export const TOKEN_PROGRAM_ID = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** SPL Token-2022 program. */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Associated-token-account program. */
export const ASSOCIATED_TOKEN_PROGRAM_ID = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
/** Compute-budget program (SetComputeUnitLimit / SetComputeUnitPrice). */
export const COMPUTE_BUDGET_PROGRAM_ID = 'ComputeBudget111111111111111111111111111111';

/** Anchor discriminator of `deposit_native` (sha256("global:deposit_native")[0..8]). */
export const DEPOSIT_NATIVE_DISCRIMINATOR: Hex = '0x0d9e0ddf5fd51c06';
/** Anchor discriminator of `deposit_token` (sha256("global:deposit_token")[0..8]). */
export const DEPOSIT_TOKEN_DISCRIMINATOR: Hex = '0x0b9c60da27a3b413';
/** Anchor discriminator of the `DepositEvent` event (sha256("event:DepositEvent")[0..8]). */
export const DEPOSIT_EVENT_DISCRIMINATOR: Hex = '0x78f83d531f8e6b90';

/** Length of a deposit instruction's data: 8 + 8 + 32 bytes. */
export const DEPOSIT_DATA_LENGTH = 48;
const U64_MAX = 2n ** 64n - 1n;

/** Which deposit instruction. */
export type SvmDepositKind = 'native' | 'token';

/** A decoded deposit instruction's data: amount in base units (lamports or token units), id = order id. */
export interface SvmDepositData {
  kind: SvmDepositKind;
  amount: bigint;
  id: Hex;
}

/** The PDAs of a depository program, base58. */
export interface SvmDepositoryPdas {
  /** PDA of seed "relay_depository" (the program's config account). */
  relayDepository: string;
  /** PDA of seed "vault" (holds deposited SOL; owns the vault token accounts). */
  vault: string;
}

/**
 * Derived addresses already computed, by their inputs. A program-address derivation tries bump seeds until a
 * hash falls off the ed25519 curve (a point decompression each), which costs far more than a lookup, and the
 * same few owners, mints and programs are derived every cycle. Only successful derivations are kept; the map
 * is emptied when it reaches {@link DERIVED_CACHE_LIMIT} entries.
 */
const derived = new Map<string, string>();
const DERIVED_CACHE_LIMIT = 4_096;

function memoDerive(key: string, derive: () => string): string {
  const hit = derived.get(key);
  if (hit !== undefined) return hit;
  const value = derive();
  if (derived.size >= DERIVED_CACHE_LIMIT) derived.clear();
  derived.set(key, value);
  return value;
}

/**
 * Derives the depository's PDAs.
 *
 * @param programId depository program id, base58 (from GET /chains `protocol.v2.depository`)
 * @throws Error when `programId` is not a valid public key
 */
export function depositoryPdas(programId: string): SvmDepositoryPdas {
  const derive = (seed: string) =>
    memoDerive(`pda:${programId}:${seed}`, () =>
      PublicKey.findProgramAddressSync([Buffer.from(seed)], new PublicKey(programId))[0].toBase58(),
    );
  return { relayDepository: derive('relay_depository'), vault: derive('vault') };
}

/**
 * The associated token account of `owner` for `mint` under `tokenProgram` (the ATA program's PDA with seeds
 * owner ‖ token program ‖ mint).
 *
 * @throws Error when an argument is not a valid public key
 */
export function associatedTokenAddress(owner: string, mint: string, tokenProgram: string = TOKEN_PROGRAM_ID): string {
  return memoDerive(`ata:${owner}:${tokenProgram}:${mint}`, () => {
    const [ata] = PublicKey.findProgramAddressSync(
      [new PublicKey(owner).toBuffer(), new PublicKey(tokenProgram).toBuffer(), new PublicKey(mint).toBuffer()],
      new PublicKey(ASSOCIATED_TOKEN_PROGRAM_ID),
    );
    return ata.toBase58();
  });
}

/**
 * Encodes a deposit instruction's data.
 *
 * @param amount base units, 0 < amount < 2^64
 * @param id the order id, 32 bytes hex
 * @throws RangeError on an amount outside u64 or an id that is not 32 bytes
 */
export function encodeDepositData(kind: SvmDepositKind, amount: bigint, id: Hex): Uint8Array {
  if (amount < 0n || amount > U64_MAX) throw new RangeError(`amount ${amount} does not fit a u64`);
  const idBytes = hexToBytes(id);
  if (idBytes.length !== 32) throw new RangeError(`deposit id must be 32 bytes, got ${idBytes.length}`);
  const out = new Uint8Array(DEPOSIT_DATA_LENGTH);
  out.set(hexToBytes(kind === 'native' ? DEPOSIT_NATIVE_DISCRIMINATOR : DEPOSIT_TOKEN_DISCRIMINATOR), 0);
  new DataView(out.buffer).setBigUint64(8, amount, true);
  out.set(idBytes, 16);
  return out;
}

/**
 * Decodes a deposit instruction's data.
 *
 * @returns the fields, or null when the data is not exactly a deposit instruction (wrong length or discriminator)
 */
export function decodeDepositData(data: Uint8Array): SvmDepositData | null {
  if (data.length !== DEPOSIT_DATA_LENGTH) return null;
  const disc = bytesToHex(data.subarray(0, 8));
  const kind = disc === DEPOSIT_NATIVE_DISCRIMINATOR ? 'native' : disc === DEPOSIT_TOKEN_DISCRIMINATOR ? 'token' : null;
  if (kind === null) return null;
  const amount = new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(8, true);
  return { kind, amount, id: bytesToHex(data.subarray(16, 48)) };
}

/** Role of each account of a deposit instruction, in order. */
export const DEPOSIT_NATIVE_ACCOUNTS = ['relayDepository', 'sender', 'depositor', 'vault', 'systemProgram'] as const;
/** Role of each account of `deposit_token`, in order. */
export const DEPOSIT_TOKEN_ACCOUNTS = [
  'relayDepository',
  'sender',
  'depositor',
  'vault',
  'mint',
  'senderTokenAccount',
  'vaultTokenAccount',
  'tokenProgram',
  'associatedTokenProgram',
  'systemProgram',
] as const;

/** One account meta of an instruction: base58 pubkey and its flags (web3.js `AccountMeta` shape, as text). */
export interface SvmAccountMeta {
  pubkey: string;
  isSigner: boolean;
  isWritable: boolean;
}

/**
 * The exact account list the depository program expects for a deposit (what a quote must carry and what the
 * sandbox node enforces).
 *
 * @param args.programId depository program id; `sender` signs and pays; `depositor` is credited (our wallet)
 * @param args.mint token mint for `deposit_token`; absent for `deposit_native`
 * @param args.tokenProgram SPL Token (default) or Token-2022
 */
export function depositAccounts(args: {
  programId: string;
  sender: string;
  depositor: string;
  mint?: string;
  tokenProgram?: string;
}): SvmAccountMeta[] {
  const { relayDepository, vault } = depositoryPdas(args.programId);
  const meta = (pubkey: string, isSigner = false, isWritable = false): SvmAccountMeta => ({ pubkey, isSigner, isWritable });
  if (args.mint === undefined) {
    return [meta(relayDepository), meta(args.sender, true, true), meta(args.depositor), meta(vault, false, true), meta(SYSTEM_PROGRAM_ID)];
  }
  const tokenProgram = args.tokenProgram ?? TOKEN_PROGRAM_ID;
  return [
    meta(relayDepository),
    meta(args.sender, true, true),
    meta(args.depositor),
    meta(vault),
    meta(args.mint),
    meta(associatedTokenAddress(args.sender, args.mint, tokenProgram), false, true),
    meta(associatedTokenAddress(vault, args.mint, tokenProgram), false, true),
    meta(tokenProgram),
    meta(ASSOCIATED_TOKEN_PROGRAM_ID),
    meta(SYSTEM_PROGRAM_ID),
  ];
}

/** A decoded `DepositEvent`: `token` null for SOL; amount in base units (after any Token-2022 transfer fee). */
export interface SvmDepositEvent {
  depositor: string;
  token: string | null;
  amount: bigint;
  id: Hex;
}

/**
 * Encodes a `DepositEvent` as Anchor logs it (the bytes behind `Program data: <base64>`).
 *
 * @throws RangeError on an id that is not 32 bytes or an amount outside u64
 */
export function encodeDepositEvent(event: SvmDepositEvent): Uint8Array {
  if (event.amount < 0n || event.amount > U64_MAX) throw new RangeError(`amount ${event.amount} does not fit a u64`);
  const id = hexToBytes(event.id);
  if (id.length !== 32) throw new RangeError(`deposit id must be 32 bytes, got ${id.length}`);
  const token = event.token === null ? [0] : [1, ...new PublicKey(event.token).toBytes()];
  const amount = new Uint8Array(8);
  new DataView(amount.buffer).setBigUint64(0, event.amount, true);
  return Uint8Array.from([
    ...hexToBytes(DEPOSIT_EVENT_DISCRIMINATOR),
    ...new PublicKey(event.depositor).toBytes(),
    ...token,
    ...amount,
    ...id,
  ]);
}

/**
 * Decodes the bytes of one `Program data:` log line.
 *
 * @returns the event, or null when the bytes are not a `DepositEvent`
 */
export function decodeDepositEvent(bytes: Uint8Array): SvmDepositEvent | null {
  if (bytes.length < 8 || bytesToHex(bytes.subarray(0, 8)) !== DEPOSIT_EVENT_DISCRIMINATOR) return null;
  let at = 8;
  const depositor = new PublicKey(bytes.subarray(at, at + 32)).toBase58();
  at += 32;
  const tag = bytes[at];
  at += 1;
  let token: string | null = null;
  if (tag === 1) {
    token = new PublicKey(bytes.subarray(at, at + 32)).toBase58();
    at += 32;
  } else if (tag !== 0) {
    return null;
  }
  if (bytes.length !== at + 8 + 32) return null;
  const amount = new DataView(bytes.buffer, bytes.byteOffset + at, 8).getBigUint64(0, true);
  return { depositor, token, amount, id: bytesToHex(bytes.subarray(at + 8, at + 40)) };
}
