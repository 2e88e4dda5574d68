/**
 * A Ballast treasury on the sandbox with Solana and Bitcoin besides the EVM chains: the sandbox's funded Solana
 * and Bitcoin treasuries as `treasury_sol` / `treasury_btc`, the chains `solana` and `bitcoin`, and bands built
 * from the balances read at the start so that exactly one transfer of `amount` is needed, from `from` to `to`.
 */
import { erc20Abi, formatUnits, type Address } from 'viem';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { ballastOnSandbox, type ConfigOverrides } from '../helpers/sandboxBallast.ts';

/** Where an asset is held in these tests. */
export type Place = 'alpha' | 'solana' | 'bitcoin';

/** Wallets and chains of the sandbox's Solana and Bitcoin treasuries, as config entries. */
export const NON_EVM_CONFIG: Pick<ConfigOverrides, 'wallets' | 'chains'> = {
  wallets: {
    treasury_sol: { vm: 'svm', privateKey: '${SANDBOX_SOLANA_TREASURY_KEY}' },
    treasury_btc: { vm: 'bvm', privateKey: '${SANDBOX_BITCOIN_TREASURY_WIF}', network: 'regtest' },
  },
  chains: {
    solana: { chainId: 792703809, vm: 'svm', rpcUrl: '${SANDBOX_SOLANA_RPC}', wsUrl: '${SANDBOX_SOLANA_WS}', commitment: 'confirmed' },
    // The sandbox mines a block about every second and quotes ten-minute deadlines: a 300 s lead stands in for
    // mainnet's default (600 s a block × confirmations + 600 s), which the sandbox's deadlines could never meet.
    bitcoin: { chainId: 8253038, vm: 'bvm', esploraUrl: '${SANDBOX_ESPLORA_URL}', network: 'regtest', minerFeeReserveSats: '100000' },
  },
};

/** One holding: the config entry and how to read its balance from the sandbox (base units). */
interface Holding {
  entry: { chain: Place; currency: string; wallet: string };
  decimals: number;
  balance(): Promise<bigint>;
}

/** The treasury's holding of `asset` (USDC or BTC) at `place`. */
export function holding(s: Sandbox, asset: 'USDC' | 'BTC', place: Place): Holding {
  const alpha = s.chains.find((c) => c.def.slug === 'alpha')!;
  if (place === 'alpha') {
    const token = (asset === 'USDC' ? alpha.usdc : alpha.wbtc) as Address;
    return {
      entry: { chain: 'alpha', currency: token, wallet: 'treasury' },
      decimals: asset === 'USDC' ? 6 : 8,
      balance: () =>
        alpha.publicClient.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [s.accounts.treasury.address] }),
    };
  }
  if (place === 'solana') {
    const sol = s.solana!;
    if (asset !== 'USDC') throw new Error('these tests hold only USDC on Solana');
    return {
      entry: { chain: 'solana', currency: sol.usdcMint, wallet: 'treasury_sol' },
      decimals: 6,
      balance: async () => sol.node.tokenBalance(sol.treasury.address, sol.usdcMint),
    };
  }
  const btc = s.bitcoin!;
  return {
    entry: { chain: 'bitcoin', currency: 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', wallet: 'treasury_btc' },
    decimals: 8,
    balance: async () => btc.node.specBalance(btc.treasury.address),
  };
}

const whole = (base: bigint, decimals: number) => formatUnits(base, decimals);

/**
 * Wires Ballast with `asset` held at `from` and `to`, bands set so that `from` has a surplus of exactly `amount`
 * and `to` a deficit of at least `amount` (base units).
 *
 * @returns the Ballast wiring and the two holdings with their balances before
 */
export async function oneTransferTreasury(
  s: Sandbox,
  dir: string,
  opts: {
    asset: 'USDC' | 'BTC';
    from: Place;
    to: Place;
    amount: bigint;
    reserve?: bigint;
    /** Wallet entries replacing {@link NON_EVM_CONFIG}'s of the same name (e.g. a key in a key service). */
    wallets?: Record<string, unknown>;
    chains?: Record<string, unknown>;
    tracking?: Record<string, unknown>;
    /** More `policy:` keys, beside the transfer bounds set here. */
    policy?: Record<string, unknown>;
    /** The `withdrawals:` section. */
    withdrawals?: Record<string, unknown>;
  },
  wiring: { now?: () => number; store?: string } = {},
) {
  const from = holding(s, opts.asset, opts.from);
  const to = holding(s, opts.asset, opts.to);
  const [fromBefore, toBefore] = [await from.balance(), await to.balance()];
  // The Bitcoin adapter plans with the spendable balance: the Relay API's balance less the miner-fee reserve.
  const fromPlanned = fromBefore - (opts.reserve ?? 0n);
  const fromTarget = fromPlanned - opts.amount;
  const d = from.decimals;
  const overrides: ConfigOverrides = {
    ...NON_EVM_CONFIG,
    ...(opts.wallets ? { wallets: { ...NON_EVM_CONFIG.wallets, ...opts.wallets } } : {}),
    ...(opts.chains ? { chains: opts.chains } : {}),
    ...(opts.tracking ? { tracking: opts.tracking } : {}),
    ...(opts.withdrawals ? ({ withdrawals: opts.withdrawals } as ConfigOverrides) : {}), // a top-level key the helper passes through
    assets: {
      [opts.asset]: [
        { ...from.entry, min: '0', target: whole(fromTarget, d), max: whole(fromTarget, d) },
        {
          ...to.entry,
          min: whole(toBefore + opts.amount, to.decimals),
          target: whole(toBefore + opts.amount, to.decimals),
          max: whole(toBefore + 10n * opts.amount, to.decimals),
        },
      ],
    },
    policy: { minTransfer: whole(opts.amount / 10n, d), maxTransfer: whole(opts.amount * 10n, d), ...opts.policy },
  };
  const wired = ballastOnSandbox(s, dir, overrides, {}, wiring);
  return { ...wired, from, to, fromBefore, toBefore };
}
