/**
 * Validators in the pipeline (src/cycle/validatorGate.ts, src/validators/askValidator.ts; docs/approvals.md
 * "Validators"), on the in-memory chains and Relay service with a real SQLite store and a real validator on loopback
 * HTTP: a signed `allow` lets the transfer through; a signed `deny`, an `allow` signed by another key and silence past
 * the timeout each stop it before anything is signed, with a limit hit naming the validator; below the threshold
 * the validator is not asked. The validator checks the request's HMAC signature as a receiver of it would.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { signWebhook } from '@ballast/protocol/relay/webhookSignature.ts';
import { processTransfer } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { validationAnswerText, type ValidationDecision } from '../../../packages/ballast/src/approvals/validation.ts';
import { signWithKey } from '../../../packages/ballast/src/cli/approvalKey.ts';
import { listLimitHits } from '../../../packages/ballast/src/store/limitHits.ts';
import { listRecentTransfers } from '../../../packages/ballast/src/store/transfers.ts';
import { pipelineSuite, processArgs as args, withPolicy } from './pipelineWorld.ts';
// After the world helper (see processTransfer.test.ts).
import { ADDR } from '../../model/world.ts';

const suite = pipelineSuite();
const SECRET = 'validator-test-secret-0123456789';
const VALIDATOR_KEY = generatePrivateKey();
const OTHER_KEY = generatePrivateKey();

type Behaviour = { decision: ValidationDecision; reason?: string; key?: string } | 'silent';

/** A validator on loopback that answers as told, signing with its key (or another), and records what it got. */
async function validator(
  behaviour: Behaviour,
): Promise<{ url: string; received: Array<{ body: string; hmacOk: boolean }>; close(): Promise<void> }> {
  const received: Array<{ body: string; hmacOk: boolean }> = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      // The receiver's check: HMAC-SHA256 over the timestamp and the raw body, with the shared secret.
      const expected = signWebhook(SECRET, String(req.headers['x-signature-timestamp'] ?? ''), body);
      received.push({ body, hmacOk: req.headers['x-signature-sha256'] === expected });
      if (behaviour === 'silent') return; // never answers
      const reason = behaviour.reason ?? '';
      void signWithKey(behaviour.key ?? VALIDATOR_KEY, validationAnswerText(behaviour.decision, reason, body)).then(({ signature }) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ decision: behaviour.decision, reason, signature }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
  return { url, received, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

function withValidator(url: string, validateAboveUsd = '0') {
  return withPolicy(suite.env.config, {
    approvals: {
      aboveUsd: '1000000000', // no sign-offs needed: only the validator decides here
      required: 1,
      approvers: { alice: privateKeyToAccount(generatePrivateKey()).address },
      expiresAfterSec: 3600,
      validateAboveUsd,
      validators: { risk: { url, secret: SECRET, key: privateKeyToAccount(VALIDATOR_KEY).address, timeoutMs: 500 } },
      addressBook: 'off',
    },
  });
}

describe('the validator gate', () => {
  it('a signed allow lets the transfer through; the validator got the HMAC-signed request naming both addresses', async () => {
    const v = await validator({ decision: 'allow' });
    try {
      const w = await suite.world('allow', { config: withValidator(v.url) });
      const attempt = await processTransfer(w.deps, args(w, 'execute'));
      expect(attempt.outcome, attempt.error).toBe('success');
      expect(v.received).toHaveLength(1);
      expect(v.received[0]!.hmacOk).toBe(true);
      expect(JSON.parse(v.received[0]!.body)).toMatchObject({
        kind: 'ballast-validation-request/v1',
        validator: 'risk',
        amountIn: w.planned.amountIn.toString(),
        origin: { address: w.planned.from.address, chainId: w.planned.from.chainId },
        destination: { address: w.planned.to.address, chainId: w.planned.to.chainId },
      });
    } finally {
      await v.close();
    }
  });

  for (const [title, behaviour, why] of [
    ['a signed deny', { decision: 'deny', reason: 'recipient under review' }, /validator risk denied it: recipient under review/],
    [
      'an allow signed by another key',
      { decision: 'allow', key: OTHER_KEY },
      /validator risk answered with a signature that is not its key's \(wrong_key\)/,
    ],
    ['silence past the timeout', 'silent', /validator risk did not answer within 500 ms/],
  ] as const) {
    it(`${title} stops the transfer before anything is signed, with a limit hit naming the validator`, async () => {
      const v = await validator(behaviour);
      try {
        const w = await suite.world(`veto-${title.length}`, { config: withValidator(v.url) });
        const before = w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury);
        const attempt = await processTransfer(w.deps, args(w, 'execute'));
        expect(attempt.outcome).toBe('skipped_limit');
        expect(attempt.error).toMatch(why);
        expect(await listRecentTransfers(w.db, 10)).toEqual([]);
        expect(w.world.chains.alpha.mempool.size).toBe(0);
        expect(w.world.chains.alpha.balanceOf(ADDR.USDC, ADDR.treasury)).toBe(before);
        const [hit] = await listLimitHits(w.db, 10);
        expect(hit).toMatchObject({ reason: 'validator' });
        expect(hit!.detail).toMatch(why);
      } finally {
        await v.close();
      }
    });
  }

  it('below validateAboveUsd the validator is not asked', async () => {
    const v = await validator('silent');
    try {
      const w = await suite.world('below', { config: withValidator(v.url, '1000000000') });
      const attempt = await processTransfer(w.deps, args(w, 'execute'));
      expect(attempt.outcome, attempt.error).toBe('success');
      expect(v.received).toEqual([]);
    } finally {
      await v.close();
    }
  });
});
