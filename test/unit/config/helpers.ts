/**
 * Test helpers: a valid configuration as data, written to a fresh temp directory per test.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

/** Anvil's first dev key and its address: public test material, never used for real funds. */
export const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const KEY_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** Anvil's second dev key and its address. */
export const KEY2 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const KEY2_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const API_KEY = 'relay-api-key-5f2b9c7e';
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const USDC_ARB = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

/** Environment the base config expects. */
export const ENV = { TREASURY_EVM_KEY: KEY, RELAY_API_KEY: API_KEY, BASE_RPC: 'https://base.example/rpc' };

/** A valid configuration (fresh object on every call, safe to mutate). */
export function baseConfig(): Record<string, any> {
  return {
    relay: { baseUrl: 'https://api.relay.link/', apiKey: '${RELAY_API_KEY}', referrer: 'ballast', timeoutMs: 15000 },
    wallets: { treasury: { vm: 'evm', privateKey: '${TREASURY_EVM_KEY}', address: KEY_ADDRESS } },
    chains: {
      base: { chainId: 8453, rpcUrl: '${BASE_RPC}' },
      arbitrum: { chainId: 42161, rpcUrl: 'https://arb.example/rpc' },
    },
    assets: {
      USDC: [
        { chain: 'base', currency: USDC_BASE, wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
        { chain: 'arbitrum', currency: USDC_ARB, wallet: 'treasury', min: '20000', target: '30000', max: '45000', decimals: 6 },
      ],
    },
    policy: {
      minTransfer: '100',
      maxTransfer: '50000',
      slippageBps: 50,
      maxFees: { totalBps: 30, totalUsd: '25', components: { execution: { usd: '2' }, swap: { bps: 20 } } },
    },
    store: './data/ballast.db',
  };
}

/** A temp directory removed by `cleanup()`. */
export interface TempDir {
  dir: string;
  /** Writes `config` as YAML (or a raw string) to `name` and returns its path. */
  write(config: unknown, name?: string): string;
  /** Writes a file with the given mode and returns its path. */
  file(name: string, content: string, mode: number): string;
  cleanup(): void;
}

/** Creates a temp directory for one test. */
export function tempDir(): TempDir {
  const dir = mkdtempSync(join(tmpdir(), 'ballast-config-'));
  return {
    dir,
    write(config, name = 'ballast.yaml') {
      const path = join(dir, name);
      writeFileSync(path, typeof config === 'string' ? config : stringify(config));
      return path;
    },
    file(name, content, mode) {
      const path = join(dir, name);
      writeFileSync(path, content);
      chmodSync(path, mode);
      return path;
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
