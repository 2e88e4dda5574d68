/**
 * Bitcoin wallets and chains in the configuration: WIF from the environment or a key file, P2WPKH and P2TR
 * addresses, the WIF network byte against `network`, address checks, Esplora chain fields and defaults, the
 * native-only currency, network agreement of holdings, and secrets kept out of output.
 */
import { inspect } from 'node:util';
import { Psbt, address as btcAddress } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { describe, expect, it } from 'vitest';
import type { BvmSigner } from '../../../packages/ballast/src/chains/bvm/wallet.ts';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import {
  BTC_NATIVE,
  BTC_P2TR,
  BTC_P2TR_SAME_KEY,
  BTC_P2WPKH,
  BTC_TESTNET_P2WPKH,
  BTC_TESTNET_WIF,
  BTC_WIF,
  BTC_WIF_86,
  KEY,
  KEY_ADDRESS,
  MULTI_ENV,
  SOL_ADDRESS,
  SOL_KEY,
  SOL_KEY_BYTES,
  issueLines,
  loadErrorIn,
  multiVmConfig,
  tempDirPerTest,
  vmOf,
} from './helpers.ts';

const tmp = tempDirPerTest();

const linesOf = (config: unknown, env: Record<string, string | undefined> = MULTI_ENV) => issueLines(loadErrorIn(tmp, config, env));
const expectLine = (lines: string[], expected: string) =>
  expect(
    lines.some((l) => l.startsWith(expected)),
    `${expected}\nnot in:\n${lines.join('\n')}`,
  ).toBe(true);

/** BIP-84 public key of BTC_WIF; BIP-86 internal key of BTC_WIF_86. */
const BTC_PUB = '0330d54fd0dd420a6e5f8d3624f5f3482cae350f79d5f0753bf5beef9c2d91af3c';
const BTC_86_INTERNAL = 'cc8a4bc64d897bddc5fbc2f670f7a8ba0b386779106cf1223c6fc5d7cd6fc115';

