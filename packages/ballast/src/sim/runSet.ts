/**
 * Runs a scenario file as read by `readScenarioSet` (src/sim/readScenario.ts): a single-asset file's scenario as
 * `runScenario` does; a multi-asset file's scenarios one after the other with the same options and seed, their
 * logs merged into one keyed `"ASSET|chain"` (src/sim/multiAsset.ts), from which `computeKpis` reports per holding
 * and per asset.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { mergeAssetLogs } from './multiAsset.ts';
import type { ScenarioSet } from './readScenario.ts';
import { runScenario, type SimLog, type SimRunOptions } from './run.ts';

/**
 * Runs a scenario set. With `storeDir`, each asset's store is kept in its own subdirectory named by the asset.
 *
 * @throws Error when a multi-asset set is given a config file (its holdings are per asset); as `runScenario` and
 *   `mergeAssetLogs` do
 */
export async function runScenarioSet(set: ScenarioSet, options: SimRunOptions = {}): Promise<SimLog> {
  if (!set.multiAsset) {
    const only = set.scenarios[0];
    if (only === undefined || set.scenarios.length !== 1) throw new Error(`${set.name}: a single-asset set has one scenario`);
    return runScenario(only, options);
  }
  if (options.configFile) throw new Error(`${set.name}: a multi-asset scenario runs with its own holdings, not a config file`);
  const logs: SimLog[] = [];
  for (const s of set.scenarios) {
    let storeDir: string | undefined;
    if (options.storeDir) {
      storeDir = path.join(options.storeDir, s.token.symbol);
      mkdirSync(storeDir, { recursive: true });
    }
    logs.push(await runScenario(s, { ...options, ...(storeDir ? { storeDir } : {}) }));
  }
  return mergeAssetLogs(set.name, logs);
}
