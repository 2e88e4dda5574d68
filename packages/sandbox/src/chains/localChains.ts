/**
 * The sandbox's local EVM chains: one anvil node per chain, each with the Relay depository, the test
 * stablecoins "USDC" and "USDT" (6 decimals; USDT behaves like Tether), two router + approval proxy pairs and
 * Multicall3, with the well-known anvil dev accounts funded per a preset.
 *
 * Layout (identical on every chain, so addresses can be shared across chains):
 * - accounts by anvil dev-key index: 0 treasury, 1 solver, 2 deployer, 3..5 extra;
 * - `RelayDepository` deployed by the deployer at nonce 0, owner = solver (sandbox-only withdraw for refunds),
 *   allocator = solver (signs the `execute` call requests of withdrawals);
 * - `TestStablecoin` ("USDC") at nonce 1 and `TestTetherToken` ("USDT") at nonce 2, owner (minter) = deployer;
 * - `RelayRouter` at nonce 3 + `ApprovalProxy` (over it) at nonce 4: GET /chains `contracts.erc20Router` /
 *   `contracts.approvalProxy`, the Router 3.2 pair (also listed as `contracts["v3.2"]`); a second pair at
 *   nonces 5 and 6: `contracts.v3.erc20Router` / `v3.approvalProxy`, the previous generation;
 * - `TestToken` ("WBTC", 8 decimals) at nonce 7;
 * - Multicall3 runtime code at the canonical 0xcA11bde05977b3631167028862bE2a173976CA11.
 */