describe('bvm wallet', () => {
  it('loads a P2WPKH wallet (the default type) on mainnet (the default network)', () => {
    const config = loadConfig(tmp.write(multiVmConfig()), MULTI_ENV);
    const wallet = vmOf(config.wallets.btc, 'bvm');
    expect(wallet).toEqual({ name: 'btc', vm: 'bvm', address: BTC_P2WPKH, network: 'mainnet', addressType: 'p2wpkh', publicKey: BTC_PUB });
    expect('publicKey' in wallet.signer && Buffer.from(wallet.signer.publicKey).toString('hex')).toBe(BTC_PUB);
    expect(config.assets.BTC).toEqual([
      {
        asset: 'BTC',
        chain: 'bitcoin',
        chainId: 8253038,
        currency: BTC_NATIVE,
        wallet: 'btc',
        address: BTC_P2WPKH,
        min: '0.5',
        target: '1',
        max: '2',
      },
    ]);
  });

  it('loads a P2TR wallet: BIP-86 address and internal key', () => {
    const c = multiVmConfig();
    c.wallets.btc = { vm: 'bvm', privateKey: BTC_WIF_86, addressType: 'p2tr', address: BTC_P2TR };
    const wallet = vmOf(loadConfig(tmp.write(c), MULTI_ENV).wallets.btc, 'bvm');
    expect(wallet).toMatchObject({ address: BTC_P2TR, addressType: 'p2tr', internalPubkey: BTC_86_INTERNAL });
    // the loaded signer signs a key-path spend of the wallet's own output, and the signature validates
    const script = btcAddress.toOutputScript(wallet.address);
    const psbt = new Psbt()
      .addInput({
        hash: '22'.repeat(32),
        index: 1,
        witnessUtxo: { script, value: 50_000n },
        tapInternalKey: Buffer.from(BTC_86_INTERNAL, 'hex'),
      })
      .addOutput({ script, value: 49_000n })
      .signInput(0, wallet.signer as BvmSigner); // a key on the host: the loader attached its bitcoinjs signer
    expect(psbt.validateSignaturesOfInput(0, (pub, hash, sig) => ecc.verifySchnorr(hash, pub, sig))).toBe(true);
  });

  it('the same key gives another address per type: the configured address must match the type', () => {
    const c = multiVmConfig();
    c.wallets.btc.addressType = 'p2tr';
    c.wallets.btc.address = BTC_P2TR_SAME_KEY;
    expect(loadConfig(tmp.write(c), MULTI_ENV).wallets.btc?.address).toBe(BTC_P2TR_SAME_KEY);
  });

  it('loads a testnet wallet on a testnet chain, and a regtest one on regtest, with the same WIF', () => {
    for (const network of ['testnet', 'regtest'] as const) {
      const c = multiVmConfig();
      c.wallets.btc = { vm: 'bvm', privateKey: BTC_TESTNET_WIF, network };
      c.chains.bitcoin.network = network;
      const config = loadConfig(tmp.write(c), MULTI_ENV);
      const address = config.wallets.btc?.address ?? '';
      if (network === 'testnet') expect(address).toBe(BTC_TESTNET_P2WPKH);
      else expect(address).toMatch(/^bcrt1q/);
      expect(vmOf(config.chains.bitcoin, 'bvm').network).toBe(network);
    }
  });

  it('loads the WIF from a private key file; refuses one other users can access', () => {
    tmp.file('btc.wif', `${BTC_WIF}\n`, 0o600);
    const c = multiVmConfig();
    c.wallets.btc = { vm: 'bvm', keyFile: 'btc.wif', address: BTC_P2WPKH };
    expect(loadConfig(tmp.write(c), MULTI_ENV).wallets.btc?.address).toBe(BTC_P2WPKH);
    const path = tmp.file('open.wif', BTC_WIF, 0o604);
    c.wallets.btc = { vm: 'bvm', keyFile: path };
    expect(linesOf(c)).toEqual([
      `wallets.btc.keyFile: ${path} is accessible by other users (mode 604); run chmod 600 ${path} and consider rotating the key`,
    ]);
  });

  it.each([
    [
      'a mainnet WIF on a testnet wallet',
      { network: 'testnet' },
      {},
      'wallets.btc.network: the WIF is a mainnet key but network is testnet; use a testnet/regtest key or set network: mainnet',
    ],
    [
      'a testnet WIF on a mainnet wallet',
      {},
      { TREASURY_BTC_WIF: BTC_TESTNET_WIF },
      'wallets.btc.network: the WIF is a testnet/regtest key but network is mainnet; use a mainnet key or set network: testnet (or regtest)',
    ],
    [
      'an EVM hex key',
      {},
      { TREASURY_BTC_WIF: KEY },
      'wallets.btc.privateKey: not a WIF private key: this is hex (an EVM key?); bvm wallets take a compressed WIF',
    ],
    [
      'a Solana secret key',
      {},
      { TREASURY_BTC_WIF: SOL_KEY },
      'wallets.btc.privateKey: not a WIF private key (base58check text; mainnet keys start with K, L or 5, testnet/regtest keys with c or 9) (this looks like a Solana secret key: use an svm wallet)',
    ],
    [
      'a JSON byte array',
      {},
      { TREASURY_BTC_WIF: JSON.stringify(SOL_KEY_BYTES) },
      'wallets.btc.privateKey: not a WIF private key: this is a JSON byte array (a Solana key file?)',
    ],
    ['an unknown address type', { addressType: 'p2pkh' }, {}, 'wallets.btc.addressType: expected one of p2wpkh, p2tr'],
    ['an unknown network', { network: 'signet' }, {}, 'wallets.btc.network: expected one of mainnet, testnet, regtest'],
    ['a Solana-only field', { keyFile: 'x.json' }, {}, 'wallets.btc: both privateKey and keyFile are set; keep exactly one'],
  ])('refuses %s', (_name, fields, env, expected) => {
    const c = multiVmConfig();
    Object.assign(c.wallets.btc, fields);
    expectLine(linesOf(c, { ...MULTI_ENV, ...env }), expected);
  });

  it('asks for a key with a Bitcoin-flavoured example when none is set', () => {
    const c = multiVmConfig();
    delete c.wallets.btc.privateKey;
    expect(linesOf(c)).toEqual(['wallets.btc: no key: set privateKey (e.g. ${TREASURY_BTC_WIF}) or keyFile']);
  });

  it.each([
    [
      'an address of another key',
      BTC_P2TR,
      { addressType: 'p2tr' },
      `wallets.btc.address: ${BTC_P2TR} differs from ${BTC_P2TR_SAME_KEY}, the address of the configured key; fix the address or the key`,
    ],
    [
      'a P2TR address on a P2WPKH wallet',
      BTC_P2TR_SAME_KEY,
      {},
      `wallets.btc.address: "${BTC_P2TR_SAME_KEY}" is a p2tr address but addressType is p2wpkh; set addressType: p2tr or fix the address`,
    ],
    [
      'a testnet address on a mainnet wallet',
      BTC_TESTNET_P2WPKH,
      {},
      `wallets.btc.address: "${BTC_TESTNET_P2WPKH}" is a testnet address but network is mainnet; fix the address or set network: testnet`,
    ],
    [
      'the address in upper case',
      BTC_P2WPKH.toUpperCase(),
      {},
      `wallets.btc.address: "${BTC_P2WPKH.toUpperCase()}" differs from ${BTC_P2WPKH}, the address of the configured key, only in letter case; bech32 addresses are written in lower case: write ${BTC_P2WPKH}`,
    ],
    [
      'a legacy address',
      '1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH',
      {},
      'wallets.btc.address: "1BgGZ9tcN4rm9KBzDn7KprQz87SZ26SAMH" is a p2pkh address but addressType is p2wpkh; Ballast derives p2wpkh addresses only; write that address',
    ],
    [
      'an EVM address',
      KEY_ADDRESS,
      {},
      `wallets.btc.address: "${KEY_ADDRESS}" is an EVM address, not a Bitcoin address; write the wallet's p2wpkh address`,
    ],
    [
      'a Solana address',
      SOL_ADDRESS,
      {},
      `wallets.btc.address: "${SOL_ADDRESS}" is a Solana address, not a Bitcoin address; write the wallet's p2wpkh address`,
    ],
  ])('refuses %s as the wallet address', (_name, address, fields, expected) => {
    const c = multiVmConfig();
    Object.assign(c.wallets.btc, fields, { address });
    expect(linesOf(c)).toEqual([expected]);
  });
});

