/**
 * `ballast sandbox`: starts the local Relay sandbox (anvil chains, depository, solver, API) and prints its API
 * URL, chain RPC URLs and funded dev keys, then runs until SIGINT/SIGTERM. With `--write-fixtures DIR` it
 * instead saves one quote and the GET /chains document into DIR, prints the `verify-quote` command that checks
 * them and stops (unless `--keep-running`).
 */
import type { Command } from 'commander';
import { startSandbox, type Sandbox } from '../../sandbox/startSandbox.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { table } from '../format.ts';
import { sandboxEnv } from '../sandboxEnv.ts';
import { verifyCommandLine, writeSandboxFixtures } from '../sandboxFixtures.ts';

interface SandboxFlags {
  port: string;
  store: string;
  writeFixtures?: string;
  keepRunning?: boolean;
}

function printInfo(sandbox: Sandbox, store: string, out: (s: string) => void): void {
  out(table(['chain', 'chainId', 'rpcUrl', 'depository', 'USDC'], sandbox.chains.map((c) => [c.def.slug, c.def.chainId, c.rpcUrl, c.depository, c.usdc])));
  const a = sandbox.accounts;
  out(table(['role', 'address', 'private key (anvil dev key — never use on a real chain)'], [
    ['treasury', a.treasury.address, a.treasury.privateKey],
    ['solver', a.solver.address, a.solver.privateKey],
  ]));
  out('Run Ballast against it with config/demo.yaml and these variables:');
  for (const [k, v] of Object.entries(sandboxEnv(sandbox, store))) out(`export ${k}=${v}`);
}

/** Registers the command. */
export function registerSandbox(program: Command, out: (s: string) => void): void {
  program
    .command('sandbox')
    .description('start the local Relay sandbox and print its URLs and funded keys (Ctrl-C to stop); or save one quote to verify (--write-fixtures)')
    .option('--port <port>', 'API port (default: a free port)', '0')
    .option('--store <file>', 'store path to print in the suggested environment', './ballast-sandbox.db')
    .option(
      '--write-fixtures <dir>',
      'request one quote (100 USDC alpha → beta with protocol data, from and to the treasury dev wallet), write ' +
        '<dir>/quote.json and <dir>/chains.json, print the verify-quote command that checks them, then stop',
    )
    .option('--keep-running', 'with --write-fixtures: keep the sandbox running afterwards (Ctrl-C to stop)')
    .action(async (flags: SandboxFlags) => {
      if (flags.keepRunning && flags.writeFixtures === undefined) {
        throw new CliError('--keep-running only applies with --write-fixtures (without it the sandbox always keeps running)', EXIT_USAGE);
      }
      const sandbox = await startSandbox({ port: Number(flags.port) });
      try {
        out(`Relay sandbox API: ${sandbox.apiUrl}`);
        if (flags.writeFixtures !== undefined) {
          const written = await writeSandboxFixtures(sandbox, flags.writeFixtures);
          out(`Wrote ${written.quoteFile} (POST /quote/v2 response) and ${written.chainsFile} (GET /chains response).`);
          out('Check the quote with:');
          out(verifyCommandLine(written));
          if (!flags.keepRunning) return;
        }
        printInfo(sandbox, flags.store, out);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
      } finally {
        await sandbox.stop();
      }
    });
}
