/**
 * Balance and decimals reads on a Solana chain. Every account a set of holdings needs is read with
 * `getMultipleAccounts` in one round trip (100 accounts per call, the RPC's limit; more only for more than
 * 100 accounts) at the configured commitment, so all balances describe one slot:
 * - native SOL (currency `11111111111111111111111111111111`): the wallet account's lamports (missing = 0);
 * - an SPL token: the mint account and the owner's associated token accounts under BOTH token programs (SPL
 *   Token and Token-2022), since which program owns the mint is only known once it is read; the ATA of the
 *   mint's program counts (missing = 0). Accounts are decoded with @solana/spl-token `unpackMint` /
 *   `unpackAccount`, which check the owning program and the layout (Token-2022 extensions included).
 */
import { PublicKey, type AccountInfo } from '@solana/web3.js';
import { unpackAccount, unpackMint } from '@solana/spl-token';
import type { BalancesRead, Holding } from '../adapter.ts';
import {
  associatedTokenAddress,
  SYSTEM_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@ballast/protocol/protocol/svmDepository.ts';
import { nodeWords, type SvmFinality, type SvmRpc } from './rpc.ts';
import { parseSvmAddress } from './wallet.ts';

/** Most accounts one `getMultipleAccounts` call may ask for (validators refuse more). */
export const MAX_ACCOUNTS_PER_CALL = 100;

/** Accounts read at one slot: address → account (null when it does not exist). */
export interface AccountsRead {
  /** The context slot of the read (the lowest one when more than one call was needed). */
  slot: bigint;
  accounts: ReadonlyMap<string, AccountInfo<Buffer> | null>;
}

/**
 * Reads accounts with `getMultipleAccounts`: one call per {@link MAX_ACCOUNTS_PER_CALL} distinct addresses,
 * later calls no older than the first (`minContextSlot`).
 *
 * @param addresses base58 public keys (duplicates are read once)
 * @returns the accounts and the slot of the first call (every later call is at that slot or newer, so a
 *   balance is at least as new as `slot`; the planner then counts an in-flight deposit twice at worst)
 * @throws SvmRpcError on any node error
 */
export async function readAccounts(rpc: SvmRpc, addresses: readonly string[], commitment: SvmFinality): Promise<AccountsRead> {
  const distinct = [...new Set(addresses)];
  const accounts = new Map<string, AccountInfo<Buffer> | null>();
  let slot: number | undefined;
  for (let at = 0; at < distinct.length || slot === undefined; at += MAX_ACCOUNTS_PER_CALL) {
    const chunk = distinct.slice(at, at + MAX_ACCOUNTS_PER_CALL);
    const config = slot === undefined ? { commitment } : { commitment, minContextSlot: slot };
    const read = await rpc.call('getMultipleAccounts', (c) =>
      c.getMultipleAccountsInfoAndContext(
        chunk.map((a) => new PublicKey(a)),
        config,
      ),
    );
    slot ??= read.context.slot;
    chunk.forEach((address, i) => accounts.set(address, read.value[i] ?? null));
  }
  return { slot: BigInt(slot), accounts };
}

/** What one holding needs read: a wallet account, or a mint and both possible ATAs; or why it cannot be read. */
type HoldingPlan =
  | { kind: 'native'; wallet: string }
  | { kind: 'token'; owner: string; mint: string; splAta: string; token2022Ata: string }
  | { kind: 'invalid'; error: string };

function planHolding(h: Holding): HoldingPlan {
  if (parseSvmAddress(h.address) === undefined) return { kind: 'invalid', error: `${h.address} is not a Solana address` };
  if (h.currency === SYSTEM_PROGRAM_ID) return { kind: 'native', wallet: h.address };
  if (parseSvmAddress(h.currency) === undefined) return { kind: 'invalid', error: `${h.currency} is not a Solana mint address` };
  return {
    kind: 'token',
    owner: h.address,
    mint: h.currency,
    splAta: associatedTokenAddress(h.address, h.currency, TOKEN_PROGRAM_ID),
    token2022Ata: associatedTokenAddress(h.address, h.currency, TOKEN_2022_PROGRAM_ID),
  };
}

function plannedAddresses(plan: HoldingPlan): string[] {
  if (plan.kind === 'native') return [plan.wallet];
  if (plan.kind === 'token') return [plan.mint, plan.splAta, plan.token2022Ata];
  return [];
}

type AmountRead = { amount: bigint } | { amount: null; error: string };

/** The token program owning `mint`'s account, after checking the account decodes as a mint; or why not. */
function mintProgram(mint: string, info: AccountInfo<Buffer> | null | undefined): PublicKey | string {
  if (!info) return `mint ${mint} does not exist on this chain`;
  const owner = info.owner.toBase58();
  if (owner !== TOKEN_PROGRAM_ID && owner !== TOKEN_2022_PROGRAM_ID) return `${mint} is not a token mint (its account belongs to ${owner})`;
  try {
    unpackMint(new PublicKey(mint), info, info.owner);
  } catch (error) {
    return `${mint} is not a token mint: ${nodeWords(error)}`;
  }
  return info.owner;
}

function amountOf(plan: HoldingPlan, accounts: ReadonlyMap<string, AccountInfo<Buffer> | null>): AmountRead {
  if (plan.kind === 'invalid') return { amount: null, error: plan.error };
  if (plan.kind === 'native') return { amount: BigInt(accounts.get(plan.wallet)?.lamports ?? 0) };
  const program = mintProgram(plan.mint, accounts.get(plan.mint));
  if (typeof program === 'string') return { amount: null, error: program };
  const ata = program.toBase58() === TOKEN_PROGRAM_ID ? plan.splAta : plan.token2022Ata;
  const info = accounts.get(ata);
  if (!info) return { amount: 0n }; // no associated token account yet: nothing held
  try {
    const account = unpackAccount(new PublicKey(ata), info, program);
    if (account.mint.toBase58() !== plan.mint || account.owner.toBase58() !== plan.owner) {
      return {
        amount: null,
        error: `token account ${ata} holds mint ${account.mint.toBase58()} for ${account.owner.toBase58()}, not ${plan.mint} for ${plan.owner}`,
      };
    }
    return { amount: account.amount };
  } catch (error) {
    return { amount: null, error: `token account ${ata} does not decode: ${nodeWords(error)}` };
  }
}

/**
 * Reads every holding at one slot.
 *
 * @param holdings wallet address (base58) and currency (`11111111111111111111111111111111` or a mint)
 * @returns `{ ok: true, atBlock: slot, amounts }` with lamports or token base units per holding (or that
 *   holding's error: an invalid address, a mint that does not exist or is not a mint); `{ ok: false, error }`
 *   naming `chains.<name>.rpcUrl` when the node could not be read. Never throws.
 */
export async function readSvmBalances(rpc: SvmRpc, holdings: readonly Holding[], commitment: SvmFinality): Promise<BalancesRead> {
  const plans = holdings.map(planHolding);
  let read: AccountsRead;
  try {
    read = await readAccounts(rpc, plans.flatMap(plannedAddresses), commitment);
  } catch (error) {
    return { ok: false, error: nodeWords(error) }; // an SvmRpcError, whose message names chains.<name>.rpcUrl
  }
  return { ok: true, atBlock: read.slot, amounts: plans.map((p) => amountOf(p, read.accounts)) };
}

/**
 * Decimals of SPL Token / Token-2022 mints.
 *
 * @param mints base58 mint addresses
 * @returns decimals per mint, in order; null for an invalid address, a missing account or one that is not a mint
 * @throws SvmRpcError on any node error
 */
export async function readSvmDecimals(rpc: SvmRpc, mints: readonly string[], commitment: SvmFinality): Promise<(number | null)[]> {
  const valid = mints.filter((m) => parseSvmAddress(m) !== undefined);
  if (valid.length === 0) return mints.map(() => null);
  const { accounts } = await readAccounts(rpc, valid, commitment);
  return mints.map((mint) => {
    const info = parseSvmAddress(mint) === undefined ? undefined : accounts.get(mint);
    const program = mintProgram(mint, info);
    if (typeof program === 'string' || !info) return null;
    return unpackMint(new PublicKey(mint), info, program).decimals; // mintProgram decoded it already
  });
}
