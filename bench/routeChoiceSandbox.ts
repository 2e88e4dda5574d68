/**
 * The sandbox of bench/routeChoice.ts in a process of its own (four chains: alpha, beta, gamma, delta), so the
 * candidate quotes Ballast sends in parallel are served elsewhere, as the real API's are, instead of sharing the
 * benchmark's event loop. Prints one JSON line with the API URL and the configuration variables
 * (`sandboxEnv`), then runs until its parent closes stdin or kills it.
 */
import { sandboxEnv } from '../packages/ballast/src/cli/sandboxEnv.ts';
import { DEFAULT_LOCAL_CHAINS, DEMO_BALANCES } from '../packages/sandbox/src/chains/localChains.ts';
import { startSandbox } from '../packages/sandbox/src/startSandbox.ts';

const treasury = { usdc: '90000', eth: '10' };
const solver = { usdc: '1000000', eth: '100' };
const sandbox = await startSandbox({
  chains: [
    ...DEFAULT_LOCAL_CHAINS,
    { slug: 'gamma', displayName: 'Gamma', chainId: 31003 },
    { slug: 'delta', displayName: 'Delta', chainId: 31004 },
  ],
  balances: { ...DEMO_BALANCES, gamma: { treasury, solver }, delta: { treasury: { ...treasury, usdc: '95000' }, solver } },
});
process.stdout.write(`${JSON.stringify({ apiUrl: sandbox.apiUrl, env: sandboxEnv(sandbox, process.argv[2] ?? 'unused.db') })}\n`);
const stop = () => void sandbox.stop().then(() => process.exit(0));
process.stdin.on('end', stop).resume();
process.on('SIGTERM', stop);
