/**
 * `ballast api-check [--save DIR] [--json]`: checks the configured Relay API (`relay.baseUrl`, `relay.apiKey`)
 * the way Ballast uses it: GET /chains and one small quote per configured route on POST /quote/v2 and POST
 * /quote/v3 (src/relay/apiCheck/apiCheck.ts), each quote mapped into the internal model and verified locally.
 * Signs nothing, takes no lock, opens no store. One line per endpoint, then one `warning:` line per route whose quote
 * verified but that the operator's own policy would skip (fee caps, output floor: ../apiCheckPolicy.ts), naming the
 * config keys. Exit 0 when every endpoint is usable, also with such warnings (the endpoint works: the config, not
 * the API, refuses the route, and a cycle reports the same skip); 1 when an endpoint is not (unreachable, key
 * refused, schema or verification failure: each is reported in its line); 2 for a bad config.
 */
import type { Command } from 'commander';
import path from 'node:path';
import { createChainAdapters } from '../../app/chainAdapters.ts';
import { createHttpTarget } from '../../relay/http.ts';
import { createRelayClient } from '../../relay/client.ts';
import { createNativePriceCache } from '../../cycle/originPrice.ts';
import { renderApiCheckLine, renderPolicyRefusals, runApiCheck } from '../../relay/apiCheck/apiCheck.ts';
import { apiCheckRoutes, apiCheckVerifier, type PlannedRoutes } from '../apiCheckRoutes.ts';
import { saveApiCheckExchanges } from '../apiCheckSave.ts';
import { EXIT_ERROR, EXIT_OK } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { cliLogger, loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerApiCheck(program: Command, out: (s: string) => void): void {
  program
    .command('api-check')
    .description(
      'check the configured Relay API: GET /chains and one small quote per route on /quote/v2 and /quote/v3 (signs nothing); one line per endpoint, a warning per route your policy refuses; exit 1 unless every endpoint is usable',
    )
    .option('--save <dir>', 'write each raw response (JSON body + status and headers) into DIR, API key and credentials redacted')
    .option('--json', 'machine-readable output: {usable, endpoints, warnings, saved}')
    .action(async (flags: { save?: string; json?: boolean }, cmd: Command) => {
      const globals = cmd.optsWithGlobals<GlobalFlags>();
      const config = loadCliConfig(globals);
      const logger = cliLogger(config, globals);
      for (const warning of config.warnings) logger.warn({ component: 'config' }, warning);
      const apiKey = config.relay.apiKey;
      const target = createHttpTarget(config.relay.baseUrl, apiKey);
      const adapters = createChainAdapters(config);
      let planned: PlannedRoutes = new Map();
      // The origin's native currency price for quotes that carry none (/quote/v3), as a cycle asks for it.
      const relay = createRelayClient({
        baseUrl: config.relay.baseUrl,
        ...(apiKey !== undefined ? { apiKey } : {}),
        timeoutMs: config.relay.timeoutMs,
        maxRetries: 1,
        logger,
      });
      const nativePrices = createNativePriceCache(relay, logger.child({ component: 'api-check' }), Date.now);
      const result = await runApiCheck({
        target,
        fetch: globalThis.fetch,
        timeoutMs: config.relay.timeoutMs,
        routesFor: (chains) => {
          const built = apiCheckRoutes(config, adapters, chains);
          planned = built.planned;
          return built.routes;
        },
        verifyWith: (chains) => apiCheckVerifier(config, adapters, planned, chains, Date.now, nativePrices),
      });
      const saved = flags.save !== undefined ? saveApiCheckExchanges(path.resolve(flags.save), result.exchanges, target.secrets) : [];
      const usable = result.endpoints.every((e) => e.usable);
      const warnings = renderPolicyRefusals(result.endpoints);
      if (flags.json) out(toJson({ usable, endpoints: result.endpoints, warnings, saved }));
      else {
        out([...result.endpoints.map(renderApiCheckLine), ...warnings].join('\n'));
        if (flags.save !== undefined) out(`saved ${saved.length} file(s) in ${path.resolve(flags.save)}`);
      }
      process.exitCode = usable ? EXIT_OK : EXIT_ERROR;
    });
}
