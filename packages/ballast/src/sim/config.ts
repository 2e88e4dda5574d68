/**
 * The Ballast config a simulation runs with: the scenario's chains (placeholder RPC URLs nobody contacts), the
 * treasury wallet with the seed's key, the scenario's holdings as one asset, a fee policy wide enough for the
 * scenario's route fees, and tracking polls of the scenario's cadence; or the user's own config file, adopted for
 * the simulation (src/sim/adoptConfig.ts): its policy and the holdings of the scenario's token symbol on the
 * scenario's chains. Either way the run's refill point, when given, is the asset's `policy.refillTo`, and the needs
 * the run records for its payments are held as `simNeedsPolicy` says (an adopted config's own `needsHorizonSec` and
 * `needsGraceSec` are kept).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type LoadedConfig } from '../config/loadConfig.ts';
import { adoptConfig, readConfigDocument, SIM_KEY_VAR } from './adoptConfig.ts';
import type { SimChain, SimIdentity, SimToken } from './identity.ts';
import { simNeedsPolicy } from './paymentNeeds.ts';
import type { SimScenario } from './scenario.ts';
import { SIM_CONFIRMATIONS } from './world.ts';

export { SIM_KEY_VAR } from './adoptConfig.ts';

/** The YAML of the generated config. */
export function simConfigYaml(s: SimScenario, chains: readonly SimChain[], token: SimToken): string {
  const needs = simNeedsPolicy(s);
  const holding = (h: SimScenario['holdings'][number]) =>
    'weight' in h
      ? `    - { chain: ${h.chain}, currency: "${token.address}", wallet: treasury, weight: ${h.weight}, toleranceBps: ${h.toleranceBps} }`
      : `    - { chain: ${h.chain}, currency: "${token.address}", wallet: treasury, min: "${h.min}", target: "${h.target}", max: "${h.max}" }`;
  return [
    'relay: { baseUrl: "http://127.0.0.1:9", referrer: ballast-simulate }',
    'wallets:',
    `  treasury: { vm: evm, privateKey: "\${${SIM_KEY_VAR}}" }`,
    'chains:',
    ...chains.map((c) => `  ${c.name}: { chainId: ${c.chainId}, rpcUrl: "http://127.0.0.1:9", confirmations: ${SIM_CONFIRMATIONS} }`),
    'assets:',
    `  ${token.symbol}:`,
    ...s.holdings.map(holding),
    'policy:',
    `  minTransfer: "${s.minTransfer}"`,
    `  maxTransfer: "${s.maxTransfer}"`,
    ...(s.strategy
      ? [
          `  strategy: { ${token.symbol}: { kind: flow, halfLifeSec: ${s.strategy.halfLifeSec}, horizonSec: ${s.strategy.horizonSec}, deadbandPerHour: "${s.strategy.deadbandPerHour}", minSamples: ${s.strategy.minSamples} } }`,
        ]
      : []),
    ...(s.refillTo ? [`  refillTo: { ${token.symbol}: "${s.refillTo}" }`] : []),
    `  needsHorizonSec: ${needs.needsHorizonSec}`,
    `  needsGraceSec: ${needs.needsGraceSec}`,
    '  slippageBps: 50',
    '  maxFees: { totalBps: 500, totalUsd: "1000000", components: { execution: { usd: "1000" }, swap: { bps: 500 }, platform: { bps: 500 }, app: { bps: 0 } } }',
    `tracking: { pollMs: ${Math.max(100, Math.min(1000, s.pollMs))}, timeoutSec: 120 }`,
    'store: "./unused.db"',
    'metrics: { listen: "127.0.0.1:9464" }',
  ].join('\n');
}

/**
 * Loads the config of a run, written into `dir`: `configFile` adopted for the simulation when given (its keys are
 * never read; the treasury gets the seed's key), else the generated one.
 *
 * @throws ConfigError as `loadConfig` and `adoptConfig` do; problems of an adopted config name `configFile`
 */
export function simConfig(
  s: SimScenario,
  chains: readonly SimChain[],
  token: SimToken,
  id: SimIdentity,
  dir: string,
  configFile?: string,
): LoadedConfig {
  const vars = { ...process.env, [SIM_KEY_VAR]: id.treasuryKey };
  const file = path.join(dir, 'ballast.yaml');
  if (!configFile) {
    writeFileSync(file, `${simConfigYaml(s, chains, token)}\n`);
    return loadConfig(file, vars);
  }
  const adopted = withSimPolicy(adoptConfig(configFile, readConfigDocument(configFile), s.token.symbol, chains, token), s);
  writeFileSync(file, `${JSON.stringify(adopted, null, 2)}\n`); // JSON is YAML
  try {
    return loadConfig(file, vars);
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(path.resolve(configFile), [...error.issues], [], error);
    throw error;
  }
}

/**
 * An adopted config with the run's policy: the scenario's refill point (when it has one) as the asset's
 * `policy.refillTo`, and `needsHorizonSec`/`needsGraceSec` from {@link simNeedsPolicy} where the config leaves them out.
 */
function withSimPolicy(adopted: Record<string, unknown>, s: SimScenario): Record<string, unknown> {
  const raw = adopted.policy;
  const policy: Record<string, unknown> =
    raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : {};
  for (const [key, value] of Object.entries(simNeedsPolicy(s))) if (policy[key] === undefined) policy[key] = value;
  if (s.refillTo) policy.refillTo = { [s.token.symbol]: s.refillTo };
  return { ...adopted, policy };
}
