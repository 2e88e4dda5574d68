/**
 * `wallets.<name>.signer` (src/config/signerSchema.ts, src/config/remoteWallets.ts; docs/keys.md): a wallet whose
 * key is in AWS KMS loads without any key text, with its configured address and no secret on the object; every
 * bad combination is named with its field and fix (no address, a key as well, a bad region or timeout, an unknown
 * kind); Solana and Bitcoin (p2wpkh) wallets load the same way, a p2tr wallet with a key service is refused naming
 * addressType, and a malformed address is named.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, KEY_ADDRESS, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';
import { BTC_P2TR, BTC_P2WPKH, BTC_TESTNET_P2WPKH, MULTI_ENV, SOL_ADDRESS, multiVmConfig, vmOf } from './helpers.ts';

const tmp = tempDirPerTest();
const KMS = { kind: 'awsKms', keyId: 'alias/ballast-treasury', region: 'eu-west-1' };

function withWallet(wallet: Record<string, unknown>) {
  const config = baseConfig();
  config.wallets = { treasury: wallet };
  return config;
}

describe('wallets.<name>.signer', () => {
  it('loads a KMS wallet at its configured address, with the default timeout and nothing secret to serialise', () => {
    const config = loadConfig(tmp.write(withWallet({ vm: 'evm', address: KEY_ADDRESS.toLowerCase(), signer: KMS })), ENV);
    const treasury = config.wallets.treasury!;
    expect(treasury).toEqual({ name: 'treasury', vm: 'evm', address: KEY_ADDRESS });
    expect(treasury.vm === 'evm' && treasury.remote?.kind === 'awsKms' && treasury.remote.keyId).toBe('alias/ballast-treasury');
    expect(JSON.stringify(config.wallets)).not.toContain('alias/');
    expect(
      loadConfig(tmp.write(withWallet({ vm: 'evm', privateKey: '${TREASURY_EVM_KEY}', signer: { kind: 'key' } })), ENV).wallets.treasury
        ?.address,
    ).toBe(KEY_ADDRESS);
  });

  it('names the field and the fix for each bad combination', () => {
    const lines = (wallet: Record<string, unknown>) => issueLines(loadErrorIn(tmp, withWallet(wallet), ENV)).join('\n');
    expect(lines({ vm: 'evm', signer: KMS })).toContain(
      "wallets.treasury.address: required with signer.kind awsKms: the address of the service's key",
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, privateKey: '${TREASURY_EVM_KEY}', signer: KMS })).toContain(
      'wallets.treasury: signer.kind awsKms keeps the key in the service: remove privateKey and keyFile',
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...KMS, region: 'Europe' } })).toContain(
      'wallets.treasury.signer.region: region must be an AWS region such as eu-west-1',
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...KMS, timeoutMs: 10 } })).toContain('timeoutMs must be at least 100');
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { kind: 'vault' } })).toContain(
      'signer.kind must be one of key, awsKms, remote, turnkey',
    );
  });
});

describe('wallets.<name>.signer: a JSON-RPC remote signer and Turnkey', () => {
  const REMOTE = { kind: 'remote', url: 'https://signer.internal:9000', token: '${SIGNER_TOKEN}' };
  const TURNKEY = {
    kind: 'turnkey',
    organizationId: '3f0e2c4a-8b1d-4e6f-9a7c-5d2b1e0f3a4c',
    signWith: KEY_ADDRESS,
    apiPublicKey: '${TURNKEY_API_PUBLIC_KEY}',
    apiPrivateKey: '${TURNKEY_API_PRIVATE_KEY}',
  };
  const env = {
    ...ENV,
    SIGNER_TOKEN: 'token-from-the-environment',
    TURNKEY_API_PUBLIC_KEY: `02${'ab'.repeat(32)}`,
    TURNKEY_API_PRIVATE_KEY: 'cd'.repeat(32),
  };
  const lines = (wallet: Record<string, unknown>) => issueLines(loadErrorIn(tmp, withWallet(wallet), env)).join('\n');

  it('loads both at the configured address, with no token, key or certificate path to serialise', () => {
    for (const signer of [REMOTE, TURNKEY]) {
      const config = loadConfig(tmp.write(withWallet({ vm: 'evm', address: KEY_ADDRESS, signer })), env);
      const treasury = vmOf(config.wallets.treasury, 'evm');
      expect(treasury).toEqual({ name: 'treasury', vm: 'evm', address: KEY_ADDRESS });
      expect(treasury.remote?.kind).toBe(signer.kind);
      expect(JSON.stringify(config.wallets)).not.toMatch(/token-from|cdcdcd|signer\.internal/);
    }
  });

  it('names the field and the fix: a JSON-RPC signer on another VM, tls on http, unreadable certificates, bad Turnkey ids', () => {
    expect(
      lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...REMOTE, url: 'http://signer', tls: { certFile: 'c.pem', keyFile: 'k.pem' } } }),
    ).toContain('wallets.treasury.signer.tls: a TLS client certificate needs an https url');
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...REMOTE, tls: { certFile: 'missing.pem', keyFile: 'k.pem' } } })).toMatch(
      /wallets\.treasury\.signer\.tls: cannot read .*missing\.pem: give the path of a readable PEM file/,
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...REMOTE, messageMethod: 'eth_signTypedData' } })).toContain(
      'messageMethod must be personal_sign (Clef, geth) or eth_sign (web3signer)',
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...TURNKEY, organizationId: 'acme' } })).toContain(
      'wallets.treasury.signer.organizationId: organizationId must be the Turnkey organization id (a lower-case UUID)',
    );
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { ...TURNKEY, apiPrivateKey: 'not-hex' } })).toContain(
      'apiPrivateKey must be the P-256 private key of the API key: 64 hex digits',
    );
    const multi = multiVmConfig();
    multi.wallets.sol = { vm: 'svm', address: SOL_ADDRESS, signer: REMOTE };
    expect(issueLines(loadErrorIn(tmp, multi, { ...MULTI_ENV, SIGNER_TOKEN: 't' }))).toContain(
      'wallets.sol.signer.kind: a JSON-RPC signer (kind remote) signs EVM transactions only: use kind awsKms or turnkey for a svm wallet',
    );
  });
});

describe('wallets.<name>.signer on Solana and Bitcoin wallets', () => {
  /** The multi-VM config with the Solana and Bitcoin wallets replaced. */
  function nonEvm(sol: Record<string, unknown>, btc: Record<string, unknown>) {
    const config = multiVmConfig();
    config.wallets.sol = sol;
    config.wallets.btc = btc;
    return config;
  }
  const lines = (sol: Record<string, unknown>, btc: Record<string, unknown>) => issueLines(loadErrorIn(tmp, nonEvm(sol, btc), MULTI_ENV));

  it('loads an svm wallet and a p2wpkh bvm wallet at their configured addresses, nothing secret to serialise', () => {
    const config = loadConfig(
      tmp.write(nonEvm({ vm: 'svm', address: SOL_ADDRESS, signer: KMS }, { vm: 'bvm', address: BTC_P2WPKH, signer: KMS })),
      MULTI_ENV,
    );
    const sol = vmOf(config.wallets.sol, 'svm');
    const btc = vmOf(config.wallets.btc, 'bvm');
    expect(sol).toEqual({ name: 'sol', vm: 'svm', address: SOL_ADDRESS });
    expect(sol.signer.publicKey.toBase58()).toBe(SOL_ADDRESS);
    expect([sol.signer.kind, sol.remote?.keyId]).toEqual(['awsKms', 'alias/ballast-treasury']);
    expect(btc).toEqual({ name: 'btc', vm: 'bvm', address: BTC_P2WPKH, network: 'mainnet', addressType: 'p2wpkh' });
    expect('connect' in btc.signer && btc.remote?.keyId).toBe('alias/ballast-treasury');
    expect(JSON.stringify(config.wallets)).not.toContain('alias/');
  });

  it('refuses p2tr with a key service naming addressType, and names malformed addresses', () => {
    const okSol = { vm: 'svm', address: SOL_ADDRESS, signer: KMS };
    expect(lines(okSol, { vm: 'bvm', address: BTC_P2TR, addressType: 'p2tr', signer: KMS })).toEqual([
      'wallets.btc.addressType: p2tr cannot be signed by signer.kind awsKms (Ballast asks key services for ECDSA only, and KMS offers no BIP-340 Schnorr signature): use addressType p2wpkh with a secp256k1 key, or kind key',
    ]);
    expect(lines(okSol, { vm: 'bvm', address: BTC_TESTNET_P2WPKH, signer: KMS }).join('\n')).toMatch(
      /^wallets\.btc\.address: .* is a testnet address but network is mainnet/,
    );
    expect(lines(okSol, { vm: 'bvm', address: BTC_P2WPKH.toUpperCase(), signer: KMS })).toEqual([
      `wallets.btc.address: "${BTC_P2WPKH.toUpperCase()}": write the bech32 address in lower case`,
    ]);
    expect(lines({ vm: 'svm', address: KEY_ADDRESS, signer: KMS }, { vm: 'bvm', address: BTC_P2WPKH, signer: KMS }).join('\n')).toMatch(
      /^wallets\.sol\.address: .* is an EVM address, not a Solana address/,
    );
    expect(lines({ vm: 'svm', signer: KMS }, { vm: 'bvm', address: BTC_P2WPKH, signer: KMS })).toContain(
      "wallets.sol.address: required with signer.kind awsKms: the address of the service's key (checked at start)",
    );
  });
});
