/**
 * The Ballast config a simulation runs with: the scenario's chains (placeholder RPC URLs nobody contacts), the
 * treasury wallet with the seed's key, the scenario's holdings as one asset, a fee policy wide enough for the
 * scenario's route fees, and tracking polls of the scenario's cadence; or the user's own config file, whose chains
 * and holdings must name the scenario's chains.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type LoadedConfig } from '../config/loadConfig.ts';
import type { SimChain, SimIdentity, SimToken } from './identity.ts';
import type { SimScenario } from './scenario.ts';
import { SIM_CONFIRMATIONS } from './world.ts';

/** The variable the generated config reads the treasury key from. */
export const SIM_KEY_VAR = 'BALLAST_SIM_TREASURY_KEY';

/** The YAML of the generated config. */
export function simConfigYaml(s: SimScenario, chains: readonly SimChain[], token: SimToken): string {
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
    '  slippageBps: 50',
    '  maxFees: { totalBps: 500, totalUsd: "1000000", components: { execution: { usd: "1000" }, swap: { bps: 500 }, platform: { bps: 500 }, app: { bps: 0 } } }',
    `tracking: { pollMs: ${Math.max(100, Math.min(1000, s.pollMs))}, timeoutSec: 120 }`,
    'store: "./unused.db"',
    'metrics: { listen: "127.0.0.1:9464" }',
  ].join('\n');
}

/**
 * Loads the config of a run: `configFile` when given (its `${BALLAST_SIM_TREASURY_KEY}` gets the seed's key), else
 * the generated one written into `dir`.
 *
 * @throws ConfigError as `loadConfig` does
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
  if (configFile) return loadConfig(configFile, vars);
  const file = path.join(dir, 'ballast.yaml');
  writeFileSync(file, `${simConfigYaml(s, chains, token)}\n`);
  return loadConfig(file, vars);
}
