/**
 * Signing through Turnkey (src/chains/remote/turnkey.ts) with the real `@turnkey/http` client and its API-key
 * stamper against the sandbox's local Turnkey endpoint (stamped POSTs to get_private_key, list_wallet_accounts and
 * sign_raw_payload):
 * - a key named by its private key id or by its address reads the same public key (uncompressed and compressed
 *   forms); r and s arrive as integers, a high s among them, and are normalized by the chain side;
 * - an EVM transaction and an EIP-191 message recover the wallet's address; another address is a key mismatch;
 * - a Solana message and a Bitcoin P2WPKH sighash and PSBT verify against the wallet's key;
 * - another API key, another organization, an unknown key, a policy needing consensus, a rejection, another key's
 *   signature, a corrupted one, a timeout and an unreachable endpoint each fail with the code they deserve, and
 *   the observer counts each request by its outcome; one timeout is asked again and then succeeds.
 */
import { p256 } from '@noble/curves/nist';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { networks, payments, script as btcScript, Transaction } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes, keccak256, recoverMessageAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { expectEvmAccountSigns } from './evmAccountSigns.ts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStamper } from '@turnkey/api-key-stamper';
import { startLocalTurnkey, type LocalTurnkey } from '../../../../packages/sandbox/src/turnkey/turnkeyServer.ts';
import { turnkeyKey } from '../../../../packages/ballast/src/chains/remote/turnkey.ts';
import type { RawEcdsaSignature, RemoteKey } from '../../../../packages/ballast/src/chains/remote/remoteKey.ts';
import { SignerError, type SignerOutcome } from '../../../../packages/ballast/src/chains/remote/signerError.ts';
import { checkEvmRemoteAddress, evmRemoteAccount } from '../../../../packages/ballast/src/chains/evm/remoteAccount.ts';
import { checkSvmRemoteAddress, svmRemoteSigner } from '../../../../packages/ballast/src/chains/svm/remoteSigner.ts';
import { bvmRemoteKey } from '../../../../packages/ballast/src/chains/bvm/remoteSigner.ts';
import { signBvmPsbt } from '../../../../packages/ballast/src/chains/bvm/signPsbt.ts';
import { bvmKeyFromWif } from '../../../../packages/ballast/src/chains/bvm/wallet.ts';
import { buildPsbt, bvmCase, SIGN_LIMITS, standardSpec } from '../../../fixtures/bvmQuote.ts';

let tk: LocalTurnkey;
beforeAll(async () => {
  tk = await startLocalTurnkey();
});
afterEach(() => tk.setFault(undefined));
afterAll(() => tk?.close());

interface KeyOptions {
  timeoutMs?: number;
  apiKey?: { publicKey: string; privateKey: string };
  organizationId?: string;
  baseUrl?: string;
}

function keyFor(signWith: string, o: KeyOptions = {}): RemoteKey {
  const apiKey = o.apiKey ?? tk.apiKey;
  return turnkeyKey('treasury', {
    kind: 'turnkey',
    organizationId: o.organizationId ?? tk.organizationId,
    signWith,
    apiPublicKey: apiKey.publicKey,
    apiPrivateKey: apiKey.privateKey,
    baseUrl: o.baseUrl ?? tk.url,
    timeoutMs: o.timeoutMs ?? 2000,
  });
}

function observed(key: RemoteKey): SignerOutcome[] {
  const outcomes: SignerOutcome[] = [];
  key.observer = (e) => {
    expect(e).toMatchObject({ wallet: 'treasury', kind: 'turnkey' });
    expect(e.seconds).toBeGreaterThanOrEqual(0);
    outcomes.push(e.outcome);
  };
  return outcomes;
}

/** Resolves to the SignerError `promise` rejects with, after checking its code and message. */
async function signerError(promise: Promise<unknown>, code: string, pattern: RegExp): Promise<SignerError> {
  const error = await promise.then(
    (value) => ({ returned: value }),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignerError);
  expect(error).toMatchObject({ code, message: expect.stringMatching(/^signer turnkey of wallet treasury: /) });
  expect((error as Error).message).toMatch(pattern);
  return error as SignerError;
}

