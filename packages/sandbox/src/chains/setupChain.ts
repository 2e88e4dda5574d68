/**
 * Prepares one freshly started anvil chain for the sandbox: installs Multicall3 at its canonical address,
 * deploys the depository, the stablecoins "USDC" and "USDT" (Tether style), two router + approval proxy
 * pairs (the top-level `erc20Router`/`approvalProxy`, also listed as `v3.2`, and the `v3` group of GET /chains)
 * and a wrapped bitcoin "WBTC" (8 decimals) from the deployer at fixed nonces (so every contract lands at the
 * same address on every chain), mints USDC/USDT/WBTC and sets ETH balances per the preset.
 *
 * The chain's state right after the deployments (anvil's `anvil_dumpState`) is returned, and a later start of a chain
 * with the same id and contracts loads it (`anvil_loadState`) instead of deploying again: the same accounts, code,
 * storage and nonces, without eight signed deployments and their receipts.
 */
import {
  createTestClient,
  createWalletClient,
  http,
  type Address,
  type Chain,
  type Hash,
  type Hex,
  type HttpTransport,
  type PublicClient,
} from 'viem';
import { wholeToBaseUnits } from '@ballast/protocol/core/units.ts';
import {
  MULTICALL3_ADDRESS,
  SANDBOX_USDC_DECIMALS,
  SANDBOX_USDT_DECIMALS,
  SANDBOX_WBTC_DECIMALS,
  testStablecoinAbi,
  testTetherAbi,
  testTokenAbi,
} from '../contracts/abis.ts';
import type { SandboxArtifacts } from '../contracts/compile.ts';
import type { BalancePreset, BalanceRole, SandboxAccount, SandboxAccounts } from './localChains.ts';
import { LocalChainsError } from './localChainsError.ts';

/**
 * Deployer nonce of each sandbox contract (identical on every chain; the deployer must be unused when the chain
 * starts). The depository and USDC keep nonces 0 and 1; the approval proxies are built with the router deployed
 * just before them.
 */
export const DEPLOY_NONCES = {
  depository: 0,
  usdc: 1,
  usdt: 2,
  erc20Router: 3,
  approvalProxy: 4,
  v3Erc20Router: 5,
  v3ApprovalProxy: 6,
  wbtc: 7,
} as const;
/** Deployer nonce of the `RelayDepository` deployment (identical on every chain). */
export const DEPOSITORY_DEPLOY_NONCE = DEPLOY_NONCES.depository;
/** Deployer nonce of the `TestStablecoin` deployment (identical on every chain). */
export const USDC_DEPLOY_NONCE = DEPLOY_NONCES.usdc;
/** First deployer nonce after the deployments (mints start here). */
const FIRST_FREE_NONCE = DEPLOY_NONCES.wbtc + 1;

/** Addresses the sandbox contracts land at on every chain (see `sandboxContractAddresses`). */
export interface SandboxContractAddresses {
  depository: Address;
  usdc: Address;
  usdt: Address;
  multicall3: Address;
  erc20Router: Address;
  approvalProxy: Address;
  v3: { erc20Router: Address; approvalProxy: Address };
  /** Wrapped bitcoin test token "WBTC", 8 decimals (`TestToken.sol`); minter = the deployer. */
  wbtc: Address;
}

/** Inputs of {@link setupChain}. */
export interface SetupChainParameters {
  /** Protocol chain slug (names the preset entry in errors). */
  slug: string;
  /** viem chain definition of the node (id, RPC URL, multicall3). */
  chain: Chain;
  publicClient: PublicClient<HttpTransport, Chain>;
  artifacts: SandboxArtifacts;
  accounts: SandboxAccounts;
  /** Balances for this chain only (one entry of a {@link BalancePreset}); may be empty. */
  balances: BalancePreset[string];
  /** Addresses the deployments must land at (derived from the deployer address and nonces). */
  expected: SandboxContractAddresses;
  /** Switch to interval mining with this period (seconds) once set up; omitted = keep automine. */
  blockTimeSec?: number;
  /**
   * State a chain with the same id and `artifacts` had right after the deployments (what an earlier setupChain
   * returned): loaded instead of deploying. The contracts are checked at their addresses either way.
   */
  deployedState?: Hex;
}

const ETH_DECIMALS = 18;

/** Maps a preset role to its account. */
function accountOf(accounts: SandboxAccounts, role: BalanceRole): SandboxAccount {
  switch (role) {
    case 'treasury':
      return accounts.treasury;
    case 'solver':
      return accounts.solver;
    case 'extra0':
    case 'extra1': {
      const account = accounts.extra[role === 'extra0' ? 0 : 1];
      if (account === undefined) throw new LocalChainsError('LOCAL_CHAINS_BAD_PRESET', `no account for balance role ${role}`);
      return account;
    }
  }
}

/**
 * Deploys and funds one chain (see the module comment). Transactions are sent with explicit nonces so the
 * layout is identical on every chain.
 *
 * @throws LocalChainsError `LOCAL_CHAIN_SETUP_FAILED` when a transaction reverts or a contract lands at an
 *   unexpected address (the deployer had already sent transactions); `LOCAL_CHAINS_BAD_PRESET` when a
 *   balance is not a whole-unit decimal string
 */
