/**
 * `wallets.<name>.signer` (src/config/signerSchema.ts, src/config/remoteWallets.ts; docs/keys.md): a wallet whose
 * key is in AWS KMS loads without any key text, with its configured address and no secret on the object; every
 * bad combination is named with its field and fix (no address, a key as well, a bad region or timeout, an unknown
 * kind, a VM the signer does not sign for yet).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { ENV, KEY_ADDRESS, baseConfig, issueLines, loadErrorIn, tempDirPerTest } from './helpers.ts';

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
    expect(treasury.vm === 'evm' && treasury.remote?.keyId).toBe('alias/ballast-treasury');
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
    expect(lines({ vm: 'evm', address: KEY_ADDRESS, signer: { kind: 'vault' } })).toContain('signer.kind must be one of key, awsKms');
    expect(lines({ vm: 'svm', address: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', signer: KMS })).toContain(
      'wallets.treasury.signer: signer.kind awsKms signs evm wallets only for now',
    );
  });
});
