/**
 * `ballast check-config`: validates a configuration file offline, like `promtool check config`. It runs what
 * loading the config runs (src/config/loadConfig.ts: YAML, `${VAR}` references, the schema, key files readable and
 * private, addresses, the cross-references of assets, chains, wallets and routes) and nothing after it: no
 * chain RPC, no Relay API call, no key service asked, no store opened or created. Exit 0 when valid, 2 with one
 * line per problem (each naming its YAML path and fix) when not.
 */
import type { Command } from 'commander';
import { ConfigError, type LoadedConfig } from '../../config/loadConfig.ts';
import { redactStoreUrl } from '../../config/storeUrl.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerCheckConfig(program: Command, out: (s: string) => void): void {
  program
    .command('check-config')
    .description('validate the config offline (schema, env references, key files, addresses, references); no RPC, API or store')
    .option('--json', 'machine-readable output: {ok, file, warnings} or {ok: false, file, issues: [{path, message}]}')
    .action((flags: { json?: boolean }, cmd: Command) => {
      let config: LoadedConfig;
      try {
        config = loadCliConfig(cmd.optsWithGlobals<GlobalFlags>());
      } catch (error) {
        const invalid = error instanceof CliError ? error.cause : undefined;
        if (!flags.json || !(invalid instanceof ConfigError)) throw error;
        out(toJson({ ok: false, file: invalid.file, issues: invalid.issues }));
        process.exitCode = EXIT_USAGE;
        return;
      }
      if (flags.json) {
        out(toJson({ ok: true, file: config.configFile, warnings: config.warnings }));
        return;
      }
      const holdings = Object.values(config.assets).reduce((n, entries) => n + entries.length, 0);
      out(
        `${config.configFile}: valid (${count(Object.keys(config.wallets).length, 'wallet')}, ${count(Object.keys(config.chains).length, 'chain')}, ` +
          `${count(holdings, 'holding')} of ${count(Object.keys(config.assets).length, 'asset')}; store ${redactStoreUrl(config.store)}, not opened)`,
      );
      for (const warning of config.warnings) out(`warning: ${warning}`);
    });
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