import {
  createPublicClient,
  defineChain,
  getContractAddress,
  http,
  type Address,
  type Chain,
  type Hex,
  type HttpTransport,
  type PrivateKeyAccount,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { MULTICALL3_ADDRESS } from '../contracts/abis.ts';
import { getArtifacts, type SandboxArtifacts } from '../contracts/compile.ts';
import { startAnvil, type AnvilInstance } from './anvil.ts';
import { LocalChainsError } from './localChainsError.ts';
import { DEPLOY_NONCES, setupChain, type SandboxContractAddresses } from './setupChain.ts';

/** A local chain to start. `slug` is the protocol chain slug used in quotes and /chains. */
export interface LocalChainDef {
  slug: string;
  displayName: string;
  /** EIP-155 chain id. */
  chainId: number;
}

/** Default demo chains: alpha (chain id 31001) and beta (chain id 31002). */
export const DEFAULT_LOCAL_CHAINS: LocalChainDef[] = [
  { slug: 'alpha', displayName: 'Alpha', chainId: 31001 },
  { slug: 'beta', displayName: 'Beta', chainId: 31002 },
];

/** A running, deployed and funded local chain. */
export interface LocalEvmChain {
  def: LocalChainDef;
  /** JSON-RPC URL on 127.0.0.1. */
  rpcUrl: string;
  /** Process id of the anvil node. */
  pid: number;
  /** RelayDepository-compatible contract (same address on every chain); owner = the solver. */
  depository: Address;
  /** Test stablecoin "USDC", 6 decimals (same address on every chain); minter = the deployer. */
  usdc: Address;
  /**
   * Tether-style test token "USDT", 6 decimals (same address on every chain); minter = the deployer. `approve`
   * reverts on a non-zero → non-zero allowance change; `transfer`/`transferFrom`/`approve` return nothing.
   */
  usdt: Address;
  /**
   * Router that executes anyone's calls (GET /chains `contracts.erc20Router`, the Router 3.2 pair, also listed as
   * `contracts["v3.2"].erc20Router`): an allowance granted to it can be taken by any caller of its `multicall`.
   */
  erc20Router: Address;
  /** Approval proxy over {@link erc20Router} (GET /chains `contracts.approvalProxy` and `contracts["v3.2"].approvalProxy`). */
  approvalProxy: Address;
  /** The v3 pair (GET /chains `contracts.v3`, the generation before Router 3.2): another router and an approval proxy over it. */
  v3: { erc20Router: Address; approvalProxy: Address };
  /** Wrapped bitcoin test token "WBTC", 8 decimals (same address on every chain); minter = the deployer. */
  wbtc: Address;
  /** Multicall3-compatible contract at the canonical address 0xcA11bde05977b3631167028862bE2a173976CA11. */
  multicall3: Address;
  /** viem chain definition (id, name, ETH native currency, RPC URL, `contracts.multicall3`). */
  chain: Chain;
  /** viem public client over HTTP, pollingInterval 100 ms. */
  publicClient: PublicClient<HttpTransport, Chain>;
}

/** A viem local account that also exposes its private key (sandbox dev keys only; public knowledge). */
export type SandboxAccount = PrivateKeyAccount & { privateKey: Hex };

/** The sandbox's accounts: anvil's well-known dev keys by index (0 treasury, 1 solver, 2 deployer, 3..5 extra). */
export interface SandboxAccounts {
  treasury: SandboxAccount;
  solver: SandboxAccount;
  deployer: SandboxAccount;
  /** Three spare accounts (dev-key indexes 3, 4, 5); preset roles `extra0`, `extra1` are the first two. */
  extra: SandboxAccount[];
}

/** Account roles a {@link BalancePreset} can fund. */
export type BalanceRole = 'treasury' | 'solver' | 'extra0' | 'extra1';

/**
 * Initial balances: per chain slug, per account role, whole-unit decimal strings (`usdc: "90000"` = 90 000 USDC,
 * `usdt: "5"` = 5 USDT, `wbtc: "1.5"` = 1.5 WBTC, `eth: "10"` = 10 ETH). USDC, USDT and WBTC are minted; ETH is
 * set with `anvil_setBalance`. An account whose `eth` is not given keeps anvil's default 10 000 ETH; one whose
 * `usdc`/`usdt`/`wbtc` is not given holds 0.
 */
export type BalancePreset = Record<string, Partial<Record<BalanceRole, { usdc?: string; usdt?: string; wbtc?: string; eth?: string }>>>;

/**
 * Demo balances: treasury 90 000 USDC on alpha and 10 000 USDC on beta, 50 000 USDT, 1 WBTC and 10 ETH on each;
 * solver 1 000 000 USDC, 1 000 000 USDT, 100 WBTC and 100 ETH on each.
 */
export const DEMO_BALANCES: BalancePreset = {
  alpha: {
    treasury: { usdc: '90000', usdt: '50000', wbtc: '1', eth: '10' },
    solver: { usdc: '1000000', usdt: '1000000', wbtc: '100', eth: '100' },
  },
  beta: {
    treasury: { usdc: '10000', usdt: '50000', wbtc: '1', eth: '10' },
    solver: { usdc: '1000000', usdt: '1000000', wbtc: '100', eth: '100' },
  },
};

/** Options of {@link startLocalChains}. */
export interface StartLocalChainsOptions {
  /** Chains to start (default {@link DEFAULT_LOCAL_CHAINS}); slugs and chain ids must be unique. */
  chains?: LocalChainDef[];
  /**
   * Initial balances (default {@link DEMO_BALANCES}, applied to whichever of its chains are started).
   * A given preset must only name started chains and known roles.
   */
  balances?: BalancePreset;
  /** Switch every chain to interval mining with this period (seconds) after set-up; default automine. */
  blockTimeSec?: number;
}

/** Result of {@link startLocalChains}. */
export interface LocalChains {
  chains: LocalEvmChain[];
  accounts: SandboxAccounts;
  /** Stops every anvil node and waits for the processes to exit. Idempotent. */
  stop(): Promise<void>;
}

/** anvil's default dev private keys (mnemonic "test test test test test test test test test test test junk", m/44'/60'/0'/0/i), i = 0..5. */
const ANVIL_DEV_KEYS: readonly Hex[] = [
  '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
  '0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a',
  '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba',
];

const BALANCE_ROLES: readonly BalanceRole[] = ['treasury', 'solver', 'extra0', 'extra1'];

function devAccount(index: number): SandboxAccount {
  const privateKey = ANVIL_DEV_KEYS[index];
  if (privateKey === undefined) throw new RangeError(`no anvil dev key at index ${index}`);
  return Object.assign(privateKeyToAccount(privateKey), { privateKey });
}

/**
 * The sandbox accounts (anvil dev keys 0..5). Deterministic: the same addresses on every chain and every run.
 *
 * @returns treasury (key 0), solver (1), deployer (2) and extra (3, 4, 5)
 */
export function sandboxAccounts(): SandboxAccounts {
  return { treasury: devAccount(0), solver: devAccount(1), deployer: devAccount(2), extra: [devAccount(3), devAccount(4), devAccount(5)] };
}

/**
 * Addresses of the sandbox contracts, identical on every chain: derived (CREATE, deployer address + nonce)
 * from the deployer and the fixed deployment nonces (`DEPLOY_NONCES`); Multicall3 at its canonical address.
 */
export function sandboxContractAddresses(deployer: Address): SandboxContractAddresses {
  const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) });
  return {
    depository: at(DEPLOY_NONCES.depository),
    usdc: at(DEPLOY_NONCES.usdc),
    usdt: at(DEPLOY_NONCES.usdt),
    multicall3: MULTICALL3_ADDRESS,
    erc20Router: at(DEPLOY_NONCES.erc20Router),
    approvalProxy: at(DEPLOY_NONCES.approvalProxy),
    v3: { erc20Router: at(DEPLOY_NONCES.v3Erc20Router), approvalProxy: at(DEPLOY_NONCES.v3ApprovalProxy) },
    wbtc: at(DEPLOY_NONCES.wbtc),
  };
}

/**
 * viem chain definition for a local chain: id, display name, ETH (18 decimals) as native currency, the RPC
 * URL and `contracts.multicall3` at the canonical address (so viem `multicall` works unchanged).
 */
export function localViemChain(def: LocalChainDef, rpcUrl: string): Chain {
  return defineChain({
    id: def.chainId,
    name: def.displayName,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
    contracts: { multicall3: { address: MULTICALL3_ADDRESS } },
    testnet: true,
  });
}