describe('bvm chain', () => {
  it('applies defaults: mainnet, 1 and 2 confirmations, reorg depth 6, amounts as bigint satoshis, trailing slash dropped', () => {
    const config = loadConfig(tmp.write(multiVmConfig()), MULTI_ENV);
    expect(config.chains.bitcoin).toEqual({
      name: 'bitcoin',
      chainId: 8253038,
      vm: 'bvm',
      esploraUrl: 'https://esplora.example/api',
      network: 'mainnet',
      confirmations: 1,
      highValueConfirmations: 2,
      highValueSats: 100_000_000n,
      reorgDepth: 6,
      minerFeeReserveSats: 20_000n,
      maxFeeRateSatPerVb: 200,
      minFeeRateSatPerVb: 1,
      maxMinerFeeSats: 100_000n,
      maxMinerFeeBps: 500,
      requireReplaceable: true,
      maxCancelFeeSats: 100_000n, // maxMinerFeeSats
      cancelRepriceAfterBlocks: 2,
      allowOwnUnconfirmedInputs: false, // confirmed inputs only
      inclusionWaitSec: 60,
    });
  });

  it('takes every field; highValueConfirmations defaults to at least confirmations', () => {
    const c = multiVmConfig();
    Object.assign(c.chains.bitcoin, {
      confirmations: 3,
      highValueSats: '50000000',
      reorgDepth: 10,
      minerFeeReserveSats: '0',
      maxFeeRateSatPerVb: 12.5,
    });
    const chain = vmOf(loadConfig(tmp.write(c), MULTI_ENV).chains.bitcoin, 'bvm');
    expect(chain).toMatchObject({
      confirmations: 3,
      highValueConfirmations: 3,
      highValueSats: 50_000_000n,
      reorgDepth: 10,
      minerFeeReserveSats: 0n,
      maxFeeRateSatPerVb: 12.5,
    });
    c.chains.bitcoin.highValueConfirmations = 6;
    expect(vmOf(loadConfig(tmp.write(c), MULTI_ENV).chains.bitcoin, 'bvm').highValueConfirmations).toBe(6);
    Object.assign(c.chains.bitcoin, { minFeeRateSatPerVb: 2.5, maxMinerFeeSats: '50000', maxMinerFeeBps: 250, requireReplaceable: false });
    expect(vmOf(loadConfig(tmp.write(c), MULTI_ENV).chains.bitcoin, 'bvm')).toMatchObject({
      minFeeRateSatPerVb: 2.5,
      maxMinerFeeSats: 50_000n,
      maxMinerFeeBps: 250,
      requireReplaceable: false,
      maxCancelFeeSats: 50_000n, // follows maxMinerFeeSats unless set
    });
    Object.assign(c.chains.bitcoin, { maxCancelFeeSats: '80000', cancelRepriceAfterBlocks: 4, allowOwnUnconfirmedInputs: true });
    expect(vmOf(loadConfig(tmp.write(c), MULTI_ENV).chains.bitcoin, 'bvm')).toMatchObject({
      maxCancelFeeSats: 80_000n,
      cancelRepriceAfterBlocks: 4,
      allowOwnUnconfirmedInputs: true,
    });
  });

  it.each([
    [
      'an RPC URL instead of Esplora',
      (c: any) => {
        c.chains.bitcoin.rpcUrl = 'https://btc.example';
        delete c.chains.bitcoin.esploraUrl;
      },
      [
        'chains.bitcoin.esploraUrl: required but missing',
        'chains.bitcoin.rpcUrl: unknown key for vm: bvm; it is a setting of vm: evm or svm (set vm: evm if that is what you meant, or remove it)',
      ],
    ],
    [
      'esploraUrl on an EVM chain',
      (c: any) => (c.chains.base.esploraUrl = 'https://e.example'),
      [
        'chains.base.esploraUrl: unknown key for vm: evm; it is a setting of vm: bvm (set vm: bvm if that is what you meant, or remove it) (allowed: chainId, vm, rpcUrl, confirmations, minDeadlineLeadSec, minGasBalance, gasReserve, gasTopUp)',
      ],
    ],
    [
      'Bitcoin declared as svm',
      (c: any) => {
        c.chains.bitcoin = { chainId: 8253038, vm: 'svm', rpcUrl: 'https://x.example' };
      },
      ['chains.bitcoin.vm: chain 8253038 is Bitcoin but vm is svm; set vm: bvm'],
    ],
    [
      'Bitcoin declared as evm',
      (c: any) => {
        c.chains.bitcoin = { chainId: 8253038, rpcUrl: 'https://x.example' };
      },
      ['chains.bitcoin.vm: chain 8253038 is Bitcoin but vm is evm; set vm: bvm'],
    ],
    [
      'a non-http Esplora URL',
      (c: any) => (c.chains.bitcoin.esploraUrl = 'tcp://e.example'),
      ['chains.bitcoin.esploraUrl: expected an http(s) URL (base URL of an Esplora API, e.g. https://blockstream.info/api)'],
    ],
    [
      'high-value depth below the normal depth',
      (c: any) => Object.assign(c.chains.bitcoin, { confirmations: 3, highValueConfirmations: 2 }),
      ['chains.bitcoin.highValueConfirmations: 2 is below confirmations (3); a large deposit must wait at least as long as a small one'],
    ],
    [
      'a threshold in exponent notation',
      (c: any) => (c.chains.bitcoin.highValueSats = '1e8'),
      ['chains.bitcoin.highValueSats: highValueSats must be a non-negative decimal integer string, e.g. "100000000"'],
    ],
    [
      'a numeric fee reserve',
      (c: any) => (c.chains.bitcoin.minerFeeReserveSats = 20000),
      ['chains.bitcoin.minerFeeReserveSats: write minerFeeReserveSats as a quoted decimal integer string, e.g. "20000"'],
    ],
    [
      'a zero fee-rate cap',
      (c: any) => (c.chains.bitcoin.maxFeeRateSatPerVb = 0),
      ['chains.bitcoin.maxFeeRateSatPerVb: maxFeeRateSatPerVb must be above 0'],
    ],
    [
      'a numeric miner-fee cap',
      (c: any) => (c.chains.bitcoin.maxMinerFeeSats = 100000),
      ['chains.bitcoin.maxMinerFeeSats: write maxMinerFeeSats as a quoted decimal integer string, e.g. "100000"'],
    ],
    [
      'a numeric cancel cap and a re-price after 0 blocks',
      (c: any) => Object.assign(c.chains.bitcoin, { maxCancelFeeSats: 100000, cancelRepriceAfterBlocks: 0 }),
      [
        'chains.bitcoin.maxCancelFeeSats: write maxCancelFeeSats as a quoted decimal integer string, e.g. "100000"',
        'chains.bitcoin.cancelRepriceAfterBlocks: cancelRepriceAfterBlocks must be at least 1 block',
      ],
    ],
    [
      'a fractional miner-fee share',
      (c: any) => (c.chains.bitcoin.maxMinerFeeBps = 2.5),
      ['chains.bitcoin.maxMinerFeeBps: maxMinerFeeBps must be a whole number of basis points'],
    ],
    [
      'a miner-fee share above 100 %',
      (c: any) => (c.chains.bitcoin.maxMinerFeeBps = 10_001),
      ['chains.bitcoin.maxMinerFeeBps: maxMinerFeeBps must be at most 10000 (100 %)'],
    ],
    [
      'a negative fee-rate floor',
      (c: any) => (c.chains.bitcoin.minFeeRateSatPerVb = -1),
      ['chains.bitcoin.minFeeRateSatPerVb: minFeeRateSatPerVb must be at least 0'],
    ],
    [
      'a fee-rate floor above the cap',
      (c: any) => Object.assign(c.chains.bitcoin, { minFeeRateSatPerVb: 50, maxFeeRateSatPerVb: 20 }),
      [
        'chains.bitcoin.minFeeRateSatPerVb: 50 sat/vB is above maxFeeRateSatPerVb (20); no deposit could pass both; lower minFeeRateSatPerVb or raise maxFeeRateSatPerVb',
      ],
    ],
    [
      'requireReplaceable as text',
      (c: any) => (c.chains.bitcoin.requireReplaceable = 'yes'),
      ['chains.bitcoin.requireReplaceable: expected true or false'],
    ],
    [
      'zero confirmations',
      (c: any) => (c.chains.bitcoin.confirmations = 0),
      ['chains.bitcoin.confirmations: confirmations must be at least 1 (the block that includes the transaction)'],
    ],
    [
      'an unknown network',
      (c: any) => (c.chains.bitcoin.network = 'signet'),
      ['chains.bitcoin.network: expected one of mainnet, testnet, regtest'],
    ],
  ])('refuses %s', (_name, mutate, expected) => {
    const c = multiVmConfig();
    mutate(c);
    const lines = linesOf(c);
    for (const e of expected) expectLine(lines, e);
  });
});