describe('an EVM wallet with a Turnkey secp256k1 key', () => {
  it('reads the key by id and by address; r and s come as integers, a high s among them', async () => {
    const secret = secp256k1.utils.randomPrivateKey();
    const id = tk.createPrivateKey('CURVE_SECP256K1', secret);
    const address = privateKeyToAccount(bytesToHex(secret)).address;
    const expected = { curve: 'secp256k1', bytes: secp256k1.getPublicKey(secret, false) };
    expect(await keyFor(id).publicKey()).toEqual(expected); // get_private_key: uncompressed
    expect(await keyFor(address.toLowerCase()).publicKey()).toEqual(expected); // list_wallet_accounts: compressed
    const key = keyFor(id);
    let high = 0;
    for (let i = 0; i < 16; i++) {
      const digest = hexToBytes(keccak256(new Uint8Array([i])));
      const raw: RawEcdsaSignature = await key.signDigest(digest, (sig) => sig);
      if (!('r' in raw)) throw new Error('expected r and s');
      if (raw.s > secp256k1.CURVE.n / 2n) high++;
      expect(secp256k1.verify(new secp256k1.Signature(raw.r, raw.s), digest, expected.bytes, { lowS: false })).toBe(true);
    }
    expect(high).toBeGreaterThan(0);
    expect(tk.signCount(id)).toBe(16);
  });

  it('signs EIP-1559 transactions and an EIP-191 message that recover the wallet address', async () => {
    const local = generatePrivateKey();
    const address = privateKeyToAccount(local).address;
    const id = tk.createPrivateKey('CURVE_SECP256K1', hexToBytes(local));
    const key = keyFor(id);
    const outcomes = observed(key);
    await checkEvmRemoteAddress('treasury', address, key);
    const account = evmRemoteAccount('treasury', address, key);
    await expectEvmAccountSigns(account, address, 4);
    // Named by its address, the same key signs too.
    const byAddress = evmRemoteAccount('treasury', address, keyFor(address));
    expect(await recoverMessageAddress({ message: 'x', signature: await byAddress.signMessage({ message: 'x' }) })).toBe(address);
    expect(tk.signCount(id)).toBe(6);
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'ok']); // the public key once, then five signatures

    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    await signerError(checkEvmRemoteAddress('treasury', stranger, keyFor(id)), 'SIGNER_KEY_MISMATCH', /the key's address is 0x/);
  });
});

describe('a Solana wallet with a Turnkey Ed25519 key', () => {
  it('signs a v0 transaction exactly as the key on the host does, by address and by id', async () => {
    const keypair = Keypair.generate();
    const id = tk.createPrivateKey('CURVE_ED25519', keypair.secretKey.slice(0, 32));
    await checkSvmRemoteAddress('treasury', keypair.publicKey.toBase58(), keyFor(id));
    const remote = svmRemoteSigner('treasury', keypair.publicKey, keyFor(keypair.publicKey.toBase58()));
    const message = new TransactionMessage({
      payerKey: keypair.publicKey,
      recentBlockhash: PublicKey.unique().toBase58(),
      instructions: [SystemProgram.transfer({ fromPubkey: keypair.publicKey, toPubkey: PublicKey.unique(), lamports: 5_000n })],
    }).compileToV0Message();
    const viaTurnkey = new VersionedTransaction(message);
    viaTurnkey.addSignature(remote.publicKey, await remote.signMessage(viaTurnkey.message.serialize()));
    const local = new VersionedTransaction(message);
    local.sign([keypair]);
    expect(Buffer.from(viaTurnkey.serialize()).equals(Buffer.from(local.serialize()))).toBe(true);
    expect(ed25519.verify(viaTurnkey.signatures[0]!, message.serialize(), keypair.publicKey.toBytes())).toBe(true);
    expect(tk.signCount(keypair.publicKey.toBase58())).toBe(1);
  });
});

