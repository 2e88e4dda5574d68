/**
 * Solana wallets and chains in the configuration: key formats (base58, solana-keygen JSON, key file
 * permissions), address checks, chain fields and defaults, mint validation, and errors naming path and fix.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ed25519 } from '@noble/curves/ed25519';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { solanaWsUrlFromRpcUrl } from '../../../packages/ballast/src/config/loadedChains.ts';
import {
  BTC_P2WPKH,
  BTC_WIF,
  KEY,
  KEY_ADDRESS,
  MULTI_ENV,
  SOL_ADDRESS,
  SOL_ADDRESS2,
  SOL_KEY,
  SOL_KEY_BYTES,
  SOL_NATIVE,
  USDC_BASE,
  USDC_SOL,
  issueLines,
  loadErrorIn,
  multiVmConfig,
  tempDirPerTest,
  vmOf,
} from './helpers.ts';

const tmp = tempDirPerTest();

const linesOf = (config: unknown, env: Record<string, string | undefined> = MULTI_ENV) => issueLines(loadErrorIn(tmp, config, env));

describe('svm wallet', () => {
  it('loads a base58 secret key from the environment and derives its address', async () => {
    const config = loadConfig(tmp.write(multiVmConfig()), MULTI_ENV);
    const wallet = vmOf(config.wallets.sol, 'svm');
    expect(wallet).toEqual({ name: 'sol', vm: 'svm', address: SOL_ADDRESS });
    expect(wallet.signer.publicKey.toBase58()).toBe(SOL_ADDRESS);
    const message = new TextEncoder().encode('ballast');
    expect(await wallet.signer.signMessage(message)).toEqual(ed25519.sign(message, Uint8Array.from(SOL_KEY_BYTES.slice(0, 32))));
    expect(config.assets.SOL).toEqual([
      {
        asset: 'SOL',
        chain: 'solana',
        chainId: 792703809,
        currency: SOL_NATIVE,
        wallet: 'sol',
        address: SOL_ADDRESS,
        min: '10',
        target: '20',
        max: '40',
      },
    ]);
    expect(config.assets.USDC?.[2]).toMatchObject({ chain: 'solana', currency: USDC_SOL, address: SOL_ADDRESS });
    expect(config.warnings).toEqual([]);
  });

  it('loads a solana-keygen JSON key file (mode 600), relative to the config directory', () => {
    tmp.file('sol.json', `${JSON.stringify(SOL_KEY_BYTES)}\n`, 0o600);
    const c = multiVmConfig();
    c.wallets.sol = { vm: 'svm', keyFile: 'sol.json', address: SOL_ADDRESS };
    expect(vmOf(loadConfig(tmp.write(c), MULTI_ENV).wallets.sol, 'svm').signer.publicKey.toBase58()).toBe(SOL_ADDRESS);
  });

  it('also accepts a base58 key in the key file and a JSON array in privateKey', () => {
    tmp.file('sol.b58', SOL_KEY, 0o400);
    const c = multiVmConfig();
    c.wallets.sol = { vm: 'svm', keyFile: 'sol.b58' };
    expect(loadConfig(tmp.write(c), MULTI_ENV).wallets.sol?.address).toBe(SOL_ADDRESS);
    c.wallets.sol = { vm: 'svm', privateKey: '${SOL_JSON}' };
    expect(loadConfig(tmp.write(c), { ...MULTI_ENV, SOL_JSON: JSON.stringify(SOL_KEY_BYTES) }).wallets.sol?.address).toBe(SOL_ADDRESS);
  });

  it('refuses a key file other users can read, and names the fix', () => {
    const path = tmp.file('sol.json', JSON.stringify(SOL_KEY_BYTES), 0o644);
    const c = multiVmConfig();
    c.wallets.sol = { vm: 'svm', keyFile: path };
    expect(linesOf(c)).toEqual([
      `wallets.sol.keyFile: ${path} is accessible by other users (mode 644); run chmod 600 ${path} and consider rotating the key`,
    ]);
  });

  it('warns when the secret key is written literally', () => {
    const c = multiVmConfig();
    c.wallets.sol.privateKey = SOL_KEY;
    expect(loadConfig(tmp.write(c), MULTI_ENV).warnings).toEqual([
      'wallets.sol.privateKey is written literally in the config file; prefer ${ENV_VAR} or keyFile',
    ]);
  });

  const corrupt = [...SOL_KEY_BYTES.slice(0, 63), (SOL_KEY_BYTES[63]! + 1) % 256];
  it.each([
    ['an EVM hex key', { TREASURY_SOL_KEY: KEY }, 'wallets.sol.privateKey: not a Solana secret key: this is hex (an EVM key?)'],
    [
      'a Bitcoin WIF',
      { TREASURY_SOL_KEY: BTC_WIF },
      'wallets.sol.privateKey: not a Solana secret key: the secret key is 38 bytes; expected 64 (this looks like a Bitcoin WIF: use a bvm wallet)',
    ],
    [
      'a 32-byte base58 value (an address)',
      { TREASURY_SOL_KEY: SOL_ADDRESS },
      'wallets.sol.privateKey: not a Solana secret key: the secret key is 32 bytes; expected 64 (32 bytes is a seed or a public key',
    ],
    [
      'text outside base58',
      { TREASURY_SOL_KEY: 'not-base58-0OIl' },
      'wallets.sol.privateKey: not a Solana secret key: expected base58 (as Phantom exports it) or a JSON array of 64 byte values',
    ],
    [
      'a JSON array whose public half is wrong',
      { TREASURY_SOL_KEY: JSON.stringify(corrupt) },
      'wallets.sol.privateKey: not a Solana secret key: the last 32 bytes of the secret key are not the public key of its first 32',
    ],
    [
      'a JSON array with a value above 255',
      { TREASURY_SOL_KEY: JSON.stringify([...SOL_KEY_BYTES.slice(0, 63), 256]) },
      'wallets.sol.privateKey: not a Solana secret key: expected a JSON array of byte values (integers 0-255)',
    ],
    [
      'broken JSON',
      { TREASURY_SOL_KEY: '[1, 2,' },
      'wallets.sol.privateKey: not a Solana secret key: the text starts like a JSON array but is not valid JSON',
    ],
  ])('refuses %s as the key', (_name, env, expected) => {
    const lines = linesOf(multiVmConfig(), { ...MULTI_ENV, ...env });
    expect(
      lines.some((l) => l.startsWith(expected)),
      lines.join('\n'),
    ).toBe(true);
    expect(lines).toHaveLength(1);
  });

  it.each([
    [
      'an address of another key',
      SOL_ADDRESS2,
      `wallets.sol.address: ${SOL_ADDRESS2} differs from ${SOL_ADDRESS}, the address of the configured key; fix the address or the key`,
    ],
    [
      'the address with one letter in the other case',
      `F${SOL_ADDRESS.slice(1, 2).toLowerCase()}${SOL_ADDRESS.slice(2)}`,
      `wallets.sol.address: "Fven3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z" differs from ${SOL_ADDRESS}, the address of the configured key, only in letter case; Solana addresses are case-sensitive: write ${SOL_ADDRESS}`,
    ],
    [
      'an EVM address',
      KEY_ADDRESS,
      `wallets.sol.address: "${KEY_ADDRESS}" is an EVM address, not a Solana address; write the base58 Solana address (case-sensitive)`,
    ],
    ['a Bitcoin address', BTC_P2WPKH, `wallets.sol.address: "${BTC_P2WPKH}" is a Bitcoin address, not a Solana address`],
    ['garbage', 'abc', 'wallets.sol.address: "abc" is not a Solana address: expected base58 of 32 bytes (case-sensitive, no 0x)'],
  ])('refuses %s as the wallet address', (_name, address, expected) => {
    const c = multiVmConfig();
    c.wallets.sol.address = address;
    const lines = linesOf(c);
    expect(
      lines.some((l) => l.startsWith(expected)),
      lines.join('\n'),
    ).toBe(true);
  });
});

describe('svm chain', () => {
  it('applies defaults: wsUrl derived from rpcUrl, finalized, fee caps as bigint and number', () => {
    const config = loadConfig(tmp.write(multiVmConfig()), MULTI_ENV);
    expect(config.chains.solana).toEqual({
      name: 'solana',
      chainId: 792703809,
      vm: 'svm',
      rpcUrl: 'https://sol.example/rpc',
      wsUrl: 'wss://sol.example/rpc',
      commitment: 'finalized',
      maxMicroLamportsPerCu: 1_000_000n,
      maxComputeUnits: 1_400_000,
    });
  });

  it('takes every field when given', () => {
    const c = multiVmConfig();
    Object.assign(c.chains.solana, {
      rpcUrl: 'http://127.0.0.1:8899',
      wsUrl: 'ws://127.0.0.1:9999/ws',
      commitment: 'confirmed',
      maxMicroLamportsPerCu: '250000',
      maxComputeUnits: 200_000,
    });
    const chain = vmOf(loadConfig(tmp.write(c), MULTI_ENV).chains.solana, 'svm');
    expect(chain).toMatchObject({
      rpcUrl: 'http://127.0.0.1:8899',
      wsUrl: 'ws://127.0.0.1:9999/ws',
      commitment: 'confirmed',
      maxComputeUnits: 200_000,
    });
    expect(chain.maxMicroLamportsPerCu).toBe(250_000n);
    expect(typeof chain.maxMicroLamportsPerCu).toBe('bigint');
  });

  it.each([
    ['https://api.mainnet-beta.solana.com', 'wss://api.mainnet-beta.solana.com'],
    ['http://127.0.0.1:8899', 'ws://127.0.0.1:8900'],
    ['https://user:pw@rpc.example:443/v1/key?x=1', 'wss://user:pw@rpc.example:444/v1/key?x=1'],
    ['http://[::1]:8899/', 'ws://[::1]:8900/'],
    ['HTTPS://Rpc.Example/path', 'wss://Rpc.Example/path'],
  ])('derives the websocket URL of %s as web3.js does', (rpc, ws) => {
    expect(solanaWsUrlFromRpcUrl(rpc)).toBe(ws);
  });

  it.each([
    [
      'a ws URL where http belongs',
      (c: any) => (c.chains.solana.rpcUrl = 'wss://sol.example'),
      'chains.solana.rpcUrl: expected an http(s) URL',
    ],
    ['an http wsUrl', (c: any) => (c.chains.solana.wsUrl = 'https://sol.example'), 'chains.solana.wsUrl: expected a ws(s) URL'],
    [
      'commitment processed',
      (c: any) => (c.chains.solana.commitment = 'processed'),
      'chains.solana.commitment: expected confirmed or finalized',
    ],
    [
      'a numeric fee cap',
      (c: any) => (c.chains.solana.maxMicroLamportsPerCu = 5000),
      'chains.solana.maxMicroLamportsPerCu: write maxMicroLamportsPerCu as a quoted decimal integer string, e.g. "1000000"',
    ],
    [
      'a fractional fee cap',
      (c: any) => (c.chains.solana.maxMicroLamportsPerCu = '0.5'),
      'chains.solana.maxMicroLamportsPerCu: maxMicroLamportsPerCu must be a non-negative decimal integer string',
    ],
    [
      'too many compute units',
      (c: any) => (c.chains.solana.maxComputeUnits = 1_400_001),
      'chains.solana.maxComputeUnits: maxComputeUnits must be at most 1400000',
    ],
    [
      'a Bitcoin field',
      (c: any) => (c.chains.solana.esploraUrl = 'https://e.example'),
      'chains.solana.esploraUrl: unknown key for vm: svm; it is a setting of vm: bvm (set vm: bvm if that is what you meant, or remove it)',
    ],
    [
      'an EVM/Bitcoin field',
      (c: any) => (c.chains.solana.confirmations = 3),
      'chains.solana.confirmations: unknown key for vm: svm; it is a setting of vm: evm or bvm',
    ],
    [
      'a typo',
      (c: any) => (c.chains.solana.comitment = 'confirmed'),
      'chains.solana.comitment: unknown key; did you mean "commitment"? (allowed: chainId, vm, rpcUrl, wsUrl, commitment, maxMicroLamportsPerCu, maxComputeUnits, originSwapSource, minDeadlineLeadSec, minGasBalance, gasReserve, gasTopUp)',
    ],
    [
      'Solana declared as evm',
      (c: any) => delete c.chains.solana.vm,
      'chains.solana.vm: chain 792703809 is Solana but vm is evm; set vm: svm',
    ],
    [
      'Solana fields without vm: svm',
      (c: any) => {
        delete c.chains.solana.vm;
        c.chains.solana.commitment = 'confirmed';
      },
      'chains.solana.commitment: unknown key for vm: evm; it is a setting of vm: svm (set vm: svm',
    ],
  ])('refuses %s', (_name, mutate, expected) => {
    const c = multiVmConfig();
    mutate(c);
    const lines = linesOf(c);
    expect(
      lines.some((l) => l.startsWith(expected)),
      `${expected}\nnot in:\n${lines.join('\n')}`,
    ).toBe(true);
  });
});

describe('svm holdings', () => {
  it.each([
    [
      'an EVM token address',
      USDC_BASE,
      `assets.SOL[0].currency: "${USDC_BASE}" is an EVM address, not a Solana token mint; write the base58 Solana address (case-sensitive); native SOL is ${SOL_NATIVE}`,
    ],
    [
      'a lower-cased mint',
      USDC_SOL.toLowerCase(),
      `assets.SOL[0].currency: "${USDC_SOL.toLowerCase()}" is not a Solana token mint: expected base58 of 32 bytes (case-sensitive, no 0x)`,
    ],
    [
      'the EVM native token',
      '0x0000000000000000000000000000000000000000',
      'assets.SOL[0].currency: "0x0000000000000000000000000000000000000000" is an EVM address',
    ],
    [
      'a Bitcoin currency',
      'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8',
      'assets.SOL[0].currency: "bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8" is a Bitcoin address, not a Solana token mint',
    ],
  ])('refuses %s as currency', (_name, currency, expected) => {
    const c = multiVmConfig();
    c.assets.SOL[0].currency = currency;
    const lines = linesOf(c);
    expect(
      lines.some((l) => l.startsWith(expected)),
      `${expected}\nnot in:\n${lines.join('\n')}`,
    ).toBe(true);
  });

  it('refuses an EVM wallet on a Solana chain and a Solana wallet on an EVM chain', () => {
    const c = multiVmConfig();
    c.assets.SOL[0].wallet = 'treasury';
    c.assets.USDC[0].wallet = 'sol';
    expect(linesOf(c)).toEqual([
      'assets.USDC[0].wallet: wallet "sol" is svm but chain "base" is evm; use a evm wallet',
      'assets.SOL[0].wallet: wallet "treasury" is evm but chain "solana" is svm; use a svm wallet',
    ]);
  });

  it('keeps mint case in duplicate detection (two mints differing in case are different tokens)', () => {
    const c = multiVmConfig();
    c.assets.SOL.push({ ...c.assets.SOL[0] });
    expect(linesOf(c)).toEqual(['assets.SOL[1]: duplicate of assets.SOL[0] (same chain, currency and wallet); keep one entry']);
  });
});

describe('svm secrets', () => {
  it('JSON, spread and util.inspect of the loaded config show neither the key pair nor the secret', async () => {
    const { inspect } = await import('node:util');
    tmp.file('sol.json', JSON.stringify(SOL_KEY_BYTES), 0o600);
    const c = multiVmConfig();
    c.wallets.sol = { vm: 'svm', keyFile: join(tmp.dir, 'sol.json') };
    const config = loadConfig(tmp.write(c), MULTI_ENV);
    const json = JSON.stringify(config, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    const inspected = inspect(config, { depth: 20 });
    const seedStart = SOL_KEY_BYTES.slice(0, 8).join(',');
    for (const text of [json, inspected, JSON.stringify({ ...config.wallets.sol })]) {
      expect(text).not.toContain(SOL_KEY);
      expect(text).not.toContain(seedStart);
      expect(text).not.toContain('keypair');
      expect(text).not.toContain('secretKey');
    }
    expect(inspect(config.wallets.sol)).not.toContain(SOL_KEY_BYTES.slice(0, 4).join(', '));
    expect(Object.keys(config.wallets.sol ?? {})).toEqual(['name', 'vm', 'address']);
    expect(vmOf(config.wallets.sol, 'svm').signer.publicKey.toBase58()).toBe(SOL_ADDRESS);
  });

  it('error messages never contain the key, whichever field it lands in', () => {
    const c = multiVmConfig();
    c.wallets.sol.address = '${TREASURY_SOL_KEY}'; // key pasted into the address field
    c.wallets.btc.privateKey = '${TREASURY_SOL_KEY}'; // Solana key on a Bitcoin wallet
    const file = join(tmp.dir, 'bad.json');
    writeFileSync(file, `${JSON.stringify(SOL_KEY_BYTES)} trailing`, { mode: 0o600 });
    c.wallets.file = { vm: 'svm', keyFile: file };
    const err = loadErrorIn(tmp, c, MULTI_ENV);
    expect(err.message).not.toContain(SOL_KEY);
    expect(err.message).not.toContain(SOL_KEY_BYTES.slice(0, 8).join(','));
    expect(issueLines(err).map((l) => l.slice(0, l.indexOf(':')))).toEqual([
      'wallets.sol.address',
      'wallets.btc.privateKey',
      'wallets.file.keyFile',
    ]);
  });
});
