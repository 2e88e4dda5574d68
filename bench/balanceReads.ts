/**
 * Balance reads per cycle for 2 / 5 / 20 chains × 1 / 5 / 20 / 50 tokens, on anvil: batched (the EVM adapter's
 * `readBalances`: chain id check, head block, then every balance in one Multicall3 `aggregate3` eth_call) vs
 * naive (the same checks, then one `balanceOf` eth_call per token). Chains are read in parallel, as a cycle does.
 *
 * Every chain is a counting JSON-RPC proxy (bench/rpcCounter.ts) in front of one anvil node holding 50 ERC-20
 * tokens (the sandbox's USDC, USDT and WBTC plus 47 more `TestToken`s), so round trips are counted per chain
 * and 20 chains need not be 20 anvil processes. Targets: one balance eth_call per chain whatever the number of
 * tokens (the adapter turns off viem's 1,024-byte multicall chunking, so 50 tokens are one call too); round trips per
 * chain at 20 tokens equal to those at 1; batched at most half the naive wall time at
 * 20 chains × 50 tokens.
 */
import { createWalletClient, erc20Abi, http, type Address, type Hash, type PublicClient } from 'viem';
import { createEvmAdapter } from '../packages/ballast/src/chains/evm/adapter.ts';
import { createEvmPublicClient } from '../packages/ballast/src/chains/evm/client.ts';
import { getArtifacts } from '../packages/sandbox/src/contracts/compile.ts';
import { DEFAULT_LOCAL_CHAINS, startLocalChains, type LocalChains } from '../packages/sandbox/src/chains/localChains.ts';
import { median, timeMs, type BenchRow } from './lib.ts';
import { startRpcCounter, type RpcCounter } from './rpcCounter.ts';

const CHAIN_COUNTS = [2, 5, 20] as const;
const TOKEN_COUNTS = [1, 5, 20, 50] as const;
const CYCLES = 5;

/** One measured cell of the grid: per-chain averages and the median wall time of one cycle. */
interface Cell {
  chains: number;
  tokens: number;
  mode: 'batched' | 'naive';
  roundTripsPerChain: number;
  balanceCallsPerChain: number;
  ms: number;
}

/** Deploys `count` extra 18-decimal test tokens; returns their addresses. */
async function deployTokens(local: LocalChains, count: number): Promise<Address[]> {
  const c = local.chains[0]!;
  const artifacts = await getArtifacts();
  const wallet = createWalletClient({ chain: c.chain, account: local.accounts.deployer, transport: http(c.rpcUrl) });
  let nonce = await c.publicClient.getTransactionCount({ address: local.accounts.deployer.address });
  const hashes: Hash[] = [];
  for (let i = 0; i < count; i++) {
    hashes.push(
      await wallet.deployContract({
        abi: artifacts.TestToken.abi,
        bytecode: artifacts.TestToken.bytecode,
        args: [`Bench ${i}`, `B${i}`, 18, local.accounts.deployer.address],
        nonce: nonce++,
      }),
    );
  }
  const receipts = await Promise.all(hashes.map((hash) => c.publicClient.waitForTransactionReceipt({ hash })));
  return receipts.map((r) => r.contractAddress!); // contract creations carry their address
}

/** The naive read of one chain: the adapter's checks, then one balanceOf eth_call per token at the head. */
async function naiveRead(client: PublicClient, chainId: number, owner: Address, tokens: readonly Address[]): Promise<bigint[]> {
  if ((await client.getChainId()) !== chainId) throw new Error('wrong chain id');
  const blockNumber = await client.getBlockNumber({ cacheTime: 0 });
  return Promise.all(
    tokens.map((address) => client.readContract({ address, abi: erc20Abi, functionName: 'balanceOf', args: [owner], blockNumber })),
  );
}

/**
 * Measures the grid.
 *
 * @returns the printed cells and the rows checked against targets
 */
