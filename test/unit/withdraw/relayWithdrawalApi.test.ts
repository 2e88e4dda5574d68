/**
 * The withdrawal calls of the Relay client on a loopback server: bodies as docs/relay-contract.md shapes them, each call
 * sent once (503 and 429 are left to the flow's pacing), a 409 `WITHDRAWAL_IN_PROGRESS` surfaced with its
 * `existingJobId`, responses validated (a malformed one is a schema error, not data), bad arguments refused
 * before anything is sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRelayClient } from '../../../packages/ballast/src/relay/client.ts';
import { RelayApiError, RelayRequestError, RelaySchemaError } from '../../../packages/ballast/src/relay/errors.ts';
import { RelayWithdrawalInProgressError, existingJobIdOf } from '../../../packages/ballast/src/relay/withdrawalErrors.ts';
import { startTestServer, type TestServer } from '../relay/testServer.ts';

let server: TestServer;
beforeEach(async () => {
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
});

const client = () => createRelayClient({ baseUrl: server.url, sleep: async () => undefined, random: () => 0 });
const fields = { chainId: 'base', currency: '0xc', amount: '5', ownerChainId: 'base', owner: '0xo', recipient: '0xo' };

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('Relay withdrawal calls', () => {
  it('sends the spec bodies and parses the answers', async () => {
    server.on('/withdrawals/attest-deposit', { status: 200, body: { success: true } });
    server.on(
      '/withdrawals/request',
      { status: 200, body: { nonce: '0xab', amount: '5' } },
      { status: 200, body: { jobId: 'j1', status: 'processing' } },
    );
    server.on('/withdrawals/status', { status: 200, body: { status: 'ready', transaction: { chainId: 1 } } });
    const c = client();
    expect(await c.attestDeposit({ chainId: 8453, transactionId: '0xdead' })).toEqual({ success: true });
    expect(await c.prepareWithdrawal(fields)).toEqual({ nonce: '0xab', amount: '5' });
    expect(await c.executeWithdrawal({ ...fields, nonce: '0xab', signature: '0x01', additionalData: { k: 'v' } })).toEqual({
      jobId: 'j1',
      status: 'processing',
    });
    expect(await c.withdrawalStatus('j-1')).toEqual({ status: 'ready', transaction: { chainId: 1 } });
    expect(server.requests.map((r) => [r.method, r.url, r.body === '' ? null : JSON.parse(r.body)])).toEqual([
      ['POST', '/withdrawals/attest-deposit', { chainId: 8453, transactionId: '0xdead' }],
      ['POST', '/withdrawals/request', fields],
      ['POST', '/withdrawals/request', { ...fields, nonce: '0xab', additionalData: { k: 'v' }, signature: '0x01' }],
      ['GET', '/withdrawals/status?id=j-1', null],
    ]);
  });

  it('sends 503 and 429 answers back at once, without retrying', async () => {
    server.on('/withdrawals/attest-deposit', { status: 503, body: { message: 'not yet finalized' } });
    server.on('/withdrawals/status', { status: 429, body: { message: 'slow down' } });
    const attest = await rejection(client().attestDeposit({ chainId: 1, transactionId: '0x1' }));
    expect(attest).toBeInstanceOf(RelayApiError);
    expect((attest as RelayApiError).httpStatus).toBe(503);
    expect(((await rejection(client().withdrawalStatus('j'))) as RelayApiError).httpStatus).toBe(429);
    expect(server.requests).toHaveLength(2);
  });

  it('surfaces the job of a 409 WITHDRAWAL_IN_PROGRESS', async () => {
    server.on('/withdrawals/request', {
      status: 409,
      body: { message: 'busy', errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: 'job-7' },
    });
    const error = await rejection(client().executeWithdrawal({ ...fields, nonce: '0x1', signature: '0x2' }));
    expect(error).toBeInstanceOf(RelayWithdrawalInProgressError);
    expect(error).toMatchObject({ existingJobId: 'job-7', httpStatus: 409, code: 'RELAY_HTTP_409', errorCode: 'WITHDRAWAL_IN_PROGRESS' });
    expect(existingJobIdOf(error)).toBe('job-7');
    server.on('/withdrawals/request', { status: 409, body: { message: 'conflict' } });
    expect(existingJobIdOf(await rejection(client().executeWithdrawal({ ...fields, nonce: '0x1', signature: '0x2' })))).toBeUndefined();
  });

  it('refuses malformed answers and arguments', async () => {
    server.on('/withdrawals/request', { status: 200, body: { nonce: 'abc', amount: '5' } });
    expect(await rejection(client().prepareWithdrawal(fields))).toBeInstanceOf(RelaySchemaError);
    server.on('/withdrawals/status', { status: 200, body: { state: 'ready' } });
    expect(await rejection(client().withdrawalStatus('j'))).toBeInstanceOf(RelaySchemaError);
    const sent = server.requests.length;
    expect(await rejection(client().prepareWithdrawal({ ...fields, amount: '0' }))).toBeInstanceOf(RelayRequestError);
    expect(await rejection(client().prepareWithdrawal({ ...fields, owner: '' }))).toBeInstanceOf(RelayRequestError);
    expect(await rejection(client().executeWithdrawal({ ...fields, nonce: '0x1', signature: 'zz' }))).toBeInstanceOf(RelayRequestError);
    expect(await rejection(client().attestDeposit({ chainId: 0, transactionId: '0x1' }))).toBeInstanceOf(RelayRequestError);
    expect(server.requests).toHaveLength(sent);
  });
});
