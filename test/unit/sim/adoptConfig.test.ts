/**
 * An operator's config adopted for a simulation (src/sim/adoptConfig.ts) and the scenarios of a replay
 * (src/sim/replayScenario.ts): real chain ids, env-var keys that are not set and two assets load as the simulated
 * treasury's config; what cannot be simulated is refused naming its field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { adoptConfig, pickAsset, readConfigDocument } from '../../../packages/ballast/src/sim/adoptConfig.ts';
import { simConfig } from '../../../packages/ballast/src/sim/config.ts';
import { parseCsvTraffic } from '../../../packages/ballast/src/sim/csvTraffic.ts';
import { simChains, simIdentity, simToken } from '../../../packages/ballast/src/sim/identity.ts';
import { csvScenario, inlineCsvTraffic, parseInitial, withAsset } from '../../../packages/ballast/src/sim/replayScenario.ts';
import type { SimScenario } from '../../../packages/ballast/src/sim/scenario.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ballast-adopt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const EXAMPLE = fileURLToPath(new URL('../../../packages/ballast/config/ballast.example.yaml', import.meta.url));

/** An operator's config: two assets, real chain ids, keys and RPC URLs from variables nobody set. */
const OPERATOR = `
relay: { baseUrl: https://api.relay.link, apiKey: "\${ADOPT_TEST_UNSET_API_KEY}" }
wallets:
  hot: { vm: evm, privateKey: "\${ADOPT_TEST_UNSET_HOT_KEY}" }
  cold: { vm: evm, keyFile: "\${ADOPT_TEST_UNSET_DIR}/cold.key" }
  sol: { vm: svm, privateKey: "\${ADOPT_TEST_UNSET_SOL_KEY}" }
chains:
  ethereum: { chainId: 1, rpcUrl: "\${ADOPT_TEST_UNSET_ETH_RPC}", minGasBalance: "0.05" }
  base: { chainId: 8453, rpcUrl: "\${ADOPT_TEST_UNSET_BASE_RPC}" }
  arbitrum: { chainId: 42161, rpcUrl: "\${ADOPT_TEST_UNSET_ARB_RPC}" }
  solana: { chainId: 792703809, vm: svm, rpcUrl: "\${ADOPT_TEST_UNSET_SOL_RPC}" }
assets:
  USDC:
    - { chain: base, currency: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", wallet: hot, min: "400", target: "500", max: "800" }
    - { chain: arbitrum, currency: "0xaf88d065e77c8cC2239327C5EDb3A432268e5831", wallet: cold, min: "200", target: "300", max: "600", decimals: 6 }
  USDT:
    - { chain: ethereum, currency: "0xdAC17F958D2ee523a2206206994597C13D831ec7", wallet: cold, weight: 1 }
    - { chain: arbitrum, currency: "0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9", wallet: hot, weight: 3, toleranceBps: 200 }
  SOLUSDC:
    - { chain: base, currency: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", wallet: hot, min: "1", target: "2", max: "3" }
    - { chain: solana, currency: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v", wallet: sol, min: "1", target: "2", max: "3" }
policy:
  minTransfer: "10"
  maxTransfer: "1000"
  sweepTo: { USDC: "arbitrum:cold", USDT: ethereum }
  strategy: { USDT: { kind: flow, halfLifeSec: 3600, horizonSec: 900, deadbandPerHour: "100", minSamples: 3 } }
  routes:
    - { from: "base:hot", to: "*", asset: USDC, minTransfer: "50" }
    - { from: ethereum, to: arbitrum }
    - { from: "base:cold", to: arbitrum }
  maxFees: { totalBps: 30, totalUsd: "25" }
  limits:
    killSwitchFile: "\${ADOPT_TEST_UNSET_DIR}/HALT"
    dailyNotional: { USDC: "5000", USDT: "9000" }
    allowedRecipients: [cold]
tracking: { pollMs: 500, timeoutSec: 90 }
store: "\${ADOPT_TEST_UNSET_STORE}"
metrics: { listen: "0.0.0.0:9464" }
`;