export async function balanceReadRows(): Promise<{ rows: BenchRow[]; cells: Cell[] }> {
  const local = await startLocalChains({ chains: [DEFAULT_LOCAL_CHAINS[0]!] });
  const proxies: RpcCounter[] = [];
  const cells: Cell[] = [];
  try {
    const node = local.chains[0]!;
    const tokens = [node.usdc, node.usdt, node.wbtc, ...(await deployTokens(local, 47))];
    const owner = local.accounts.treasury.address;
    const chainId = node.def.chainId;
    for (let i = 0; i < Math.max(...CHAIN_COUNTS); i++) proxies.push(await startRpcCounter(node.rpcUrl));
    for (const chains of CHAIN_COUNTS) {
      for (const tokenCount of TOKEN_COUNTS) {
        const list = tokens.slice(0, tokenCount);
        const used = proxies.slice(0, chains);
        const adapters = used.map((p, i) => {
          const client = createEvmPublicClient({ name: `bench${i}`, chainId, rpcUrl: p.url });
          return createEvmAdapter({ name: `bench${i}`, chainId, client, accounts: new Map(), confirmations: 1 });
        });
        const naiveClients = used.map((p, i) => createEvmPublicClient({ name: `naive${i}`, chainId, rpcUrl: p.url }));
        const holdings = list.map((currency) => ({ address: owner, currency }));
        const modes = {
          batched: () =>
            Promise.all(
              adapters.map(async (a) => {
                const read = await a.readBalances(holdings);
                if (!read.ok || read.amounts.some((x) => x.amount === null))
                  throw new Error(`batched read failed: ${read.ok ? 'a token' : read.error}`);
              }),
            ),
          naive: () => Promise.all(naiveClients.map((c) => naiveRead(c, chainId, owner, list))),
        };
        for (const mode of ['batched', 'naive'] as const) {
          await modes[mode](); // warm-up (connections, viem caches)
          for (const p of used) p.reset();
          const samples: number[] = [];
          for (let k = 0; k < CYCLES; k++) samples.push(await timeMs(modes[mode]));
          const trips = used.reduce((n, p) => n + p.roundTrips, 0) / chains / CYCLES;
          const calls = used.reduce((n, p) => n + (p.methods.get('eth_call') ?? 0), 0) / chains / CYCLES;
          cells.push({ chains, tokens: tokenCount, mode, roundTripsPerChain: trips, balanceCallsPerChain: calls, ms: median(samples) });
        }
        const b = cells.at(-2)!;
        const n = cells.at(-1)!;
        console.log(
          `balances ${String(chains).padStart(2)} chains × ${String(tokenCount).padStart(2)} tokens: ` +
            `batched ${b.roundTripsPerChain} round trips/chain (${b.balanceCallsPerChain} eth_call) ${b.ms.toFixed(1)} ms; ` +
            `naive ${n.roundTripsPerChain} round trips/chain (${n.balanceCallsPerChain} eth_call) ${n.ms.toFixed(1)} ms`,
        );
      }
    }
  } finally {
    await Promise.all(proxies.map((p) => p.close()));
    await local.stop();
  }
  const cell = (chains: number, tokens: number, mode: Cell['mode']) =>
    cells.find((c) => c.chains === chains && c.tokens === tokens && c.mode === mode)!;
  const rows: BenchRow[] = [
    {
      label: 'balance eth_calls per chain, 20 tokens (batched)',
      value: cell(20, 20, 'batched').balanceCallsPerChain,
      limit: 1,
      unit: 'calls',
      note: `naive: ${cell(20, 20, 'naive').balanceCallsPerChain}`,
    },
    {
      label: 'balance eth_calls per chain, 50 tokens (batched)',
      value: cell(20, 50, 'batched').balanceCallsPerChain,
      limit: 1,
      unit: 'calls',
      note: `naive: ${cell(20, 50, 'naive').balanceCallsPerChain}`,
    },
    {
      label: 'round trips per chain, 20 tokens / 1 token (batched)',
      value: cell(20, 20, 'batched').roundTripsPerChain / cell(20, 1, 'batched').roundTripsPerChain,
      limit: 1,
      unit: '×',
      note:
        `${cell(20, 20, 'batched').roundTripsPerChain} round trips per chain per cycle (eth_chainId, eth_blockNumber, one eth_call); ` +
        `at 50 tokens ${cell(20, 50, 'batched').roundTripsPerChain}`,
    },
    {
      label: 'balance read 20 chains × 50 tokens: batched / naive',
      value: cell(20, 50, 'batched').ms / cell(20, 50, 'naive').ms,
      limit: 0.5,
      unit: '×',
      note: `${cell(20, 50, 'batched').ms.toFixed(1)} ms vs ${cell(20, 50, 'naive').ms.toFixed(1)} ms`,
    },
  ];
  return { rows, cells };
}
