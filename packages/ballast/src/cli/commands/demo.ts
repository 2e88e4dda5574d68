/**
 * `ballast demo` (npm run demo): starts the sandbox (anvil chains, Solana, Bitcoin), loads config/demo.yaml against it, runs one cycle of the
 * main job, then prints a before/after balance table and the transfer record from the SQLite store. With
 * `--signer kms-local` the wallets' keys are held by the sandbox's local AWS KMS endpoint (src/cli/demoKms.ts).
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { loadConfig } from '../../config/loadConfig.ts';
import { openBallastApp, type Ballast } from '../../app/createBallast.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { LOCAL_KMS_CREDENTIALS, writeKmsDemoConfig, type LocalKmsHandle } from '../demoKms.ts';
import { exitCodeForReport } from '../../cycle/runCycle.ts';
import { readTargetBalances } from '../../cycle/readBalances.ts';
import { listRecentTransfers } from '../../store/transfers.ts';
import { decimalsOfTransfers } from '../../store/ledgerUnits.ts';
import { formatAmount, table, toJson } from '../format.ts';
import { renderAttempts, renderDecisions } from '../renderReport.ts';
import { cycleSummary } from '../cycleSummary.ts';
import { renderTransfer } from '../renderTransfer.ts';
import { cliLogger, type GlobalFlags } from '../session.ts';
import { sandboxEnv } from '../sandboxEnv.ts';
import { loadSandbox, loadSandboxModule } from '../sandboxHandle.ts';

/** config/demo.yaml, resolved from this file so the demo works from any working directory. */
export const DEMO_CONFIG = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../config/demo.yaml');

/** Registers the command. */
export function registerDemo(program: Command, out: (s: string) => void): void {
  program
    .command('demo')
    .description('run one cycle of the main job against the local sandbox and show what moved')
    .option('--store <file>', 'SQLite file for the demo (recreated on each run)', './ballast-demo.db')
    .option('--json', 'machine-readable output')
    .option('--signer <kind>', "key: keys in the config; kms-local: keys in the sandbox's local AWS KMS endpoint (docs/keys.md)", 'key')
    .action(async (flags: { store: string; json?: boolean; signer: string }, cmd: Command) => {
      if (flags.signer !== 'key' && flags.signer !== 'kms-local')
        throw new CliError(`--signer must be key or kms-local, got "${flags.signer}"`, EXIT_USAGE);
      const store = path.resolve(flags.store);
      for (const suffix of ['', '-wal', '-shm']) rmSync(store + suffix, { force: true });
      const startSandbox = await loadSandbox('demo', () => import('@ballast/sandbox/startSandbox.ts'));
      const sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 });
      // A signal must not leave anvil processes behind: stop the sandbox, then exit.
      const onSignal = () => void sandbox.stop().finally(() => process.exit(130));
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      let ballast: Ballast | null = null;
      let kms: LocalKmsHandle | null = null;
      try {
        let configFile = DEMO_CONFIG;
        if (flags.signer === 'kms-local') {
          const { startLocalKms } = await loadSandboxModule('demo', () => import('@ballast/sandbox/kms/kmsServer.ts'));
          const started: LocalKmsHandle = await startLocalKms();
          kms = started;
          Object.assign(process.env, LOCAL_KMS_CREDENTIALS); // the SDK's default provider chain reads them
          configFile = writeKmsDemoConfig(DEMO_CONFIG, path.dirname(store), sandbox, started);
        }
        const config = loadConfig(configFile, sandboxEnv(sandbox, store));
        const logger = cliLogger(config, cmd.optsWithGlobals<GlobalFlags>());
        ballast = await openBallastApp(config, { logger, chainPollingIntervalMs: 100 });
        const report = await ballast.runCycle('once');
        const after = await readTargetBalances(ballast.ctx, report.targets);
        const transfers = (await listRecentTransfers(ballast.db, report.attempts.length || 1)).filter((t) => t.cycleId === report.cycleId);
        if (flags.json) {
          out(toJson({ outcome: report.outcome, store, before: report.balances, after, transfers }));
        } else {
          out(`Ballast demo — sandbox API ${sandbox.apiUrl}; cycle ${report.cycleId}: ${report.outcome}`);
          out(
            table(
              ['asset', 'chain', 'min', 'target', 'max', 'before', 'after'],
              report.targets.map((t, i) => [
                t.asset,
                t.chain,
                formatAmount(t.min, t.decimals),
                formatAmount(t.target, t.decimals),
                formatAmount(t.max, t.decimals),
                formatAmount(report.balances[i]?.amount, t.decimals),
                formatAmount(after[i]?.amount, t.decimals),
              ]),
            ),
          );
          const decisions = renderDecisions(report);
          if (decisions) out(decisions);
          // The transfers, or (none planned) the summary of why, as `run --once` ends (src/cli/cycleSummary.ts).
          out([renderAttempts(report), ...cycleSummary(report)].filter(Boolean).join('\n'));
          out(`Transfer record in ${store} (also: ballast history --db ${flags.store}):`);
          const decimals = await decimalsOfTransfers(
            ballast.db,
            transfers.map((t) => t.id),
          );
          for (const t of transfers) out(renderTransfer(t, decimals.get(t.id)));
        }
        process.exitCode = exitCodeForReport(report);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        await ballast?.close();
        await kms?.close();
        await sandbox.stop();
      }
    });
}
