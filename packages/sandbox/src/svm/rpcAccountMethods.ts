/**
 * Account-reading JSON-RPC methods of the sandbox Solana node: getAccountInfo (also what web3.js's
 * getAddressLookupTable calls), getMultipleAccounts, getBalance, getProgramAccounts, the token reads
 * (getTokenAccountBalance, getTokenAccountsByOwner, getTokenSupply) and getMinimumBalanceForRentExemption.
 * Account state is always the latest (confirmed) state, whatever commitment is asked for.
 */
import { base58, base64 } from '@scure/base';
import { z } from 'zod';
import { TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { withContext, type RpcContext, type RpcMethodTable } from './rpcContext.ts';
import { RpcError, RPC_ERROR, invalidParams } from './rpcError.ts';
import { accountConfigSchema, parseParams, pubkeySchema, readConfigSchema } from './rpcParams.ts';
import { jsonParsedTokenData, parseMint, parseTokenAccount, uiTokenAmount, type AccountState } from './tokenState.ts';

/** `rentEpoch` of every account (rent collection is off: u64::MAX, as validators report it). */
const RENT_EPOCH = 2n ** 64n - 1n;
const MAX_BASE58_BYTES = 128;
const MAX_MULTIPLE_ACCOUNTS = 100;

type AccountConfig = z.infer<typeof accountConfigSchema>;

/** An account as JSON-RPC renders it, in the requested encoding. */
export function renderAccount(
  ctx: RpcContext,
  address: string,
  state: AccountState,
  config: AccountConfig | null | undefined,
): Record<string, unknown> {
  const encoding = config?.encoding ?? 'binary';
  let data: unknown;
  if (encoding === 'jsonParsed') {
    data = jsonParsedTokenData(address, state, (mint) => parseMint(mint, ctx.engine.readAccount(mint))) ?? [
      base64.encode(state.data),
      'base64',
    ];
  } else {
    const slice = config?.dataSlice;
    const bytes = slice ? state.data.subarray(slice.offset, slice.offset + slice.length) : state.data;
    if (encoding === 'base64+zstd') throw invalidParams('base64+zstd encoding is not supported by the sandbox node; use base64');
    if ((encoding === 'binary' || encoding === 'base58') && bytes.length > MAX_BASE58_BYTES) {
      throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    }
    data =
      encoding === 'base64'
        ? [base64.encode(bytes), 'base64']
        : encoding === 'base58'
          ? [base58.encode(bytes), 'base58']
          : base58.encode(bytes);
  }
  return {
    data,
    executable: state.executable,
    lamports: state.lamports,
    owner: state.owner,
    rentEpoch: RENT_EPOCH,
    space: state.data.length,
  };
}

function tokenAccountOrThrow(ctx: RpcContext, address: string): { amount: bigint; decimals: number } {
  const token = parseTokenAccount(address, ctx.engine.readAccount(address));
  if (token === null) throw invalidParams('Invalid param: not a Token account');
  const mint = token.mint.toBase58();
  return { amount: token.amount, decimals: parseMint(mint, ctx.engine.readAccount(mint))?.decimals ?? 0 };
}

const filterSchema = z.union([
  z.object({ dataSize: z.number().int().nonnegative() }),
  z.object({
    memcmp: z.object({ offset: z.number().int().nonnegative(), bytes: z.string(), encoding: z.enum(['base58', 'base64']).nullish() }),
  }),
]);

function matchesFilters(state: AccountState, filters: z.infer<typeof filterSchema>[]): boolean {
  return filters.every((f) => {
    if ('dataSize' in f) return state.data.length === f.dataSize;
    const want = f.memcmp.encoding === 'base64' ? base64.decode(f.memcmp.bytes) : base58.decode(f.memcmp.bytes);
    const have = state.data.subarray(f.memcmp.offset, f.memcmp.offset + want.length);
    return have.length === want.length && have.every((b, i) => b === want[i]);
  });
}

function programAccounts(ctx: RpcContext, programId: string): { address: string; state: AccountState }[] {
  // A base58 32-byte key is exactly what kit's branded `Address` holds.
  const accounts = ctx.engine.svm.getProgramAccounts(programId as Parameters<typeof ctx.engine.svm.getProgramAccounts>[0]);
  return accounts.map((a) => ({
    address: a.address,
    state: { owner: a.programAddress, lamports: a.lamports, data: Uint8Array.from(a.data), executable: a.executable },
  }));
}

/** The account-reading methods. */
export function accountMethods(ctx: RpcContext): RpcMethodTable {
  const read = (address: string): AccountState | null => ctx.engine.readAccount(address);
  return {
    getAccountInfo: (params) => {
      const [address, config] = parseParams(z.tuple([pubkeySchema, accountConfigSchema.nullish()]), params);
      const state = read(address);
      return withContext(ctx, state === null ? null : renderAccount(ctx, address, state, config));
    },
    getMultipleAccounts: (params) => {
      const [addresses, config] = parseParams(z.tuple([z.array(pubkeySchema), accountConfigSchema.nullish()]), params);
      if (addresses.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
      return withContext(
        ctx,
        addresses.map((a) => {
          const state = read(a);
          return state === null ? null : renderAccount(ctx, a, state, config);
        }),
      );
    },
    getBalance: (params) => {
      const [address] = parseParams(z.tuple([pubkeySchema, readConfigSchema.nullish()]), params);
      return withContext(ctx, read(address)?.lamports ?? 0n);
    },
    getProgramAccounts: (params) => {
      const config = accountConfigSchema.extend({ filters: z.array(filterSchema).nullish(), withContext: z.boolean().nullish() });
      const [programId, cfg] = parseParams(z.tuple([pubkeySchema, config.nullish()]), params);
      const list = programAccounts(ctx, programId)
        .filter((a) => matchesFilters(a.state, cfg?.filters ?? []))
        .map((a) => ({ pubkey: a.address, account: renderAccount(ctx, a.address, a.state, cfg) }));
      return cfg?.withContext === true ? withContext(ctx, list) : list;
    },
    getTokenAccountBalance: (params) => {
      const [address] = parseParams(z.tuple([pubkeySchema, readConfigSchema.nullish()]), params);
      const { amount, decimals } = tokenAccountOrThrow(ctx, address);
      return withContext(ctx, uiTokenAmount(amount, decimals));
    },
    getTokenSupply: (params) => {
      const [mint] = parseParams(z.tuple([pubkeySchema, readConfigSchema.nullish()]), params);
      const parsed = parseMint(mint, read(mint));
      if (parsed === null) throw invalidParams('Invalid param: not a Token mint');
      return withContext(ctx, uiTokenAmount(parsed.supply, parsed.decimals));
    },
    getTokenAccountsByOwner: (params) => {
      const filter = z.union([z.object({ mint: pubkeySchema }), z.object({ programId: pubkeySchema })]);
      const [owner, which, config] = parseParams(z.tuple([pubkeySchema, filter, accountConfigSchema.nullish()]), params);
      let programs = [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID];
      if ('programId' in which) {
        if (!programs.includes(which.programId)) throw invalidParams(`Invalid param: unrecognized Token program id`);
        programs = [which.programId];
      } else {
        const mintState = read(which.mint);
        if (parseMint(which.mint, mintState) === null || mintState === null) throw invalidParams('Invalid param: could not find mint');
        programs = [mintState.owner];
      }
      const list = programs
        .flatMap((p) => programAccounts(ctx, p))
        .filter((a) => {
          const token = parseTokenAccount(a.address, a.state);
          return token !== null && token.owner.toBase58() === owner && ('mint' in which ? token.mint.toBase58() === which.mint : true);
        });
      return withContext(
        ctx,
        list.map((a) => ({ pubkey: a.address, account: renderAccount(ctx, a.address, a.state, config) })),
      );
    },
    getMinimumBalanceForRentExemption: (params) => {
      const [dataLength] = parseParams(z.tuple([z.number().int().nonnegative(), readConfigSchema.nullish()]), params);
      if (dataLength > 10 * 1024 * 1024) throw new RpcError(RPC_ERROR.INVALID_PARAMS, 'Invalid params: data length exceeds 10 MiB');
      return ctx.engine.svm.minimumBalanceForRentExemption(BigInt(dataLength));
    },
  };
}
