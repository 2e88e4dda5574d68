/**
 * The JSON-RPC remote signer (docs/keys.md) against anvil's own `eth_accounts`, `eth_signTransaction`,
 * `personal_sign` and `eth_sign` for its unlocked dev accounts, through a loopback front that plays the parts a
 * deployment adds: a bearer token, mutual TLS, a slow or tampering signer.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { parseGwei, recoverTransactionAddress, type TransactionSerializable } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from '../../../../packages/sandbox/src/chains/anvil.ts';
import {
  checkEvmJsonRpcAddress,
  evmJsonRpcSigner,
  type JsonRpcSignerSpec,
} from '../../../../packages/ballast/src/chains/evm/jsonRpcSigner.ts';
import { SignerError } from '../../../../packages/ballast/src/chains/remote/signerError.ts';

/** Anvil's dev account 0 ("test test … junk"), which its node signs for. */
const DEV0 = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const TOKEN = 'signer-token-0123456789';
const CHAIN_ID = 31337;

interface Front {
  url: string;
  /** Rewrites each request body before it reaches the signer. */
  rewrite?: (body: { method: string; params: unknown[] }) => void;
  delayMs?: number;
  requests: string[];
  close(): Promise<void>;
}

let anvil: AnvilInstance;
let front: Front;
const tmp = mkdtempSync(join(tmpdir(), 'ballast-rpc-signer-'));

/** A front on loopback: checks the bearer token (when `token`), then forwards to anvil. */
async function startFront(opts: { token?: string; tls?: { key: string; cert: string; ca: string } } = {}): Promise<Front> {
  const state: Front = { url: '', requests: [], close: async () => {} };
  const handler: http.RequestListener = (req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      void (async () => {
        if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
          res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
          return;
        }
        const body = JSON.parse(text) as { method: string; params: unknown[] };
        state.requests.push(body.method);
        state.rewrite?.(body);
        if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
        const answer = await fetch(anvil.rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end(await answer.text());
      })().catch(() => res.destroy());
    });
  };
  const server = opts.tls
    ? https.createServer({ key: opts.tls.key, cert: opts.tls.cert, ca: opts.tls.ca, requestCert: true, rejectUnauthorized: true }, handler)
    : http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  state.url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((r) => server.close(() => r()));
  return state;
}

function spec(url: string, extra: Partial<JsonRpcSignerSpec> = {}): JsonRpcSignerSpec {
  return { kind: 'remote', url, token: TOKEN, messageMethod: 'personal_sign', timeoutMs: 1_000, ...extra };
}

function tx(nonce: number): TransactionSerializable {
  return {
    type: 'eip1559',
    chainId: CHAIN_ID,
    nonce,
    to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    value: 12_345n,
    data: '0xa9059cbb',
    gas: 60_000n,
    maxFeePerGas: parseGwei('3'),
    maxPriorityFeePerGas: parseGwei('1'),
  };
}

