/**
 * `ballast sandbox`: starts the local Relay sandbox (anvil chains, depository, solver, API, and by default the
 * Solana node and the regtest Bitcoin Esplora node) and prints its API URL, chain RPC / websocket / Esplora
 * URLs and funded dev keys (EVM private keys, the Solana treasury's base58 secret key, the Bitcoin treasury's
 * WIF and address) with the environment variables a config can use, then runs until SIGINT/SIGTERM. With
 * `--write-fixtures DIR` it instead starts the EVM chains only, saves one quote and the GET /chains document
 * into DIR, prints the `verify-quote` command that checks them and stops (unless `--keep-running`).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { table } from '../format.ts';
import { sandboxEnv } from '../sandboxEnv.ts';
import { verifyCommandLine, writeSandboxFixtures } from '../sandboxFixtures.ts';
import { loadSandbox, type SandboxHandle } from '../sandboxHandle.ts';

interface SandboxFlags {
  port: string;
  store: string;
  writeFixtures?: string;
  keepRunning?: boolean;
  solana: boolean;
  bitcoin: boolean;
  bitcoinBlockMs: string;
  webhookUrl?: string;
  webhookSecret?: string;
}

/** The demo config (packages/ballast/config/demo.yaml), resolved from this file as `ballast demo` resolves it. */
const DEMO_CONFIG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../config/demo.yaml');

/**
 * The banner line before the exported variables: the command that runs Ballast on the sandbox, with the demo
 * config's path as seen from `cwd` (`packages/ballast/config/demo.yaml` from the repository root).
 *
 * @param cwd the directory the operator runs commands from
 * @returns one line
 */
export function demoConfigHint(cwd: string): string {
  const config = path.relative(cwd, DEMO_CONFIG) || DEMO_CONFIG;
  return `Run Ballast against it with these variables exported: npx ballast run --once --config ${config}`;
}

function printInfo(sandbox: SandboxHandle, store: string, out: (s: string) => void): void {
  out(
    table(
      ['chain', 'chainId', 'rpcUrl', 'depository', 'USDC'],
      sandbox.chains.map((c) => [c.def.slug, c.def.chainId, c.rpcUrl, c.depository, c.usdc]),
    ),
  );
  const a = sandbox.accounts;
  out(
    table(
      ['role', 'address', 'private key (anvil dev key — never use on a real chain)'],
      [
        ['treasury', a.treasury.address, a.treasury.privateKey],
        ['solver', a.solver.address, a.solver.privateKey],
      ],
    ),
  );
  const { solana, bitcoin } = sandbox;
  if (solana) {
    out(
      `Solana: RPC ${solana.rpcUrl}  websocket ${solana.wsUrl}  depository program ${solana.depositoryProgramId}  USDC mint ${solana.usdcMint}`,
    );
    out(
      table(
        ['Solana treasury (sandbox key — never use on a real chain)', 'secret key (base58, 64 bytes)'],
        [[solana.treasury.address, solana.treasury.secretKeyBase58]],
      ),
    );
  }
  if (bitcoin) {
    out(`Bitcoin (regtest): Esplora ${bitcoin.esploraUrl}  depository ${bitcoin.depository}`);
    out(
      table(
        ['Bitcoin treasury (P2WPKH, sandbox key — never use on a real chain)', 'WIF (regtest)'],
        [[bitcoin.treasury.address, bitcoin.treasury.wif]],
      ),
    );
  }
  out(demoConfigHint(process.cwd()));
  for (const [k, v] of Object.entries(sandboxEnv(sandbox, store))) out(`export ${k}=${v}`);
}

/** Registers the command. */
export function registerSandbox(program: Command, out: (s: string) => void): void {
  program
    .command('sandbox')
    .description(
      'start the local Relay sandbox and print its URLs and funded keys (Ctrl-C to stop); or save one quote to verify (--write-fixtures)',
    )
    .option('--port <port>', 'API port (0: a free port)', '0')
    .option('--store <file>', 'store path to print in the suggested environment', './ballast-sandbox.db')
    .option(
      '--write-fixtures <dir>',
      'request one quote (100 USDC alpha → beta with protocol data, from and to the treasury dev wallet), write ' +
        '<dir>/quote.json and <dir>/chains.json, print the verify-quote command that checks them, then stop ' +
        '(EVM chains only: the Solana and Bitcoin nodes are not started)',
    )
    .option('--keep-running', 'with --write-fixtures: keep the sandbox running afterwards (Ctrl-C to stop)')
    .option('--no-solana', 'do not start the Solana node (litesvm)')
    .option('--no-bitcoin', 'do not start the Bitcoin (regtest Esplora) node')
    .option('--bitcoin-block-ms <ms>', 'milliseconds between mined Bitcoin blocks (0: never)', '1000')
    .option(
      '--webhook-url <url>',
      "POST signed request.status.updated webhooks here on each status change (e.g. the daemon's http://127.0.0.1:9464/webhooks/relay)",
    )
    .option('--webhook-secret <key>', 'with --webhook-url: the HMAC secret, i.e. the relay.apiKey of the Ballast config that receives them')
    .action(async (flags: SandboxFlags) => {
      if (flags.keepRunning && flags.writeFixtures === undefined) {
        throw new CliError('--keep-running only applies with --write-fixtures (without it the sandbox always keeps running)', EXIT_USAGE);
      }
      const bitcoinBlockMs = Number(flags.bitcoinBlockMs);
      if (!Number.isSafeInteger(bitcoinBlockMs) || bitcoinBlockMs < 0) {
        throw new CliError(
          `--bitcoin-block-ms must be a whole number of milliseconds (0 or more), got ${flags.bitcoinBlockMs}`,
          EXIT_USAGE,
        );
      }
      if ((flags.webhookUrl === undefined) !== (flags.webhookSecret === undefined)) {
        throw new CliError(
          '--webhook-url and --webhook-secret go together (the secret is the relay.apiKey of the receiving config)',
          EXIT_USAGE,
        );
      }
      if (flags.webhookUrl !== undefined && !/^https?:\/\/[^\s]+$/.test(flags.webhookUrl)) {
        throw new CliError(`--webhook-url must be an http(s) URL, got ${flags.webhookUrl}`, EXIT_USAGE);
      }
      // The saved fixtures are one EVM quote and its GET /chains document: the non-EVM nodes stay off for them.
      const evmOnly = flags.writeFixtures !== undefined;
      const startSandbox = await loadSandbox('sandbox', () => import('@ballast/sandbox/startSandbox.ts'));
      const sandbox = await startSandbox({
        port: Number(flags.port),
        solana: flags.solana && !evmOnly,
        bitcoin: flags.bitcoin && !evmOnly,
        bitcoinBlockMs,
        ...(flags.webhookUrl !== undefined ? { webhook: { url: flags.webhookUrl, secret: flags.webhookSecret } } : {}),
      });
      try {
        out(`Relay sandbox API: ${sandbox.apiUrl}`);
        if (flags.webhookUrl !== undefined) out(`Webhooks: signed request.status.updated deliveries go to ${flags.webhookUrl}`);
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