function configFile(text: string, name = 'operator.yaml'): string {
  const file = path.join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** A two-row CSV scenario of an asset, for the config path of `simConfig`. */
function scenarioOf(file: string, symbol: string, initial: Record<string, string> = {}): SimScenario {
  const asset = pickAsset(file, readConfigDocument(file), symbol);
  const rows = parseCsvTraffic(`time,chain,kind,amount\n0,${asset.holdings[0]!.chain},payment,1\n`, 'past.csv', 6);
  return csvScenario('past', 'past.csv', asset, asset.decimals ?? 6, rows, initial);
}

describe('adopting an operator config', () => {
  it('loads one asset of a two-asset config for the simulation, without any of its variables set', () => {
    for (const name of Object.keys(process.env)) expect(name.startsWith('ADOPT_TEST_UNSET')).toBe(false);
    const file = configFile(OPERATOR);
    const s = scenarioOf(file, 'USDC');
    const chains = simChains(s.chains);
    const token = simToken(4, 'USDC', 6);
    const id = simIdentity(4);
    const config = simConfig(s, chains, token, id, mkdtempSync(path.join(dir, 'run-')), file);
    expect(Object.keys(config.assets)).toEqual(['USDC']);
    expect(config.assets.USDC!.map((h) => [h.chain, h.chainId, h.currency.toLowerCase(), h.wallet, h.address])).toEqual([
      ['base', chains[0]!.chainId, token.address, 'treasury', id.treasury.address],
      ['arbitrum', chains[1]!.chainId, token.address, 'treasury', id.treasury.address],
    ]);
    expect(config.assets.USDC!.map((h) => [h.min, h.target, h.max])).toEqual([
      ['400', '500', '800'],
      ['200', '300', '600'],
    ]);
    expect(Object.keys(config.wallets)).toEqual(['treasury']);
    expect(config.chains.base!.chainId).not.toBe(8453);
    expect(config.relay.baseUrl).toBe('http://127.0.0.1:9');
    expect(config.relay.apiKey).toBeUndefined();
    expect(config.tracking).toMatchObject({ pollMs: 500, timeoutSec: 90 });
    expect(config.policy).toMatchObject({ minTransfer: '10', maxTransfer: '1000', sweepTo: { USDC: 'arbitrum' } });
    expect(config.policy.strategy).toBeUndefined();
    expect(config.policy.routes?.map((r) => [r.from, r.to, r.asset, r.minTransfer])).toEqual([['base', '*', 'USDC', '50']]);
    expect(config.policy.limits).toMatchObject({ dailyNotional: { USDC: '5000' }, allowedRecipients: ['treasury'] });
    expect(config.policy.limits?.killSwitchFile).toBeUndefined();
  });

  it('keeps a weighted asset and its strategy', () => {
    const file = configFile(OPERATOR);
    const s = scenarioOf(file, 'USDT', { ethereum: '100', arbitrum: '300' });
    const config = simConfig(s, simChains(s.chains), simToken(1, 'USDT', 6), simIdentity(1), mkdtempSync(path.join(dir, 'run-')), file);
    expect(config.assets.USDT!.map((h) => [h.chain, h.weight, h.toleranceBps])).toEqual([
      ['ethereum', 1, 100],
      ['arbitrum', 3, 200],
    ]);
    expect(config.policy.strategy?.USDT?.kind).toBe('flow');
    expect(config.policy.sweepTo).toEqual({ USDT: 'ethereum' });
    expect(config.policy.routes?.map((r) => [r.from, r.to])).toEqual([['ethereum', 'arbitrum']]);
  });

  it("keeps the asset's refill point and its own needs timing; the run's refill point and the sim's needs timing otherwise", () => {
    const text = OPERATOR.replace(
      '  minTransfer: "10"\n',
      '  minTransfer: "10"\n  refillTo: { USDC: "40%", USDT: target }\n  needsGraceSec: 3600\n',
    );
    const file = configFile(text, 'refill.yaml');
    const s = scenarioOf(file, 'USDC');
    const load = (x: SimScenario) =>
      simConfig(x, simChains(x.chains), simToken(1, 'USDC', 6), simIdentity(1), mkdtempSync(path.join(dir, 'run-')), file);
    const own = load(s);
    // the other asset's entry is dropped (it would name an asset the adopted config lacks)
    expect(own.policy.refillTo).toEqual({ USDC: '40%' });
    // the operator's grace is kept; the horizon the config leaves out is the simulation's (no announcement: 1 s)
    expect(own.policy).toMatchObject({ needsGraceSec: 3600, needsHorizonSec: 1 });
    expect(load({ ...s, refillTo: '25%' }).policy.refillTo).toEqual({ USDC: '25%' });
  });

  it('reads the shipped example config for any of its EVM assets', () => {
    const usdc = pickAsset(EXAMPLE, readConfigDocument(EXAMPLE), 'USDC');
    expect(usdc.holdings.map((h) => h.chain)).toEqual(['base', 'arbitrum', 'optimism', 'ethereum']);
    expect(usdc.decimals).toBe(6);
  });

  it('refuses a Solana holding, naming its field', () => {
    const file = configFile(OPERATOR);
    expect(() => pickAsset(file, readConfigDocument(file), 'SOLUSDC')).toThrow(
      /assets\.SOLUSDC\[1\]\.chain: "solana" is a Solana \(svm\) chain; the simulator runs EVM chains only/,
    );
  });

  it('refuses an asset absent from the config, and an ambiguous default', () => {
    const file = configFile(OPERATOR);
    const doc = readConfigDocument(file);
    expect(() => pickAsset(file, doc, 'DAI')).toThrow(
      /assets: no asset DAI \(the config has USDC, USDT, SOLUSDC\); pass one of them to --asset/,
    );
    expect(() => pickAsset(file, doc)).toThrow(/assets: the config has USDC, USDT, SOLUSDC; choose the asset to replay with --asset/);
    expect(pickAsset(file, doc, undefined, 'USDT').symbol).toBe('USDT');
  });

  it('refuses a holding on a chain the simulation lacks', () => {
    const file = configFile(OPERATOR);
    const token = simToken(1, 'USDC', 6);
    expect(() => adoptConfig(file, readConfigDocument(file), 'USDC', simChains(['base', 'optimism']), token)).toThrow(
      /assets\.USDC\[1\]\.chain: "arbitrum" is not a chain of the simulation \(base, optimism\)/,
    );
  });

  it('refuses two holdings of the asset on one chain', () => {
    const file = configFile(OPERATOR.replace('- { chain: arbitrum, currency: "0xaf88', '- { chain: base, currency: "0xaf88'), 'dup.yaml');
    expect(() => pickAsset(file, readConfigDocument(file), 'USDC')).toThrow(/assets\.USDC\[1\]\.chain: a second holding on "base"/);
  });
});

describe('replay scenarios', () => {
  const file = configFile(OPERATOR, 'scenario.yaml');
  const rows = parseCsvTraffic('time,chain,kind,amount\n0,base,payment,1.5\n1000,arbitrum,receipt,2\n', 'past.csv', 6);

  it('start each banded holding at its target unless --initial says otherwise', () => {
    const asset = pickAsset(file, readConfigDocument(file), 'USDC');
    const s = csvScenario('past', 'past.csv', asset, 6, rows, parseInitial('arbitrum=250.5'));
    expect(s).toMatchObject({ name: 'past', chains: ['base', 'arbitrum'], token: { symbol: 'USDC', decimals: 6 } });
    expect(s.initial).toEqual({ base: 500_000_000n, arbitrum: 250_500_000n });
    expect(s.flows.map((f) => [f.kind, f.chain, f.atMs, f.amount])).toEqual([
      ['payment', 'base', 0, 1_500_000n],
      ['receipt', 'arbitrum', 1000, 2_000_000n],
    ]);
    expect(s.defaultRoute).toMatchObject({ delayMs: 500, failureRate: 0 });
  });

  it('ask for the starting balances of weighted holdings, and refuse a CSV chain without a holding', () => {
    const doc = readConfigDocument(file);
    const usdt = pickAsset(file, doc, 'USDT');
    const onArb = parseCsvTraffic('time,chain,kind,amount\n0,arbitrum,payment,1\n', 'past.csv', 6);
    expect(() => csvScenario('p', 'past.csv', usdt, 6, onArb, { arbitrum: '5' })).toThrow(
      /--initial: weighted holdings have no target to start from; give ethereum a starting balance/,
    );
    expect(() => csvScenario('p', 'past.csv', usdt, 6, rows)).toThrow(
      /^past\.csv: line 2, column chain: "base" is not a chain of USDT's holdings in the config \(ethereum, arbitrum\)/,
    );
    expect(() => parseInitial('base:10')).toThrow(/--initial: "base:10" is not chain=amount/);
  });

  it('rename and rescale a scenario to the config asset', () => {
    const asset = pickAsset(file, readConfigDocument(file), 'USDC');
    const s = csvScenario('past', 'past.csv', { ...asset, decimals: 8 }, 8, rows);
    const r = withAsset({ ...s, token: { ...s.token, symbol: 'TKN' } }, asset);
    expect(r.token).toMatchObject({ symbol: 'USDC', decimals: 6 });
    expect(r.initial).toEqual({ base: 500_000_000n, arbitrum: 300_000_000n });
    expect(r.flows.map((f) => f.amount)).toEqual([1_500_000n, 2_000_000n]);
  });

  it("take a Ballast scenario's traffic from a CSV file next to it", () => {
    writeFileSync(path.join(dir, 'past.csv'), 'time,chain,kind,amount\n2000,beta,receipt,2\n500,alpha,payment,1.25\n');
    const doc = { name: 'n', token: { symbol: 'USDC', decimals: 2 }, chains: { alpha: {}, beta: {} }, traffic: { csv: 'past.csv' } };
    expect(inlineCsvTraffic(doc, path.join(dir, 'scenario.yaml'))).toEqual({
      ...doc,
      traffic: [
        { at: 0, chain: 'alpha', payment: '1.25', id: 'payment-3' },
        { at: 1500, chain: 'beta', receipt: '2', id: 'receipt-2' },
      ],
    });
    expect(() => inlineCsvTraffic({ ...doc, chains: { alpha: {} } }, path.join(dir, 'scenario.yaml'))).toThrow(
      /past\.csv: line 2, column chain: "beta" is not a chain of the scenario \(alpha\)/,
    );
    expect(() => inlineCsvTraffic({ ...doc, token: { decimals: 1 } }, path.join(dir, 'scenario.yaml'))).toThrow(
      /line 3, column amount: "1\.25" has 2 decimals but the token has 1/,
    );
  });
});