async function signerError(p: Promise<unknown>): Promise<SignerError> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SignerError);
  return error as SignerError;
}

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID });
  front = await startFront({ token: TOKEN });
}, 30_000);
afterAll(async () => {
  await front?.close();
  await anvil?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

describe('a JSON-RPC remote signer (anvil eth_signTransaction)', () => {
  it('signs transactions and EIP-191 messages exactly as the key would, with either message method', async () => {
    const outcomes: string[] = [];
    const { signer, account } = evmJsonRpcSigner('treasury', DEV0.address, spec(front.url));
    signer.observer = (e) => outcomes.push(`${e.kind}:${e.outcome}`);
    const signed = await account.signTransaction(tx(7));
    expect(signed).toBe(await DEV0.signTransaction(tx(7))); // RFC 6979: the same key gives the same bytes
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(DEV0.address);
    const raw = '0x6b1f2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9' as const;
    expect(await account.signMessage({ message: { raw } })).toBe(await DEV0.signMessage({ message: { raw } }));
    const viaEthSign = evmJsonRpcSigner('treasury', DEV0.address, spec(front.url, { messageMethod: 'eth_sign' })).account;
    expect(await viaEthSign.signMessage({ message: 'ballast' })).toBe(await DEV0.signMessage({ message: 'ballast' }));
    await checkEvmJsonRpcAddress('treasury', DEV0.address, signer);
    expect(outcomes).toEqual(['remote:ok', 'remote:ok', 'remote:ok']);
    expect(front.requests.slice(-4)).toEqual(['eth_signTransaction', 'personal_sign', 'eth_sign', 'eth_accounts']);
  });

  it('refuses a transaction the signer changed, a key it does not hold, a missing token; a slow or dead signer is unavailable', async () => {
    const { signer, account } = evmJsonRpcSigner('treasury', DEV0.address, spec(front.url));
    const outcomes: string[] = [];
    signer.observer = (e) => outcomes.push(e.outcome);
    front.rewrite = (body) => {
      if (body.method === 'eth_signTransaction') (body.params[0] as { to: string }).to = '0x000000000000000000000000000000000000dEaD';
    };
    const changed = await signerError(account.signTransaction(tx(1)));
    expect([changed.code, changed.detail]).toEqual(['SIGNER_BAD_SIGNATURE', "the signer changed the transaction's to: nothing is sent"]);
    front.rewrite = (body) => {
      if (body.method === 'eth_signTransaction') (body.params[0] as { value: string }).value = '0x1';
    };
    expect((await signerError(account.signTransaction(tx(1)))).detail).toBe("the signer changed the transaction's value: nothing is sent");
    front.rewrite = undefined;

    const stranger = privateKeyToAccount(generatePrivateKey()).address;
    const locked = await signerError(evmJsonRpcSigner('treasury', stranger, spec(front.url)).account.signTransaction(tx(1)));
    expect(locked.code).toBe('SIGNER_REFUSED');
    expect(locked.message).toMatch(
      /^signer remote of wallet treasury: eth_signTransaction at http:\/\/127\.0\.0\.1:\d+ refused: -32602 No Signer available/,
    );
    const mismatch = await signerError(checkEvmJsonRpcAddress('treasury', stranger, signer));
    expect(mismatch.code).toBe('SIGNER_KEY_MISMATCH');
    expect(mismatch.detail).toContain(`holds no key for wallets.treasury.address ${stranger}`);

    const noToken = await signerError(
      evmJsonRpcSigner('treasury', DEV0.address, spec(front.url, { token: undefined })).account.signMessage({ message: 'x' }),
    );
    expect([noToken.code, noToken.detail]).toEqual(['SIGNER_REFUSED', expect.stringMatching(/personal_sign at .* refused: HTTP 401/)]);

    front.delayMs = 1_500;
    const seen = front.requests.length;
    const slow = await signerError(account.signTransaction(tx(1)));
    front.delayMs = 0;
    expect([slow.code, slow.detail]).toEqual(['SIGNER_UNAVAILABLE', expect.stringMatching(/eth_signTransaction at .* timed out/)]);
    expect(front.requests.length - seen).toBe(2); // asked once more (nothing was stored or sent), each bounded

    const dead = await signerError(evmJsonRpcSigner('treasury', DEV0.address, spec('http://127.0.0.1:9')).account.signTransaction(tx(1)));
    expect(dead.code).toBe('SIGNER_UNAVAILABLE');
    const raw = await signerError(account.sign!({ hash: `0x${'11'.repeat(32)}` }));
    expect(raw.code).toBe('SIGNER_UNSUPPORTED');
    expect(outcomes).toEqual(['bad_signature', 'bad_signature', 'ok', 'unavailable']); // eth_accounts answered; the key was not there
  });

  it('presents its client certificate to a signer that requires mutual TLS', async () => {
    const pem = (name: string) => join(tmp, name);
    const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
    const P256 = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
    /** A self-signed certificate (a CA, or a client no CA vouches for). */
    const selfSigned = (name: string) =>
      openssl('req', '-x509', ...P256, '-days', '1', '-subj', `/CN=${name}`, '-keyout', pem(`${name}.key`), '-out', pem(`${name}.pem`));
    selfSigned('ca');
    selfSigned('rogue');
    writeFileSync(pem('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
    for (const who of ['server', 'client']) {
      openssl('req', ...P256, '-subj', `/CN=${who}`, '-keyout', pem(`${who}.key`), '-out', pem(`${who}.csr`));
      const ca = ['-CA', pem('ca.pem'), '-CAkey', pem('ca.key'), '-CAcreateserial'];
      openssl('x509', '-req', '-in', pem(`${who}.csr`), ...ca, '-days', '1', '-extfile', pem('san.ext'), '-out', pem(`${who}.pem`));
    }
    const read = (n: string) => readFileSync(pem(n), 'utf8');
    const tlsFront = await startFront({ tls: { key: read('server.key'), cert: read('server.pem'), ca: read('ca.pem') } });
    try {
      const withCert = evmJsonRpcSigner(
        'treasury',
        DEV0.address,
        spec(tlsFront.url, {
          tls: { certFile: pem('client.pem'), keyFile: pem('client.key'), caFile: pem('ca.pem') },
        }),
      );
      expect(await withCert.account.signTransaction(tx(3))).toBe(await DEV0.signTransaction(tx(3)));
      const rogue = evmJsonRpcSigner(
        'treasury',
        DEV0.address,
        spec(tlsFront.url, { tls: { certFile: pem('rogue.pem'), keyFile: pem('rogue.key'), caFile: pem('ca.pem') } }),
      );
      const refused = await signerError(rogue.account.signTransaction(tx(3)));
      expect(refused.code).toBe('SIGNER_UNAVAILABLE'); // a certificate the server's CA did not sign: the handshake fails
      expect(tlsFront.requests).toEqual(['eth_signTransaction']);
    } finally {
      await tlsFront.close();
    }
  });
});