describe('bvm holdings', () => {
  it('accepts only the native BTC identifier as currency', () => {
    const c = multiVmConfig();
    c.assets.BTC[0].currency = BTC_P2WPKH;
    expect(linesOf(c)).toEqual([
      `assets.BTC[0].currency: "${BTC_P2WPKH}" is not a Bitcoin currency: Bitcoin chains hold native BTC only, written ${BTC_NATIVE}`,
    ]);
  });

  it('refuses a wallet of another network than the chain', () => {
    const c = multiVmConfig();
    c.wallets.btc = { vm: 'bvm', privateKey: BTC_TESTNET_WIF, network: 'testnet' };
    expect(linesOf(c)).toEqual([
      'assets.BTC[0].wallet: wallet "btc" is a testnet wallet but chain "bitcoin" is mainnet; use a mainnet wallet or fix the network',
    ]);
  });

  it('refuses a Solana wallet on the Bitcoin chain', () => {
    const c = multiVmConfig();
    c.assets.BTC[0].wallet = 'sol';
    expect(linesOf(c)).toEqual(['assets.BTC[0].wallet: wallet "sol" is svm but chain "bitcoin" is bvm; use a bvm wallet']);
  });
});

describe('bvm secrets', () => {
  it('JSON, spread and util.inspect of the loaded config show neither the signer nor the WIF', () => {
    const config = loadConfig(tmp.write(multiVmConfig()), MULTI_ENV);
    const json = JSON.stringify(config, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
    for (const text of [json, inspect(config, { depth: 20 }), JSON.stringify({ ...config.wallets.btc })]) {
      expect(text).not.toContain(BTC_WIF);
      expect(text).not.toContain('signer');
    }
    expect(Object.keys(config.wallets.btc ?? {})).toEqual(['name', 'vm', 'address', 'network', 'addressType', 'publicKey']);
    expect(Object.keys(vmOf(config.wallets.btc, 'bvm').signer).sort()).toEqual(['publicKey', 'sign']);
  });

  it('error messages never contain the WIF, even when it lands in the address field', () => {
    const c = multiVmConfig();
    c.wallets.btc.address = '${TREASURY_BTC_WIF}';
    c.wallets.sol.privateKey = '${TREASURY_BTC_WIF}';
    const err = loadErrorIn(tmp, c, MULTI_ENV);
    expect(err.message).not.toContain(BTC_WIF);
    expect(issueLines(err).map((l) => l.slice(0, l.indexOf(':')))).toEqual(['wallets.sol.privateKey', 'wallets.btc.address']);
  });
});
