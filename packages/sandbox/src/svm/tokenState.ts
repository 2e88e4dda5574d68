/**
 * Reading SPL Token / Token-2022 mints and token accounts from raw account state (@solana/spl-token's
 * unpackers), and rendering them the way a validator's `jsonParsed` encoding and `uiTokenAmount` do.
 * Pure: callers hand in the account bytes.
 */
import { PublicKey, type AccountInfo } from '@solana/web3.js';
import { calculateEpochFee, getTransferFeeConfig, unpackAccount, unpackMint, type Account, type Mint } from '@solana/spl-token';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';

/** Raw state of one account, as litesvm holds it. */
export interface AccountState {
  /** Owning program, base58. */
  owner: string;
  /** Balance in lamports. */
  lamports: bigint;
  data: Uint8Array;
  executable: boolean;
}

/** True for the SPL Token and Token-2022 program ids. */
export function isTokenProgram(programId: string): boolean {
  return programId === TOKEN_PROGRAM_ID || programId === TOKEN_2022_PROGRAM_ID;
}

function toAccountInfo(state: AccountState): AccountInfo<Buffer> {
  return {
    data: Buffer.from(state.data),
    owner: new PublicKey(state.owner),
    lamports: Number(state.lamports),
    executable: state.executable,
  };
}

/** The mint at `address`, or null when the state is missing, not owned by a token program or not a mint. */
export function parseMint(address: string, state: AccountState | null): Mint | null {
  if (state === null || !isTokenProgram(state.owner)) return null;
  try {
    return unpackMint(new PublicKey(address), toAccountInfo(state), new PublicKey(state.owner));
  } catch {
    return null; // not a mint: the caller reports that in its own terms
  }
}

/** The token account at `address`, or null when the state is missing, not owned by a token program or not a token account. */
export function parseTokenAccount(address: string, state: AccountState | null): Account | null {
  if (state === null || !isTokenProgram(state.owner)) return null;
  try {
    return unpackAccount(new PublicKey(address), toAccountInfo(state), new PublicKey(state.owner));
  } catch {
    return null; // not a token account: the caller reports that in its own terms
  }
}

/**
 * The Token-2022 transfer fee withheld when `amount` moves (0 for SPL Token mints and mints without the
 * extension), in token base units.
 */
export function transferFeeOf(mint: Mint, epoch: bigint, amount: bigint): bigint {
  const config = getTransferFeeConfig(mint);
  return config === null ? 0n : calculateEpochFee(config, epoch, amount);
}

/** `uiTokenAmount` as JSON-RPC writes it. `uiAmount` is a float for display only; `amount` is exact. */
export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/** Formats base units for humans (`1500000`, 6 → `"1.5"`). */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const scale = 10n ** BigInt(decimals);
  const frac = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac === '' ? (amount / scale).toString() : `${amount / scale}.${frac}`;
}

/** The `uiTokenAmount` object of an amount in base units. */
export function uiTokenAmount(amount: bigint, decimals: number): UiTokenAmount {
  const text = uiAmountString(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(text), uiAmountString: text };
}

/**
 * `jsonParsed` form of a token account or mint (`{program, parsed: {type, info}, space}`), or null when the
 * account is neither (a real node then falls back to base64).
 *
 * @param readMint reads a mint's decimals for a token account's `tokenAmount`
 */
export function jsonParsedTokenData(
  address: string,
  state: AccountState,
  readMint: (mint: string) => Mint | null,
): { program: string; parsed: { type: string; info: Record<string, unknown> }; space: number } | null {
  const program = state.owner === TOKEN_2022_PROGRAM_ID ? 'spl-token-2022' : 'spl-token';
  const account = parseTokenAccount(address, state);
  if (account !== null) {
    const mint = readMint(account.mint.toBase58());
    const decimals = mint?.decimals ?? 0;
    const info: Record<string, unknown> = {
      isNative: account.isNative,
      mint: account.mint.toBase58(),
      owner: account.owner.toBase58(),
      state: account.isFrozen ? 'frozen' : 'initialized',
      tokenAmount: uiTokenAmount(account.amount, decimals),
    };
    if (account.delegate !== null) {
      info.delegate = account.delegate.toBase58();
      info.delegatedAmount = uiTokenAmount(account.delegatedAmount, decimals);
    }
    return { program, parsed: { type: 'account', info }, space: state.data.length };
  }
  const mint = parseMint(address, state);
  if (mint !== null) {
    const info = {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority?.toBase58() ?? null,
      isInitialized: mint.isInitialized,
      mintAuthority: mint.mintAuthority?.toBase58() ?? null,
      supply: mint.supply.toString(),
    };
    return { program, parsed: { type: 'mint', info }, space: state.data.length };
  }
  return null;
}
