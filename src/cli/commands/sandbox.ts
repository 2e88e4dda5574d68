/**
 * `ballast sandbox`: starts the local Relay sandbox (anvil chains, depository, solver, API) and prints its API
 * URL, chain RPC URLs and funded dev keys, then runs until SIGINT/SIGTERM.
 */
import type { Command } from 'commander';
import { startSandbox } from '../../sandbox/startSandbox.ts';
import { sandboxEnv } from '../sandboxEnv.ts';
import { table } from '../format.ts';

/** Registers the command. */
export function registerSandbox(program: Command, out: (s: string) => void): void {
  program
    .command('sandbox')
    .description('start the local Relay sandbox and print its URLs and funded keys (Ctrl-C to stop)')
    .option('--port <port>', 'API port (default: a free port)', '0')
    .option('--store <file>', 'store path to print in the suggested environment', './ballast-sandbox.db')
    .action(async (flags: { port: string; store: string }) => {
      const sandbox = await startSandbox({ port: Number(flags.port) });
      out(`Relay sandbox API: ${sandbox.apiUrl}`);
      out(table(['chain', 'chainId', 'rpcUrl', 'depository', 'USDC'], sandbox.chains.map((c) => [c.def.slug, c.def.chainId, c.rpcUrl, c.depository, c.usdc])));
      const a = sandbox.accounts;
      out(table(['role', 'address', 'private key (anvil dev key — never use on a real chain)'], [
        ['treasury', a.treasury.address, a.treasury.privateKey],
        ['solver', a.solver.address, a.solver.privateKey],
      ]));
      out('Run Ballast against it with config/demo.yaml and these variables:');
      for (const [k, v] of Object.entries(sandboxEnv(sandbox, flags.store))) out(`export ${k}=${v}`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await sandbox.stop();
    });
}
