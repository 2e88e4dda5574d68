/**
 * The need every fault case starts from, on a sandbox shared by the cases of a file: the treasury holds
 * 70 000 USDC on alpha (band 40 000–60 000) and 10 000 USDC on beta (band 20 000–45 000), the bands of
 * config/demo.yaml, so one transfer of 20 000 alpha → beta (an approve, then a deposit) brings both into band.
 */
import { createWalletClient, erc20Abi, http, type Address } from 'viem';
import type { BalancePreset } from '../../../../packages/sandbox/src/chains/localChains.ts';
import { testStablecoinAbi } from '../../../../packages/sandbox/src/contracts/abis.ts';
import type { Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import { usdcBalance } from '../../helpers/sandboxBallast.ts';

/** One USDC in base units (6 decimals). */
export const USDC = 1_000_000n;
/** The treasury's USDC on alpha at the start of a case, base units. */
export const ALPHA_START = 70_000n * USDC;
/** The treasury's USDC on beta at the start of a case, base units. */
export const BETA_START = 10_000n * USDC;
/** The amount one cycle moves alpha → beta, base units. */
export const NEED = 20_000n * USDC;

/** The [min, max] bands of config/demo.yaml, base units. */
export const BANDS = {
  alpha: { min: 40_000n * USDC, max: 60_000n * USDC },
  beta: { min: 20_000n * USDC, max: 45_000n * USDC },
} as const;

const SOLVER_FUNDS = { usdc: '1000000', usdt: '1000000', eth: '100' };

/** Initial sandbox balances: the start of a case (see {@link ALPHA_START}, {@link BETA_START}), a funded solver. */
export const NEED_BALANCES: BalancePreset = {
  alpha: { treasury: { usdc: '70000', eth: '10' }, solver: SOLVER_FUNDS },
  beta: { treasury: { usdc: '10000', eth: '10' }, solver: SOLVER_FUNDS },
};

/** The treasury's USDC on both chains, base units. */
export interface TreasuryBalances {
  alpha: bigint;
  beta: bigint;
}

/** Reads the treasury's USDC on alpha and beta. */
export async function readTreasury(s: Sandbox): Promise<TreasuryBalances> {
  const [alpha, beta] = await Promise.all([usdcBalance(s, 'alpha'), usdcBalance(s, 'beta')]);
  return { alpha, beta };
}

/** Whether every target is within its [min, max] band. */
export function inBand(b: TreasuryBalances): boolean {
  return b.alpha >= BANDS.alpha.min && b.alpha <= BANDS.alpha.max && b.beta >= BANDS.beta.min && b.beta <= BANDS.beta.max;
}

/** Where a case starts: balances, and the block of each chain after which its deposits and fills are counted. */
export interface CaseStart extends TreasuryBalances {
  alphaBlock: bigint;
  betaBlock: bigint;
}

/** A sandbox chain by slug. */
export function chainOf(s: Sandbox, slug: string) {
  const chain = s.chains.find((c) => c.def.slug === slug);
  if (!chain) throw new Error(`the sandbox has no chain ${slug}`);
  return chain;
}

/** Sets the treasury's USDC on `slug` to `amount` (base units): the deployer mints, or the treasury burns to it. */
export async function setUsdc(s: Sandbox, slug: string, amount: bigint): Promise<void> {
  const chain = chainOf(s, slug);
  const now = await usdcBalance(s, slug);
  if (now === amount) return;
  const transport = http(chain.rpcUrl);
  let hash;
  if (now < amount) {
    const minter = createWalletClient({ chain: chain.chain, account: s.accounts.deployer, transport });
    hash = await minter.writeContract({
      address: chain.usdc,
      abi: testStablecoinAbi,
      functionName: 'mint',
      args: [s.accounts.treasury.address, amount - now],
    });
  } else {
    const owner = createWalletClient({ chain: chain.chain, account: s.accounts.treasury, transport });
    const sink = s.accounts.extra[2]!.address; // a spare dev account no case uses
    hash = await owner.writeContract({ address: chain.usdc, abi: erc20Abi, functionName: 'transfer', args: [sink, now - amount] });
  }
  const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`resetting the treasury's USDC on ${slug} reverted`);
}