function validate(chains: LocalChainDef[], balances: BalancePreset): void {
  if (chains.length === 0) throw new LocalChainsError('LOCAL_CHAINS_BAD_OPTIONS', 'chains: give at least one chain');
  const slugs = new Set<string>();
  const ids = new Set<number>();
  for (const c of chains) {
    if (slugs.has(c.slug))
      throw new LocalChainsError('LOCAL_CHAINS_BAD_OPTIONS', `chains: slug ${c.slug} appears twice; slugs must be unique`);
    if (ids.has(c.chainId))
      throw new LocalChainsError('LOCAL_CHAINS_BAD_OPTIONS', `chains: chain id ${c.chainId} appears twice; chain ids must be unique`);
    slugs.add(c.slug);
    ids.add(c.chainId);
  }
  for (const [slug, roles] of Object.entries(balances)) {
    if (!slugs.has(slug)) {
      throw new LocalChainsError('LOCAL_CHAINS_BAD_PRESET', `balances.${slug}: no such chain; started chains are ${[...slugs].join(', ')}`);
    }
    for (const role of Object.keys(roles)) {
      if (!(BALANCE_ROLES as readonly string[]).includes(role)) {
        throw new LocalChainsError(
          'LOCAL_CHAINS_BAD_PRESET',
          `balances.${slug}.${role}: unknown role; use one of ${BALANCE_ROLES.join(', ')}`,
        );
      }
    }
  }
}

/**
 * Each chain's state right after the deployments, per compiled contracts and chain id (setupChain.ts): later starts in
 * this process load it instead of deploying again.
 */
const deployedStates = new WeakMap<SandboxArtifacts, Map<number, Hex>>();

/**
 * Starts the sandbox's local EVM chains in parallel (one anvil node each), then on each: installs Multicall3,
 * deploys the depository (owner = solver), USDC, USDT, the two router + approval proxy pairs and WBTC from
 * the deployer at nonces 0..7 (or loads the state an earlier start in this process saved right after them), and funds
 * the accounts per `balances`. On any failure every node already started is stopped before the error is
 * rethrown. Nodes are killed on process exit if `stop()` is never called.
 *
 * @param opts chains (default alpha 31001 + beta 31002), balances (default {@link DEMO_BALANCES}), blockTimeSec
 * @returns the chains (RPC URL, pid, contract addresses, viem client), the accounts and `stop()`
 * @throws LocalChainsError on invalid options or a failed set-up; AnvilError when a node does not start;
 *   SandboxCompileError when the contracts do not compile
 * @example
 * const { chains, accounts, stop } = await startLocalChains();
 * const alpha = chains[0]; // alpha.usdc, alpha.usdt, alpha.depository, alpha.v3.erc20Router, alpha.publicClient ...
 * await stop();
 */
export async function startLocalChains(opts: StartLocalChainsOptions = {}): Promise<LocalChains> {
  const defs = opts.chains ?? DEFAULT_LOCAL_CHAINS;
  const balances = opts.balances ?? Object.fromEntries(Object.entries(DEMO_BALANCES).filter(([slug]) => defs.some((d) => d.slug === slug)));
  validate(defs, balances);

  const accounts = sandboxAccounts();
  const addresses = sandboxContractAddresses(accounts.deployer.address);
  // The contracts first: on a cache miss solc-js compiles synchronously for seconds, and an anvil started beside it
  // would see its start timeout fire before the event loop could read the node's "Listening on" line.
  const artifacts = await getArtifacts();
  const started = await Promise.allSettled(defs.map((def) => startAnvil({ chainId: def.chainId })));
  const nodes = started.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => (stopping ??= Promise.all(nodes.map((n) => n.stop())).then(() => undefined));

  try {
    const failed = started.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    const chains = defs.map((def, i): LocalEvmChain => {
      const node = nodes[i] as AnvilInstance; // every start fulfilled (checked above), so nodes[i] matches defs[i]
      const chain = localViemChain(def, node.rpcUrl);
      return {
        def,
        rpcUrl: node.rpcUrl,
        pid: node.pid,
        ...addresses,
        v3: { ...addresses.v3 },
        chain,
        publicClient: createPublicClient({ chain, transport: http(node.rpcUrl), pollingInterval: 100 }),
      };
    });
    const saved = deployedStates.get(artifacts) ?? new Map<number, Hex>();
    deployedStates.set(artifacts, saved);
    await Promise.all(
      chains.map(async (c) => {
        const deployedState = saved.get(c.def.chainId);
        const state = await setupChain({
          slug: c.def.slug,
          chain: c.chain,
          publicClient: c.publicClient,
          artifacts,
          accounts,
          balances: balances[c.def.slug] ?? {},
          expected: addresses,
          ...(opts.blockTimeSec !== undefined ? { blockTimeSec: opts.blockTimeSec } : {}),
          ...(deployedState !== undefined ? { deployedState } : {}),
        });
        saved.set(c.def.chainId, state);
      }),
    );
    return { chains, accounts, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