export async function setupChain(params: SetupChainParameters): Promise<Hex> {
  const { chain, publicClient, artifacts, accounts, expected } = params;
  const transport = http(chain.rpcUrls.default.http[0]);
  const testClient = createTestClient({ chain, mode: 'anvil', transport });
  const deployer = createWalletClient({ chain, account: accounts.deployer, transport });

  const waitMined = async (hashes: readonly Hash[]) => {
    for (const hash of hashes) {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      if (receipt.status !== 'success') {
        throw new LocalChainsError('LOCAL_CHAIN_SETUP_FAILED', `setup transaction ${hash} reverted on ${params.slug} (chain ${chain.id})`);
      }
    }
  };
  let deployedState = params.deployedState;
  if (deployedState === undefined) {
    await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: artifacts.Multicall3.deployedBytecode });
    const deployments: Hash[] = [];
    const deploy = async (name: keyof SandboxArtifacts, args: readonly unknown[], nonce: number) => {
      const artifact = artifacts[name];
      deployments.push(await deployer.deployContract({ abi: artifact.abi, bytecode: artifact.bytecode, args, nonce }));
    };
    await deploy('RelayDepository', [accounts.solver.address, accounts.solver.address], DEPLOY_NONCES.depository); // owner, allocator
    await deploy('TestStablecoin', [accounts.deployer.address], DEPLOY_NONCES.usdc);
    await deploy('TestTetherToken', [accounts.deployer.address], DEPLOY_NONCES.usdt);
    await deploy('RelayRouter', [], DEPLOY_NONCES.erc20Router);
    await deploy('ApprovalProxy', [expected.erc20Router], DEPLOY_NONCES.approvalProxy);
    await deploy('RelayRouter', [], DEPLOY_NONCES.v3Erc20Router);
    await deploy('ApprovalProxy', [expected.v3.erc20Router], DEPLOY_NONCES.v3ApprovalProxy);
    await deploy('TestToken', ['Wrapped BTC', 'WBTC', SANDBOX_WBTC_DECIMALS, accounts.deployer.address], DEPLOY_NONCES.wbtc);
    await waitMined(deployments);
    deployedState = await testClient.dumpState();
  } else {
    await testClient.loadState({ state: deployedState });
  }

  const hashes: Hash[] = [];
  let nonce = FIRST_FREE_NONCE;
  const ethWrites: Promise<void>[] = [];
  const tokens = [
    { field: 'usdc', address: expected.usdc, decimals: SANDBOX_USDC_DECIMALS, abi: testStablecoinAbi },
    { field: 'usdt', address: expected.usdt, decimals: SANDBOX_USDT_DECIMALS, abi: testTetherAbi },
    { field: 'wbtc', address: expected.wbtc, decimals: SANDBOX_WBTC_DECIMALS, abi: testTokenAbi },
  ] as const;
  for (const [role, amounts] of Object.entries(params.balances ?? {})) {
    if (amounts === undefined) continue;
    const account = accountOf(accounts, role as BalanceRole); // keys validated by startLocalChains
    for (const token of tokens) {
      const whole = amounts[token.field];
      if (whole === undefined) continue;
      const amount = toBaseUnits(whole, token.decimals, params.slug, role, token.field);
      if (amount === 0n) continue;
      hashes.push(
        await deployer.writeContract({
          address: token.address,
          abi: token.abi,
          functionName: 'mint',
          args: [account.address, amount],
          nonce: nonce++,
          gas: 100_000n, // fixed: skips estimation, which would fail before the token deployment is mined
        }),
      );
    }
    if (amounts.eth !== undefined) {
      const value = toBaseUnits(amounts.eth, ETH_DECIMALS, params.slug, role, 'eth');
      ethWrites.push(testClient.setBalance({ address: account.address, value }));
    }
  }
  await Promise.all(ethWrites);
  await waitMined(hashes);
  const deployed = [
    expected.depository,
    expected.usdc,
    expected.usdt,
    expected.erc20Router,
    expected.approvalProxy,
    expected.v3.erc20Router,
    expected.v3.approvalProxy,
    expected.wbtc,
  ];
  const codes = await Promise.all(deployed.map((address) => publicClient.getCode({ address })));
  const missing = deployed.filter((_, i) => codes[i] === undefined || codes[i] === '0x');
  if (missing.length > 0) {
    throw new LocalChainsError(
      'LOCAL_CHAIN_SETUP_FAILED',
      `contracts missing at ${missing.join(', ')} on ${params.slug}; the deployer must be unused when the chain starts`,
    );
  }
  if (params.blockTimeSec !== undefined) {
    await testClient.setAutomine(false);
    await testClient.setIntervalMining({ interval: params.blockTimeSec });
  }
  return deployedState;
}

function toBaseUnits(amount: string, decimals: number, slug: string, role: string, field: string): bigint {
  try {
    return wholeToBaseUnits(amount, decimals);
  } catch (error) {
    throw new LocalChainsError(
      'LOCAL_CHAINS_BAD_PRESET',
      `balances.${slug}.${role}.${field}: ${JSON.stringify(amount)} is not a whole-unit amount with at most ${decimals} decimals`,
      { cause: error },
    );
  }
}