async function zeroAllowance(s: Sandbox): Promise<void> {
  const alpha = chainOf(s, 'alpha');
  const treasury = s.accounts.treasury.address;
  const allowance = await alpha.publicClient.readContract({
    address: alpha.usdc,
    abi: erc20Abi,
    functionName: 'allowance',
    args: [treasury, alpha.depository as Address],
  });
  if (allowance === 0n) return;
  const owner = createWalletClient({ chain: alpha.chain, account: s.accounts.treasury, transport: http(alpha.rpcUrl) });
  const hash = await owner.writeContract({ address: alpha.usdc, abi: erc20Abi, functionName: 'approve', args: [alpha.depository, 0n] });
  await alpha.publicClient.waitForTransactionReceipt({ hash });
}

/**
 * Puts the treasury back at the start of a case: 70 000 USDC on alpha, 10 000 on beta (minted by the token's
 * owner, or moved to a spare account), no allowance to alpha's depository (so every case sends an approve,
 * then a deposit), and no transaction of the treasury pending on alpha.
 *
 * @returns the balances and the blocks the case starts after
 * @throws Error when the treasury still has a pending transaction on alpha (a previous case left one)
 */
export async function freshNeed(s: Sandbox): Promise<CaseStart> {
  await noPendingTransaction(s);
  await setUsdc(s, 'alpha', ALPHA_START);
  await setUsdc(s, 'beta', BETA_START);
  await zeroAllowance(s);
  const balances = await startBalances(s);
  return { ...balances, ...(await caseBlocks(s)) };
}

/**
 * The treasury at its targets (50 000 USDC on alpha, 30 000 on beta: nothing to move) with no allowance to alpha's
 * depository, for a case whose daemons start before the need is made ({@link needWhileRunning}).
 */
export async function treasuryAtTargets(s: Sandbox): Promise<void> {
  await noPendingTransaction(s);
  await setUsdc(s, 'alpha', (BANDS.alpha.min + BANDS.alpha.max) / 2n);
  await setUsdc(s, 'beta', BETA_START + NEED);
  await zeroAllowance(s);
}

/**
 * The need of {@link freshNeed} made while daemons run on a treasury at its targets ({@link treasuryAtTargets}): the
 * blocks are taken first (a deposit made at once still counts), then beta falls to its start and only then alpha
 * rises to its own (no cycle sees half of the need as a need of its own).
 */
export async function needWhileRunning(s: Sandbox): Promise<CaseStart> {
  const blocks = await caseBlocks(s);
  await setUsdc(s, 'beta', BETA_START);
  await setUsdc(s, 'alpha', ALPHA_START);
  return { ...(await startBalances(s)), ...blocks };
}

/** @throws Error when the treasury still has a pending transaction on alpha (a previous case left one) */
async function noPendingTransaction(s: Sandbox): Promise<void> {
  const alpha = chainOf(s, 'alpha');
  const treasury = s.accounts.treasury.address;
  const [pending, latest] = await Promise.all([
    alpha.publicClient.getTransactionCount({ address: treasury, blockTag: 'pending' }),
    alpha.publicClient.getTransactionCount({ address: treasury, blockTag: 'latest' }),
  ]);
  if (pending !== latest) throw new Error(`the treasury has ${pending - latest} transaction(s) pending on alpha from a previous case`);
}

/** The treasury's balances, which must be the start of a case. */
async function startBalances(s: Sandbox): Promise<TreasuryBalances> {
  const balances = await readTreasury(s);
  if (balances.alpha !== ALPHA_START || balances.beta !== BETA_START) throw new Error('the treasury could not be reset');
  return balances;
}

/** The head of each chain: the case counts deposits and fills after these blocks. */
async function caseBlocks(s: Sandbox): Promise<{ alphaBlock: bigint; betaBlock: bigint }> {
  const [alphaBlock, betaBlock] = await Promise.all(
    (['alpha', 'beta'] as const).map((slug) => chainOf(s, slug).publicClient.getBlockNumber({ cacheTime: 0 })),
  );
  return { alphaBlock: alphaBlock!, betaBlock: betaBlock! };
}
