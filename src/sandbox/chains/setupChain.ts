/**
 * Prepares one freshly started anvil chain for the sandbox: installs Multicall3 at its canonical address,
 * deploys the depository and the stablecoin from the deployer at fixed nonces (so both land at the same
 * address on every chain), mints USDC and sets ETH balances per the preset.
 */
import {
  createTestClient,
  createWalletClient,
  http,
  type Address,
  type Chain,
  type Hash,
  type HttpTransport,
  type PublicClient,
} from 'viem';
import { wholeToBaseUnits } from '../../core/units.ts';
import { MULTICALL3_ADDRESS, SANDBOX_USDC_DECIMALS, testStablecoinAbi } from '../contracts/abis.ts';
import type { SandboxArtifacts } from '../contracts/compile.ts';
import type { BalancePreset, BalanceRole, SandboxAccount, SandboxAccounts } from './localChains.ts';
import { LocalChainsError } from './localChainsError.ts';

/** Deployer nonce of the `RelayDepository` deployment (identical on every chain). */
export const DEPOSITORY_DEPLOY_NONCE = 0;
/** Deployer nonce of the `TestStablecoin` deployment (identical on every chain). */
export const USDC_DEPLOY_NONCE = 1;

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
  expected: { depository: Address; usdc: Address };
  /** Switch to interval mining with this period (seconds) once set up; omitted = keep automine. */
  blockTimeSec?: number;
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
export async function setupChain(params: SetupChainParameters): Promise<void> {
  const { chain, publicClient, artifacts, accounts, expected } = params;
  const transport = http(chain.rpcUrls.default.http[0]);
  const testClient = createTestClient({ chain, mode: 'anvil', transport });
  const deployer = createWalletClient({ chain, account: accounts.deployer, transport });

  await testClient.setCode({ address: MULTICALL3_ADDRESS, bytecode: artifacts.Multicall3.deployedBytecode });

  const hashes: Hash[] = [];
  hashes.push(
    await deployer.deployContract({
      abi: artifacts.RelayDepository.abi,
      bytecode: artifacts.RelayDepository.bytecode,
      args: [accounts.solver.address],
      nonce: DEPOSITORY_DEPLOY_NONCE,
    }),
  );
  hashes.push(
    await deployer.deployContract({
      abi: artifacts.TestStablecoin.abi,
      bytecode: artifacts.TestStablecoin.bytecode,
      args: [accounts.deployer.address],
      nonce: USDC_DEPLOY_NONCE,
    }),
  );

  let nonce = USDC_DEPLOY_NONCE + 1;
  const ethWrites: Promise<void>[] = [];
  for (const [role, amounts] of Object.entries(params.balances ?? {})) {
    if (amounts === undefined) continue;
    const account = accountOf(accounts, role as BalanceRole); // keys validated by startLocalChains
    if (amounts.usdc !== undefined) {
      const amount = toBaseUnits(amounts.usdc, SANDBOX_USDC_DECIMALS, params.slug, role, 'usdc');
      if (amount > 0n) {
        hashes.push(
          await deployer.writeContract({
            address: expected.usdc,
            abi: testStablecoinAbi,
            functionName: 'mint',
            args: [account.address, amount],
            nonce: nonce++,
            gas: 100_000n, // fixed: skips estimation, which would fail before the token deployment is mined
          }),
        );
      }
    }
    if (amounts.eth !== undefined) {
      const value = toBaseUnits(amounts.eth, ETH_DECIMALS, params.slug, role, 'eth');
      ethWrites.push(testClient.setBalance({ address: account.address, value }));
    }
  }
  await Promise.all(ethWrites);

  for (const hash of hashes) {
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') {
      throw new LocalChainsError('LOCAL_CHAIN_SETUP_FAILED', `setup transaction ${hash} reverted on ${params.slug} (chain ${chain.id})`);
    }
  }
  const [depositoryCode, usdcCode] = await Promise.all([
    publicClient.getCode({ address: expected.depository }),
    publicClient.getCode({ address: expected.usdc }),
  ]);
  if (depositoryCode === undefined || depositoryCode === '0x' || usdcCode === undefined || usdcCode === '0x') {
    throw new LocalChainsError(
      'LOCAL_CHAIN_SETUP_FAILED',
      `contracts missing at ${expected.depository} / ${expected.usdc} on ${params.slug}; the deployer must be unused when the chain starts`,
    );
  }
  if (params.blockTimeSec !== undefined) {
    await testClient.setAutomine(false);
    await testClient.setIntervalMining({ interval: params.blockTimeSec });
  }
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