describe('a Bitcoin P2WPKH wallet with a Turnkey secp256k1 key', () => {
  const pair = ECPairFactory(ecc).makeRandom({ network: networks.regtest });
  const loaded = bvmKeyFromWif(pair.toWIF(), { network: 'regtest', addressType: 'p2wpkh' });
  if (!loaded.ok) throw new Error(loaded.problem);
  const local = loaded.key;

  it('signs a sighash and every input of a deposit PSBT with low-s signatures that verify', async () => {
    const id = tk.createPrivateKey('CURVE_SECP256K1', Uint8Array.from(pair.privateKey!)); // makeRandom has a private key
    const remote = bvmRemoteKey('treasury', local.address, 'regtest', keyFor(id));
    const signer = await remote.signer.connect();
    expect(Buffer.from(signer.publicKey).equals(Buffer.from(local.publicKey))).toBe(true);
    const hash = hexToBytes(keccak256('0x0102'));
    const compact = await signer.sign(hash);
    expect(ecc.verify(hash, local.publicKey, compact, true)).toBe(true); // strict: low s only

    const c = bvmCase({
      name: 'turnkey',
      kind: 'p2wpkh',
      network: networks.regtest,
      address: local.address,
      script: payments.p2wpkh({ pubkey: local.publicKey, network: networks.regtest }).output!, // a valid key has an output
      signer: local.signer,
    });
    const spec = standardSpec(c);
    const tx = Transaction.fromHex((await signBvmPsbt(remote, buildPsbt(c, spec).toHex(), SIGN_LIMITS)).rawTx);
    const scriptCode = payments.p2pkh({ pubkey: local.publicKey }).output!; // p2pkh of a key has an output
    tx.ins.forEach((input, i) => {
      const decoded = btcScript.signature.decode(input.witness[0]!);
      const sighash = tx.hashForWitnessV0(i, scriptCode, spec.inputs[i]!.value, decoded.hashType);
      expect(ecc.verify(sighash, local.publicKey, decoded.signature, true)).toBe(true);
    });
    expect(tk.signCount(id)).toBe(1 + tx.ins.length);
  });
});

