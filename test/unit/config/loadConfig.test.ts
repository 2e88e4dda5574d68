import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { type ConfigError, loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import {
  API_KEY,
  ENV,
  KEY,
  KEY2,
  KEY2_ADDRESS,
  KEY_ADDRESS,
  USDC_ARB,
  USDC_BASE,
  baseConfig,
  issueLines,
  loadErrorIn,
  tempDirPerTest,
  vmOf,
} from './helpers.ts';

const tmp = tempDirPerTest();

/** Loads `config` and returns the ConfigError it must throw. */
const loadError = (config: unknown, env: Record<string, string | undefined> = ENV): ConfigError => loadErrorIn(tmp, config, env);

/** The issue lines of an error, as "path: message". */
const lines = issueLines;

describe('loadConfig: a valid file', () => {
  it('loads, resolves env vars, derives the wallet address and makes paths absolute', () => {
    const file = tmp.write(baseConfig());
    const config = loadConfig(file, ENV);
    expect(config.configFile).toBe(file);
    expect(config.configDir).toBe(tmp.dir);
    expect(config.store).toBe(join(tmp.dir, 'data', 'ballast.db'));
    expect(config.relay.baseUrl).toBe('https://api.relay.link');
    expect(config.relay.apiKey).toBe(API_KEY);
    expect(config.chains.base).toEqual({ name: 'base', chainId: 8453, vm: 'evm', rpcUrl: 'https://base.example/rpc', confirmations: 12 });
    expect(config.wallets.treasury?.address).toBe(KEY_ADDRESS);
    expect(vmOf(config.wallets.treasury, 'evm').account.address).toBe(KEY_ADDRESS);
    expect(config.assets.USDC).toEqual([
      {
        asset: 'USDC',
        chain: 'base',
        chainId: 8453,
        currency: USDC_BASE,
        wallet: 'treasury',
        address: KEY_ADDRESS,
        min: '40000',
        target: '50000',
        max: '60000',
      },
      {
        asset: 'USDC',
        chain: 'arbitrum',
        chainId: 42161,
        currency: USDC_ARB,
        wallet: 'treasury',
        address: KEY_ADDRESS,
        min: '20000',
        target: '30000',
        max: '45000',
        decimals: 6,
      },
    ]);
    expect(config.policy.maxFees.components?.swap).toEqual({ bps: 20 });
    expect(config.warnings).toEqual([]);
  });

  it('applies defaults for optional sections', () => {
    const c = baseConfig();
    delete c.store;
    delete c.relay;
    delete c.chains.base;
    c.assets.USDC.splice(0, 1);
    const config = loadConfig(tmp.write(c), { TREASURY_EVM_KEY: KEY });
    expect(config.relay).toEqual({
      baseUrl: 'https://api.relay.link',
      timeoutMs: 15000,
      chainsCacheSec: 300,
      quotesPerMinute: 50,
      quoteApi: 'v2',
    });
    expect(config.relay.apiKey).toBeUndefined();
    expect(config.tracking).toEqual({ pollMs: 1000, timeoutSec: 300, stalledAfterSec: 1800 });
    expect(config.schedule).toBe('*/5 * * * *');
    expect(config.store).toBe(join(tmp.dir, 'ballast.db'));
    expect(config.metrics).toEqual({ listen: '127.0.0.1:9464', host: '127.0.0.1', port: 9464, readyAfterSchedules: 3 });
    expect(config.log).toEqual({ level: 'info' });
  });

  it('takes relay.quotesPerMinute (a key with elevated limits) and defaults it to the documented 50 per minute', () => {
    const c = baseConfig();
    c.relay.quotesPerMinute = 600;
    expect(loadConfig(tmp.write(c), ENV).relay.quotesPerMinute).toBe(600);
  });

  it('normalises lower-case EVM token addresses to EIP-55 and keeps whole-unit strings', () => {
    const c = baseConfig();
    c.assets.USDC[0].currency = USDC_BASE.toLowerCase();
    c.assets.USDC[0].min = '40000.5';
    const config = loadConfig(tmp.write(c), ENV);
    expect(config.assets.USDC?.[0]?.currency).toBe(USDC_BASE);
    expect(config.assets.USDC?.[0]?.min).toBe('40000.5');
  });

  it('accepts min == target == max (the band may be a single point)', () => {
    const c = baseConfig();
    Object.assign(c.assets.USDC[0], { min: '500', target: '500', max: '500' });
    expect(loadConfig(tmp.write(c), ENV).assets.USDC?.[0]?.target).toBe('500');
  });

  it('warns when a private key is written literally', () => {
    const c = baseConfig();
    c.wallets.treasury.privateKey = KEY;
    const config = loadConfig(tmp.write(c), ENV);
    expect(config.warnings).toEqual(['wallets.treasury.privateKey is written literally in the config file; prefer ${ENV_VAR} or keyFile']);
  });

  it('loads a config shaped like the sandbox demo (http URLs, literal dev key, local chain ids)', () => {
    const demo = {
      relay: { baseUrl: 'http://127.0.0.1:4100' },
      wallets: { treasury: { privateKey: KEY } },
      chains: { alpha: { chainId: 31001, rpcUrl: 'http://127.0.0.1:8545' }, beta: { chainId: 31002, rpcUrl: 'http://127.0.0.1:8546' } },
      assets: {
        USDC: [
          { chain: 'alpha', currency: USDC_BASE, wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
          { chain: 'beta', currency: USDC_BASE, wallet: 'treasury', min: '40000', target: '50000', max: '60000' },
        ],
      },
      policy: { minTransfer: '100', maxTransfer: '50000', maxFees: { totalBps: 30 } },
      tracking: { pollMs: 200, timeoutSec: 60 },
      store: ':memory:',
      metrics: { listen: '127.0.0.1:0' },
      log: { level: 'warn' },
    };
    const config = loadConfig(tmp.write(demo), {});
    expect(config.relay.baseUrl).toBe('http://127.0.0.1:4100');
    expect(config.store).toBe(':memory:');
    expect(config.metrics.port).toBe(0);
    expect(config.assets.USDC?.map((a) => a.chainId)).toEqual([31001, 31002]);
  });
});

describe('loadConfig: env resolution', () => {
  it('accepts unquoted references inside YAML flow mappings; values cannot change the YAML structure', () => {
    const c = baseConfig();
    delete c.chains;
    const yaml = tmp.write(
      `${stringify(c)}chains:\n  base: { chainId: 8453, rpcUrl: \${BASE_RPC} }\n  arbitrum: { chainId: 42161, rpcUrl: "\${ARB_RPC}" }\n`,
    );
    const config = loadConfig(yaml, { ...ENV, BASE_RPC: 'https://b.example/#x', ARB_RPC: 'https://a.example/} ]: {' });
    expect(vmOf(config.chains.base, 'evm').rpcUrl).toBe('https://b.example/#x');
    expect(vmOf(config.chains.arbitrum, 'evm').rpcUrl).toBe('https://a.example/} ]: {');
  });

  it('substitutes inside longer strings and honours the $${ escape', () => {
    const c = baseConfig();
    c.chains.arbitrum.rpcUrl = 'https://arb.example/v2/${ARB_KEY}';
    c.relay.referrer = 'ballast-$${literal}';
    const config = loadConfig(tmp.write(c), { ...ENV, ARB_KEY: 'k123' });
    expect(vmOf(config.chains.arbitrum, 'evm').rpcUrl).toBe('https://arb.example/v2/k123');
    expect(config.relay.referrer).toBe('ballast-${literal}');
  });

  it('reports an unset variable and an empty one at their paths, without follow-on noise', () => {
    const err = loadError(baseConfig(), { TREASURY_EVM_KEY: KEY, RELAY_API_KEY: '' });
    expect(lines(err)).toEqual([
      'relay.apiKey: environment variable RELAY_API_KEY is empty; export it before starting Ballast',
      'chains.base.rpcUrl: environment variable BASE_RPC is not set; export it before starting Ballast',
    ]);
  });

  it('rejects a malformed reference', () => {
    const c = baseConfig();
    c.relay.referrer = 'x${not closed';
    expect(lines(loadError(c))[0]).toMatch(/^relay\.referrer: malformed \$\{\.\.\.\} reference/);
  });
});

describe('loadConfig: errors name the path and the fix', () => {
  it('has code CONFIG_INVALID and exit code 2', () => {
    const c = baseConfig();
    c.assets.USDC[1].chain = 'arbtrum';
    const err = loadError(c);
    expect(err.code).toBe('CONFIG_INVALID');
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('assets.USDC[1].chain: unknown chain "arbtrum"; define it under chains: or fix the name');
  });

  it.each([
    [
      'unknown wallet',
      (c: any) => (c.assets.USDC[0].wallet = 'tresury'),
      'assets.USDC[0].wallet: unknown wallet "tresury"; define it under wallets: or fix the name',
    ],
    [
      'min above target',
      (c: any) => (c.assets.USDC[0].min = '50000.01'),
      'assets.USDC[0].min: min 50000.01 is above target 50000; min <= target <= max is required',
    ],
    [
      'max below target',
      (c: any) => (c.assets.USDC[1].max = '29999'),
      'assets.USDC[1].max: max 29999 is below target 30000; min <= target <= max is required',
    ],
    [
      'too many decimals',
      (c: any) => (c.assets.USDC[1].min = '0.0000001'),
      'assets.USDC[1].min: 0.0000001 has more than 6 fractional digits; round it',
    ],
    [
      'malformed token address',
      (c: any) => (c.assets.USDC[0].currency = '0x833589fcd6edb6e08f4c7c32d4f71b54bda0291'),
      'assets.USDC[0].currency: "0x833589fcd6edb6e08f4c7c32d4f71b54bda0291" is not an EVM token address',
    ],
    ['bad checksum', (c: any) => (c.assets.USDC[0].currency = USDC_BASE.replace('fCD6', 'fcd6')), 'assets.USDC[0].currency: '],
    ['malformed wallet address', (c: any) => (c.wallets.treasury.address = '0x1234'), 'wallets.treasury.address: not an EVM address'],
    [
      'address differs from key',
      (c: any) => (c.wallets.treasury.address = KEY2_ADDRESS),
      `wallets.treasury.address: ${KEY2_ADDRESS} differs from ${KEY_ADDRESS}, the address of the configured key; fix the address or the key`,
    ],
    [
      'invalid private key',
      (c: any) => (c.wallets.treasury.privateKey = '0x1234'),
      'wallets.treasury.privateKey: not a private key: expected 32 bytes as hex',
    ],
    [
      'key out of curve range',
      (c: any) => (c.wallets.treasury.privateKey = `0x${'0'.repeat(64)}`),
      'wallets.treasury.privateKey: not a valid secp256k1 private key',
    ],
    [
      'both key sources',
      (c: any) => (c.wallets.treasury.keyFile = 'k.key'),
      'wallets.treasury: both privateKey and keyFile are set; keep exactly one',
    ],
    ['no key source', (c: any) => delete c.wallets.treasury.privateKey, 'wallets.treasury: no key: set privateKey'],
    [
      'duplicate holding',
      (c: any) => (c.assets.USDT = [{ ...c.assets.USDC[0], currency: USDC_BASE.toLowerCase() }]),
      'assets.USDT[0]: duplicate of assets.USDC[0] (same chain, currency and wallet); keep one entry',
    ],
    [
      'wallet vm differs from chain vm',
      (c: any) => {
        c.chains.solana = { chainId: 792703809, vm: 'svm', rpcUrl: 'https://sol.example' };
        c.assets.USDC.push({
          chain: 'solana',
          currency: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
          wallet: 'treasury',
          min: '1',
          target: '2',
          max: '3',
        });
      },
      'assets.USDC[2].wallet: wallet "treasury" is evm but chain "solana" is svm; use a svm wallet',
    ],
    [
      'unsupported wallet vm',
      (c: any) => (c.wallets.treasury.vm = 'tvm'),
      'wallets.treasury.vm: vm "tvm" is not supported for wallets; Ballast supports evm, svm, bvm',
    ],
    [
      'unsupported chain vm',
      (c: any) => (c.chains.arbitrum.vm = 'tonvm'),
      'chains.arbitrum.vm: vm "tonvm" is not supported for chains; Ballast supports evm, svm, bvm',
    ],
    [
      'minTransfer above maxTransfer',
      (c: any) => (c.policy.minTransfer = '50001'),
      'policy.minTransfer: minTransfer 50001 is above maxTransfer 50000; lower it or raise maxTransfer',
    ],
    [
      'transfer limits of an unknown asset',
      (c: any) => (c.policy.transferLimits = { ETH: { minTransfer: '0.1', maxTransfer: '10' } }),
      'policy.transferLimits.ETH: unknown asset "ETH"; use a name defined under assets: or remove the entry',
    ],
    [
      'asset transfer limits out of order',
      (c: any) => (c.policy.transferLimits = { USDC: { minTransfer: '11', maxTransfer: '10' } }),
      'policy.transferLimits.USDC.minTransfer: minTransfer 11 is above maxTransfer 10',
    ],
    [
      'no total fee ceiling in bps',
      (c: any) => (c.policy.maxFees = { totalUsd: '25', components: { swap: { bps: 5 } } }),
      'policy.maxFees.totalBps: required: the total fee ceiling in bps also sets the smallest guaranteed output',
    ],
    [
      'slippage and fee cap allowing a total loss',
      (c: any) => {
        c.policy.slippageBps = 5000;
        c.policy.maxFees.totalBps = 5000;
      },
      'policy.maxFees.totalBps: slippageBps + totalBps is 10000 bps',
    ],
    ['chain id used twice', (c: any) => (c.chains.arbitrum.chainId = 8453), 'chains.arbitrum.chainId: 8453 is already used by chains.base'],
    ['invalid cron schedule', (c: any) => (c.schedule = '*/5 * * *  * * *'), 'schedule: "*/5 * * *  * * *" is not a valid cron expression'],
    ['unknown top-level key', (c: any) => (c.polcy = {}), 'polcy: unknown key; did you mean "policy"?'],
    [
      'unknown nested key',
      (c: any) => (c.relay.baseurl = 'x'),
      'relay.baseurl: unknown key; did you mean "baseUrl"? (allowed: baseUrl, apiKey, referrer, timeoutMs, chainsCacheSec, quotesPerMinute, quoteApi)',
    ],
    [
      'quotesPerMinute not a whole number',
      (c: any) => (c.relay.quotesPerMinute = 2.5),
      'relay.quotesPerMinute: quotesPerMinute must be a whole number of quote requests per minute, e.g. 50',
    ],
    [
      'quotesPerMinute zero',
      (c: any) => (c.relay.quotesPerMinute = 0),
      'relay.quotesPerMinute: quotesPerMinute must be between 1 and 6000',
    ],
    [
      'unknown key in an asset entry',
      (c: any) => (c.assets.USDC[1].tagret = '1'),
      'assets.USDC[1].tagret: unknown key; did you mean "target"?',
    ],
    [
      'amount written as a number',
      (c: any) => (c.assets.USDC[0].max = 60000),
      'assets.USDC[0].max: write max as a quoted decimal string in whole units',
    ],
    ['missing required section', (c: any) => delete c.policy, 'policy: required but missing'],
    [
      'bps out of range',
      (c: any) => (c.policy.slippageBps = 10001),
      'policy.slippageBps: slippageBps must be between 0 and 10000 basis points',
    ],
    ['invalid name', (c: any) => (c.chains['my chain'] = { chainId: 5, rpcUrl: 'https://x.example' }), 'chains["my chain"]: invalid name'],
    ['bad listen port', (c: any) => (c.metrics = { listen: '127.0.0.1:99999' }), 'metrics.listen: port must be between 0 and 65535'],
  ])('%s', (_name, mutate, expected) => {
    const c = baseConfig();
    mutate(c);
    const err = loadError(c);
    expect(
      lines(err).some((l) => l.startsWith(expected)),
      `${expected}\nnot in:\n${lines(err).join('\n')}`,
    ).toBe(true);
  });

  it('collects every problem into one error, one per line', () => {
    const c = baseConfig();
    c.assets.USDC[1].chain = 'arbtrum';
    c.wallets.treasury.address = KEY2_ADDRESS;
    c.policy.minTransfer = '60000';
    c.tracking = { pollMs: 1000, timout: 3 };
    const err = loadError(c);
    expect(err.issues.map((i) => i.path).sort()).toEqual(
      ['assets.USDC[1].chain', 'policy.minTransfer', 'tracking.timout', 'wallets.treasury.address'].sort(),
    );
    expect(err.message.split('\n')).toHaveLength(5);
  });

  it('puts a single problem on one line naming the file, the path and the fix (what a failed start shows)', () => {
    const c = baseConfig();
    c.assets.USDC[1].chain = 'arbtrum';
    const err = loadError(c);
    expect(err.issues).toHaveLength(1);
    expect(err.message).not.toContain('\n');
    expect(err.message).toMatch(/^invalid configuration .+\.yaml: assets\.USDC\[1\]\.chain: /);
  });

  it('reports a missing file and YAML syntax errors with their position', () => {
    expect(() => loadConfig(join(tmp.dir, 'nope.yaml'), ENV)).toThrow(/file not found; pass --config <file> or set BALLAST_CONFIG/);
    const file = tmp.write('relay:\n  baseUrl: a\n  baseUrl: b\n');
    expect(() => loadConfig(file, ENV)).toThrow(/YAML error at line 3, column 3: .*DUPLICATE_KEY/);
    const broken = tmp.write('relay: { baseUrl: x\nwallets: [\nchains: }}}\npolicy: ]]\n');
    const err = (() => {
      try {
        loadConfig(broken, ENV);
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error('expected a YAML error');
    })();
    expect(err.issues.length).toBe(4);
    expect(err.issues[3]?.message).toMatch(/^[0-9]+ more YAML errors follow from the ones above$/);
  });
});

describe('loadConfig: keyFile', () => {
  it('loads a key from a private file, relative to the config directory, with or without 0x', () => {
    tmp.file('treasury.key', `${KEY2.slice(2)}\n`, 0o600);
    const c = baseConfig();
    c.wallets.treasury = { keyFile: 'treasury.key', address: KEY2_ADDRESS };
    const config = loadConfig(tmp.write(c), ENV);
    expect(vmOf(config.wallets.treasury, 'evm').account.address).toBe(KEY2_ADDRESS);
  });

  it('refuses a world-readable key file and names the fix', () => {
    const path = tmp.file('treasury.key', KEY2, 0o644);
    const c = baseConfig();
    c.wallets.treasury = { keyFile: path };
    expect(lines(loadError(c))).toEqual([
      `wallets.treasury.keyFile: ${path} is accessible by other users (mode 644); run chmod 600 ${path} and consider rotating the key`,
    ]);
  });

  it('reports a missing key file and a directory', () => {
    const c = baseConfig();
    c.wallets.treasury = { keyFile: 'missing.key' };
    expect(lines(loadError(c))[0]).toBe(
      `wallets.treasury.keyFile: ${join(tmp.dir, 'missing.key')} does not exist; create it or fix the path (relative paths start at the config file's directory)`,
    );
    c.wallets.treasury = { keyFile: '.' };
    expect(lines(loadError(c))[0]).toMatch(/is not a regular file/);
  });

  it('rejects a key file that does not hold a key, without echoing its content', () => {
    tmp.file('bad.key', 'not-a-key-but-secret-text', 0o400);
    const c = baseConfig();
    c.wallets.treasury = { keyFile: 'bad.key' };
    const err = loadError(c);
    expect(lines(err)[0]).toMatch(/^wallets\.treasury\.keyFile: not a private key/);
    expect(err.message).not.toContain('not-a-key-but-secret-text');
  });
});

describe('loadConfig: secrets stay out of output', () => {
  it('JSON.stringify and spread of the loaded config contain neither key nor API key', () => {
    const config = loadConfig(tmp.write(baseConfig()), ENV);
    const json = JSON.stringify(config);
    expect(json).not.toContain(KEY.slice(2));
    expect(json).not.toContain(API_KEY);
    expect(JSON.stringify({ ...config.wallets.treasury })).not.toContain('account');
    expect(Object.keys(config.relay)).not.toContain('apiKey');
    // the account still signs
    expect(typeof vmOf(config.wallets.treasury, 'evm').account.signMessage).toBe('function');
  });

  it('error messages never contain key material, even when a key lands in the wrong field', () => {
    const c = baseConfig();
    c.wallets.treasury.privateKey = `${KEY}ff`; // malformed: one byte too long
    c.wallets.spare = { privateKey: KEY2, address: KEY2 }; // key pasted into the address field
    c.relay.apiKey = 12345678901; // wrong type
    const err = loadError(c, { ...ENV });
    expect(err.message).not.toContain(KEY.slice(2));
    expect(err.message).not.toContain(KEY2.slice(2));
    expect(err.message).toContain('wallets.spare.address: not an EVM address');
    expect(err.message).toContain('wallets.treasury.privateKey: not a private key');
  });

  it('YAML syntax errors do not quote the offending line', () => {
    const file = tmp.write(`wallets:\n  treasury:\n    privateKey: ${KEY}\n   bad: [\n`);
    let message = '';
    try {
      loadConfig(file, ENV);
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/YAML error at line/);
    expect(message).not.toContain(KEY.slice(2));
  });

  it('scrubs an env-provided API key from messages that would echo it', () => {
    const c = baseConfig();
    c.assets.USDC[0].currency = '${RELAY_API_KEY}'; // the currency message quotes the value it rejects
    const err = loadError(c);
    expect(err.message).toContain('assets.USDC[0].currency: "[redacted]" is not an EVM token address');
    expect(err.message).not.toContain(API_KEY);
  });
});
