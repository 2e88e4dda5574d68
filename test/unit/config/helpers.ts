/**
 * Test helpers: a valid configuration as data, written to a fresh temp directory per test.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { stringify } from 'yaml';
import { ConfigError, loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';

/** Anvil's first dev key and its address: public test material, never used for real funds. */
export const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const KEY_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
/** Anvil's second dev key and its address. */
export const KEY2 = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
export const KEY2_ADDRESS = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
export const API_KEY = 'relay-api-key-5f2b9c7e';
export const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const USDC_ARB = '0xaf88d065e77c8cC2239327C5EDb3A432268e5831';

/**
 * Solana test key: RFC 8032 section 7.1 TEST 1 (seed ‖ public key), base58 and as solana-keygen's JSON array,
 * with its address; and the public key of TEST 2 (an address of another key).
 */
export const SOL_KEY_BYTES = [
  157, 97, 177, 157, 239, 253, 90, 96, 186, 132, 74, 244, 146, 236, 44, 196, 68, 73, 197, 105, 123, 50, 105, 25, 112, 59, 172, 3, 28, 174,
  127, 96, 215, 90, 152, 1, 130, 177, 10, 183, 213, 75, 254, 211, 201, 100, 7, 58, 14, 225, 114, 243, 218, 166, 35, 37, 175, 2, 26, 104,
  247, 7, 81, 26,
];
export const SOL_KEY = '49W385L4rePHy6PAaQUovbD2aacgN4HsKXSMeUzRg4fmwXszN91JuMFrQRj3vMDpZuRF3ZknQBuRBoWQJEfXstMw';
export const SOL_ADDRESS = 'FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z';
export const SOL_ADDRESS2 = '586Z7H2vpX9qNhN2T4e9Utugie3ogjbxzGaMtM3E6HR5';
/** USDC mint on Solana. */
export const USDC_SOL = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** BIP-84 test vector (m/84'/0'/0'/0/0 of "abandon … about"): mainnet WIF and its P2WPKH address. */
export const BTC_WIF = 'KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d';
export const BTC_P2WPKH = 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu';
/** The same key's P2TR (BIP-86 style key path) address. */
export const BTC_P2TR_SAME_KEY = 'bc1p8knh0enfv47gmpuf66528zd4jtkgjq4sv5w5l2gqwgk8exu2ynns9g8c9m';
/** BIP-86 test vector (m/86'/0'/0'/0/0): WIF and P2TR address. */
export const BTC_WIF_86 = 'KyRv5iFPHG7iB5E4CqvMzH3WFJVhbfYK4VY7XAedd9Ys69mEsPLQ';
export const BTC_P2TR = 'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr';
/** BIP-84 m/84'/1'/0'/0/0: testnet WIF and address. */
export const BTC_TESTNET_WIF = 'cTGhosGriPpuGA586jemcuH9pE9spwUmneMBmYYzrQEbY92DJrbo';
export const BTC_TESTNET_P2WPKH = 'tb1q6rz28mcfaxtmd6v789l9rrlrusdprr9pqcpvkl';
/** Native currency identifiers (docs/relay-contract.md "Currency"). */
export const SOL_NATIVE = '11111111111111111111111111111111';
export const BTC_NATIVE = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';

/** Narrows a loaded wallet or chain to one VM family, failing the test when it is another. */
export function vmOf<T extends { vm: string }, V extends T['vm']>(value: T | undefined, vm: V): Extract<T, { vm: V }> {
  if (value?.vm !== vm) throw new Error(`expected a ${vm} entry, got ${value?.vm ?? 'nothing'}`);
  return value as Extract<T, { vm: V }>; // vm checked just above
}

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

/**
 * A {@link TempDir} that is fresh for every test of the calling file: created before each test and removed
 * after it. Call once at the top level of a test file; the returned object always acts on the current test's
 * directory.
 *
 * @throws Error (from its members) when used outside a test
 */
export function tempDirPerTest(): TempDir {
  let current: TempDir | undefined;
  beforeEach(() => {
    current = tempDir();
  });
  afterEach(() => {
    current?.cleanup();
    current = undefined;
  });
  const now = (): TempDir => {
    if (current === undefined) throw new Error('tempDirPerTest(): used outside a test');
    return current;
  };
  return {
    get dir() {
      return now().dir;
    },
    write: (config, name) => now().write(config, name),
    file: (name, content, mode) => now().file(name, content, mode),
    cleanup: () => now().cleanup(),
  };
}

/** Environment of {@link multiVmConfig}. */
export const MULTI_ENV = { ...ENV, TREASURY_SOL_KEY: SOL_KEY, TREASURY_BTC_WIF: BTC_WIF };

/** The base configuration plus a Solana and a Bitcoin wallet, chain and holdings (fresh object per call). */
export function multiVmConfig(): Record<string, any> {
  const c = baseConfig();
  c.wallets.sol = { vm: 'svm', privateKey: '${TREASURY_SOL_KEY}', address: SOL_ADDRESS };
  c.wallets.btc = { vm: 'bvm', privateKey: '${TREASURY_BTC_WIF}', address: BTC_P2WPKH };
  c.chains.solana = { chainId: 792703809, vm: 'svm', rpcUrl: 'https://sol.example/rpc' };
  c.chains.bitcoin = { chainId: 8253038, vm: 'bvm', esploraUrl: 'https://esplora.example/api/' };
  c.assets.USDC.push({ chain: 'solana', currency: USDC_SOL, wallet: 'sol', min: '5000', target: '10000', max: '20000', decimals: 6 });
  c.assets.SOL = [{ chain: 'solana', currency: SOL_NATIVE, wallet: 'sol', min: '10', target: '20', max: '40' }];
  c.assets.BTC = [{ chain: 'bitcoin', currency: BTC_NATIVE, wallet: 'btc', min: '0.5', target: '1', max: '2' }];
  return c;
}

/** Writes `config` into `tmp`, loads it and returns the ConfigError it must throw. */
export function loadErrorIn(tmp: TempDir, config: unknown, env: Record<string, string | undefined>): ConfigError {
  const file = tmp.write(config);
  try {
    loadConfig(file, env);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected loadConfig to throw ConfigError');
}

/** The issue lines of an error, as "path: message". */
export function issueLines(err: ConfigError): string[] {
  return err.issues.map((i) => `${i.path}: ${i.message}`);
}