describe('refusals and failures', () => {
  it('the endpoint takes a stamp only over the exact body it came with', async () => {
    const stamper = new ApiKeyStamper({ apiPublicKey: tk.apiKey.publicKey, apiPrivateKey: tk.apiKey.privateKey });
    const body = JSON.stringify({ organizationId: tk.organizationId, paginationOptions: { limit: '100' } });
    const post = async (sent: string, stamp: { stampHeaderName: string; stampHeaderValue: string }) => {
      const res = await fetch(`${tk.url}/public/v1/query/list_wallet_accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [stamp.stampHeaderName]: stamp.stampHeaderValue },
        body: sent,
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect(await post(body, await stamper.stamp(body))).toMatchObject({ status: 200, json: { accounts: expect.any(Array) } });
    expect(await post(body.replace('100', '99'), await stamper.stamp(body))).toEqual({
      status: 401,
      json: { code: 16, message: 'the stamp signature does not verify over the request body', details: [] },
    });
  });

  it('another API key, another organization and an unknown key are refused before anything is signed', async () => {
    const local = generatePrivateKey();
    const address = privateKeyToAccount(local).address;
    const id = tk.createPrivateKey('CURVE_SECP256K1', hexToBytes(local));
    const otherSecret = p256.utils.randomPrivateKey();
    const otherApiKey = {
      publicKey: bytesToHex(p256.getPublicKey(otherSecret, true)).slice(2),
      privateKey: bytesToHex(otherSecret).slice(2),
    };
    const key = keyFor(id, { apiKey: otherApiKey });
    const outcomes = observed(key);
    await signerError(evmRemoteAccount('treasury', address, key).signMessage({ message: 'x' }), 'SIGNER_REFUSED', /refused: .*API key/);
    await signerError(
      key.signDigest(new Uint8Array(32), (sig) => sig),
      'SIGNER_REFUSED',
      /sign_raw_payload on .* refused/,
    );
    expect(outcomes).toEqual(['refused', 'refused']);
    await signerError(keyFor(id, { organizationId: crypto.randomUUID() }).publicKey(), 'SIGNER_REFUSED', /not authorized for organization/);
    await signerError(keyFor(crypto.randomUUID()).publicKey(), 'SIGNER_REFUSED', /get_private_key .* refused: .*no private key found/);
    await signerError(keyFor('0x' + '11'.repeat(20)).publicKey(), 'SIGNER_REFUSED', /no wallet account with address 0x1111/);
    expect(tk.signCount(id)).toBe(0);
  });

  it('a policy needing consensus, a rejection, another key, a corrupted answer and a timeout each fail as such', async () => {
    const local = generatePrivateKey();
    const address = privateKeyToAccount(local).address;
    const id = tk.createPrivateKey('CURVE_SECP256K1', hexToBytes(local));
    const key = keyFor(id, { timeoutMs: 300 });
    const outcomes = observed(key);
    const account = evmRemoteAccount('treasury', address, key);
    const cases = [
      [{ kind: 'consensusNeeded' }, 'SIGNER_REFUSED', /activity [0-9a-f-]{36} is ACTIVITY_STATUS_CONSENSUS_NEEDED/],
      [{ kind: 'rejected' }, 'SIGNER_REFUSED', /activity [0-9a-f-]{36} is ACTIVITY_STATUS_REJECTED/],
      [{ kind: 'wrongKey' }, 'SIGNER_BAD_SIGNATURE', /does not verify/],
      [{ kind: 'corrupt' }, 'SIGNER_BAD_SIGNATURE', /does not verify|not in 1..n-1/],
      [{ slowMs: 1500 }, 'SIGNER_UNAVAILABLE', /sign_raw_payload timed out after 300 ms/],
    ] as const;
    for (const [fault, code, pattern] of cases) {
      tk.setFault(fault);
      await signerError(account.signMessage({ message: 'x' }), code, pattern);
    }
    // The public key once (ok), then each signature request by what became of it (the timeout after two attempts).
    expect(outcomes).toEqual(['ok', 'refused', 'refused', 'bad_signature', 'bad_signature', 'unavailable']);
    expect(tk.signCount(id)).toBe(2); // another key's and the corrupted one; the slow ones had not answered yet

    const seed = ed25519.utils.randomPrivateKey();
    const solana = svmRemoteSigner(
      'treasury',
      new PublicKey(ed25519.getPublicKey(seed)),
      keyFor(tk.createPrivateKey('CURVE_ED25519', seed)),
    );
    tk.setFault({ kind: 'corrupt' });
    await signerError(solana.signMessage(new Uint8Array([1, 2, 3])), 'SIGNER_BAD_SIGNATURE', /does not verify/);
  });

  it('asks once more after a timeout, and reports an unreachable endpoint as unavailable', async () => {
    const local = generatePrivateKey();
    const address = privateKeyToAccount(local).address;
    const key = keyFor(tk.createPrivateKey('CURVE_SECP256K1', hexToBytes(local)), { timeoutMs: 600 });
    const outcomes = observed(key);
    const account = evmRemoteAccount('treasury', address, key);
    await account.signMessage({ message: 'warm up' }); // reads the public key
    tk.setFault({ slowMs: 3000 });
    const cleared = setTimeout(() => tk.setFault(undefined), 250); // the first attempt is slow, the second is not
    const started = performance.now();
    const signature = await account.signMessage({ message: 'after a timeout' });
    clearTimeout(cleared);
    expect(performance.now() - started).toBeGreaterThanOrEqual(550);
    expect(await recoverMessageAddress({ message: 'after a timeout', signature })).toBe(address);
    expect(outcomes).toEqual(['ok', 'ok', 'ok']);

    const unreachable = keyFor(crypto.randomUUID(), { baseUrl: 'http://127.0.0.1:9', timeoutMs: 500 });
    const failed = observed(unreachable);
    await signerError(unreachable.publicKey(), 'SIGNER_UNAVAILABLE', /get_private_key on .* failed/);
    expect(failed).toEqual(['unavailable']);
  });
});
