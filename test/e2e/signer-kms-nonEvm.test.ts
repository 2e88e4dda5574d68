/**
 * Keys off the host on Solana and Bitcoin (docs/keys.md): the sandbox's Solana treasury key (Ed25519) and Bitcoin
 * treasury key (secp256k1, P2WPKH) live only in the local KMS endpoint, and Ballast signs through the real
 * `@aws-sdk/client-kms` client, on one shared sandbox.
 *
 * - From each chain, a tampered answer (a signature by another key) is refused locally: the attempt fails naming
 *   the signer and nothing is broadcast (the origin balance is unchanged); once the service behaves, the next
 *   cycle moves the surplus once, signed through KMS.
 * - Each request to the service is metered under the wallet (`ballast_signer_requests_total`).
 * - The start check passes for the right keys and stops with one line per wallet for a key of the wrong curve
 *   (Solana) or another key (Bitcoin).
 */
import { ECPairFactory } from 'ecpair';
import { networks } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalKms, type LocalKms } from '../../packages/sandbox/src/kms/kmsServer.ts';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { checkRemoteSigners } from '../../packages/ballast/src/app/remoteSigners.ts';
import { ConfigError } from '../../packages/ballast/src/config/errors.ts';
import { listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { ballastOnSandbox, tempDir } from './helpers/sandboxBallast.ts';
import { NON_EVM_CONFIG, oneTransferTreasury, type Place } from './nonEvm/treasury.ts';

const tmp = tempDir('ballast-kms-nonevm-');
let sandbox: Sandbox;
let kms: LocalKms;
const keys = { sol: '', btc: '' };

beforeAll(async () => {
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: 'AKIDLOCALKMS', AWS_SECRET_ACCESS_KEY: 'local-kms-secret', AWS_REGION: 'us-east-1' });
  [sandbox, kms] = await Promise.all([startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 }), startLocalKms()]);
  keys.sol = kms.createKey('ECC_NIST_EDWARDS25519', sandbox.solana!.treasury.keypair.secretKey.slice(0, 32));
  const btcPair = ECPairFactory(ecc).fromWIF(sandbox.bitcoin!.treasury.wif, networks.regtest);
  keys.btc = kms.createKey('ECC_SECG_P256K1', Uint8Array.from(btcPair.privateKey!)); // a WIF always holds its private key
}, 120_000);
afterAll(async () => {
  await Promise.all([kms?.close(), sandbox?.stop()]); // both stopped, each by its own handle
  tmp.cleanup();
}, 60_000);

/** The Solana and Bitcoin treasuries with their keys in KMS (`keyIds` by wallet), at the sandbox's addresses. */
function kmsWallets(keyIds: { sol: string; btc: string }) {
  const signer = (keyId: string) => ({ kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url, timeoutMs: 2000 });
  return {
    treasury_sol: { vm: 'svm', address: sandbox.solana!.treasury.address, signer: signer(keyIds.sol) },
    treasury_btc: { vm: 'bvm', network: 'regtest', address: sandbox.bitcoin!.treasury.address, signer: signer(keyIds.btc) },
  };
}

const CASES: { place: Place; asset: 'USDC' | 'BTC'; amount: bigint; reserve: bigint; keyId: () => string; wallet: string }[] = [
  { place: 'solana', asset: 'USDC', amount: 1_000_000_000n, reserve: 0n, keyId: () => keys.sol, wallet: 'treasury_sol' },
  { place: 'bitcoin', asset: 'BTC', amount: 10_000_000n, reserve: 100_000n, keyId: () => keys.btc, wallet: 'treasury_btc' },
];

it.each(CASES)(
  '$place: a tampered answer broadcasts nothing; then one cycle moves the surplus signed through KMS',
  async (c) => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, {
      asset: c.asset,
      from: c.place,
      to: 'alpha',
      amount: c.amount,
      reserve: c.reserve,
      wallets: kmsWallets(keys),
    });
    try {
      await checkRemoteSigners(t.config); // the keys are the configured addresses
      kms.setFault(c.keyId(), { kind: 'wrongKey' });
      const refused = await t.ballast.runCycle('once');
      kms.setFault(c.keyId(), undefined);
      expect(refused.attempts.map((a) => a.outcome)).toEqual(['origin_failed']);
      expect(refused.attempts[0]!.error).toMatch(new RegExp(`signer awsKms of wallet ${c.wallet}: the signature does not verify`));
      expect(await t.from.balance()).toBe(t.fromBefore); // nothing broadcast

      const signs = kms.signCount(c.keyId());
      const moved = await t.ballast.runCycle('once');
      expect(
        moved.attempts.map((a) => a.outcome),
        moved.attempts[0]?.error,
      ).toEqual(['success']);
      expect(kms.signCount(c.keyId()) - signs).toBeGreaterThan(0);
      const spent = t.fromBefore - (await t.from.balance());
      expect(spent >= c.amount && spent <= c.amount + 1_000_000n).toBe(true); // the amount once, plus the network fee
      const transfers = await listRecentTransfers(t.ballast.db, 10);
      expect(transfers.filter((x) => x.status === 'success')).toHaveLength(1);
      // Every request to the service is metered under the wallet (GetPublicKey and each Sign).
      const requests = (await t.ballast.metrics.signerRequestsTotal.get()).values.filter((v) => v.labels.wallet === c.wallet);
      const ok = requests.find((v) => v.labels.outcome === 'ok' && v.labels.kind === 'awsKms')?.value ?? 0;
      expect(ok).toBeGreaterThan(kms.signCount(c.keyId()) - signs);
    } finally {
      await t.ballast.close();
    }
  },
  120_000,
);

it('the start check stops on a key of the wrong curve and on another key, one line per wallet', async () => {
  const { ballast, config } = ballastOnSandbox(sandbox, tmp.dir, {
    ...NON_EVM_CONFIG,
    wallets: kmsWallets({ sol: keys.btc, btc: kms.createKey('ECC_SECG_P256K1') }),
  });
  await ballast.close(); // only its config is used
  const error = await checkRemoteSigners(config).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  expect((error as ConfigError).issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
    'wallets.treasury_sol: a Solana wallet needs an Ed25519 key (KMS: ECC_NIST_EDWARDS25519), this one is secp256k1',
    expect.stringMatching(
      new RegExp(
        `^wallets\\.treasury_btc: the key's p2wpkh address is bcrt1q\\w+, wallets\\.treasury_btc\\.address is ${sandbox.bitcoin!.treasury.address}$`,
      ),
    ),
  ]);
}, 60_000);
