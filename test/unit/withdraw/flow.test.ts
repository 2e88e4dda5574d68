/**
 * The withdrawal flow (src/withdraw/advance.ts) against a scripted Relay API on loopback and a real SQLite file:
 * attest 503 waited out, 400 terminal; prepare → signature over the digest (checked independently) → execute;
 * status paced at pollMs and rateLimitedPollMs after a 429; 409 adopts the job in flight; expired and failed jobs
 * start again from prepare until maxAttempts; a stale nonce starts again; a tampered ready transaction is refused
 * with nothing signed; a crash after any write resumes without repeating what was done; a prepare offering less
 * than the deposit leaves the remainder open (transfer not withdrawn) until a later job returns the rest.
 */
import { createHash } from 'node:crypto';
import { pino } from 'pino';
import { createPublicClient, encodeFunctionData, erc20Abi, http, recoverMessageAddress, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import { WITHDRAWALS_SECTION_DEFAULT } from '../../../packages/ballast/src/config/withdrawalsSchema.ts';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { depositoryExecuteAbi } from '../../../packages/protocol/src/protocol/depositoryExecute.ts';
import { createRelayClient } from '../../../packages/ballast/src/relay/client.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { createTransfer, getTransfer, transitionTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { createWithdrawal, getWithdrawal, recordJob, markAttested, recordSigned } from '../../../packages/ballast/src/store/withdrawals.ts';
import { advanceWithdrawal } from '../../../packages/ballast/src/withdraw/advance.ts';
import type { WithdrawalCheckpoint, WithdrawalDeps } from '../../../packages/ballast/src/withdraw/deps.ts';
import { newTransfer, tempDb, type TempDb } from '../store/helpers.ts';
import { startTestServer, type CannedResponse, type TestServer } from '../relay/testServer.ts';

const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80' as const; // anvil dev key #0
const account = privateKeyToAccount(KEY);
const USER = account.address; // newTransfer's user
const TOKEN = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as Address;
const DEPOSITORY = '0x1111111111111111111111111111111111111111' as Address;
const AMOUNT = 100_000_000n;

let tmp: TempDb;
let db: SqliteStoreDb;
let server: TestServer;
let clock: number;
let sleeps: number[];
let metrics: ReturnType<typeof createMetrics>;

beforeEach(async () => {
  tmp = tempDb();
  db = tmp.open();
  server = await startTestServer();
  clock = 1_700_000_000_000;
  sleeps = [];
  metrics = createMetrics();
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

async function deposited(requestId = `0x${'ab'.repeat(32)}`): Promise<number> {
  const { transferId } = await createTransfer(db, await newTransfer(db, { requestId }));
  await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 2100 });
  await transitionTransfer(db, transferId, 'broadcast', 'deposited', { nowMs: 2200 });
  return transferId;
}

async function withdrawal(transferId: number): Promise<number> {
  const t = (await getTransfer(db, transferId))!;
  return createWithdrawal(db, {
    transferId,
    requestId: t.requestId!,
    chain: 'base',
    chainId: 8453,
    chainSlug: 'base',
    wallet: 'treasury',
    owner: USER,
    recipient: USER,
    currency: TOKEN,
    amount: AMOUNT,
    depositTx: t.txs.at(-1)!.txHash,
    nowMs: clock,
  });
}

function deps(over: Partial<WithdrawalDeps> = {}, config: Partial<WithdrawalDeps['config']> = {}): WithdrawalDeps {
  const client = createPublicClient({ transport: http('http://127.0.0.1:9') }); // never called: nothing here reaches a chain
  return {
    db,
    relay: createRelayClient({ baseUrl: server.url, sleep: async () => undefined }),
    adapter: createEvmAdapter({ name: 'base', chainId: 8453, client, accounts: new Map([['treasury', account]]), confirmations: 1 }),
    depository: DEPOSITORY,
    config: { ...WITHDRAWALS_SECTION_DEFAULT, maxWaitSec: 3600, ...config },
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
      clock += ms;
    },
    logger: pino({ level: 'silent' }),
    metrics,
    ...over,
  };
}

const ok = (body: unknown): CannedResponse => ({ status: 200, body });
const prepared = (nonce: string) => ok({ nonce, amount: AMOUNT.toString() });
const job = (jobId: string) => ok({ jobId, status: 'processing' });
const requestBodies = () =>
  server.requests.filter((r) => r.path === '/withdrawals/request').map((r) => JSON.parse(r.body) as Record<string, string>);
const sha256Hex = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A ready transaction paying `to` (the depository's execute of one ERC-20 transfer). */
function readyTx(to: Address, amount = AMOUNT): unknown {
  const call = {
    to: TOKEN,
    data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    value: 0n,
    allowFailure: false,
  };
  const data = encodeFunctionData({
    abi: depositoryExecuteAbi,
    functionName: 'execute',
    args: [{ calls: [call], nonce: 1n, expiration: BigInt(Math.floor(clock / 1000) + 600) }, `0x${'11'.repeat(65)}` as Hex],
  });
  return { chainId: 8453, to: DEPOSITORY, data, value: '0' };
}

async function metricValue(name: string, label: string): Promise<number> {
  const m = (await metrics.registry.getSingleMetric(name)!.get()).values.find((v) => Object.values(v.labels).includes(label));
  return m?.value ?? 0;
}

describe('advanceWithdrawal', () => {
  it('waits out attest 503s, signs the digest, paces status polls and refuses a tampered ready transaction', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    server.on(
      '/withdrawals/attest-deposit',
      { status: 503, body: { message: 'not yet finalized' } },
      { status: 503, body: { message: 'not yet finalized' } },
      ok({ success: true }),
    );
    server.on('/withdrawals/request', prepared('0x5f3c'), job('job-1'));
    server.on(
      '/withdrawals/status',
      ok({ status: 'initiating' }),
      { status: 429, body: { message: 'too fast' } },
      ok({ status: 'ready', transaction: readyTx('0x4444444444444444444444444444444444444444') }),
    );

    const { withdrawal: w } = await advanceWithdrawal(deps(), id);

    expect(sleeps).toEqual([5000, 5000, 5000, 15000]);
    expect(w.state).toBe('failed');
    expect(w.reason).toMatch(/^WITHDRAWAL_TX_REFUSED: ready transaction of job job-1 refused, nothing signed: calls: transfer pays 0x4444/);
    expect(w.txHash).toBeNull();
    expect((await getTransfer(db, transferId))!.status).toBe('deposited'); // still credited, nothing recovered
    expect(await metricValue('ballast_withdrawals_total', 'refused')).toBe(1);
    // attest body: numeric chain id and our deposit.
    expect(JSON.parse(server.requests.find((r) => r.path === '/withdrawals/attest-deposit')!.body)).toEqual({
      chainId: 8453,
      transactionId: (await getTransfer(db, transferId))!.txs.at(-1)!.txHash,
    });
    // The execute carries prepare's nonce and a personal-message signature over the raw digest of the hand-built text.
    const [prepare, execute] = requestBodies();
    expect(prepare).toEqual({ chainId: 'base', currency: TOKEN, amount: '100000000', ownerChainId: 'base', owner: USER, recipient: USER });
    const text = `{"amount":"100000000","chainId":"base","currency":"${TOKEN}","nonce":"0x5f3c","operation":"withdrawal","owner":"${USER}","ownerChainId":"base","recipient":"${USER}"}`;
    expect(execute).toMatchObject({ ...prepare, nonce: '0x5f3c' });
    expect(await recoverMessageAddress({ message: { raw: `0x${sha256Hex(text)}` }, signature: execute!.signature as Hex })).toBe(USER);
  });

  it('adopts the job a 409 names and completes when it is executed: the transfer is withdrawn', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), {
      status: 409,
      body: { message: 'in progress', errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: 'job-9' },
    });
    server.on('/withdrawals/status', ok({ status: 'executed' }));
    const { withdrawal: w } = await advanceWithdrawal(deps(), id);
    expect(w).toMatchObject({ state: 'executed', jobId: 'job-9', jobStatus: 'executed' });
    expect(await getTransfer(db, transferId)).toMatchObject({ status: 'withdrawn', resolution: 'withdrawn: job job-9 executed' });
    expect((await getTransfer(db, transferId))!.events.some((e) => e.detail?.includes('resuming job job-9'))).toBe(true);
    expect(server.requests.filter((r) => r.path === '/withdrawals/status')[0]!.url).toBe('/withdrawals/status?id=job-9');
    expect(await metricValue('ballast_withdrawals_total', 'executed')).toBe(1);
  });

  it('keeps the remainder of a short prepare open, asks for exactly the rest, and withdraws the transfer only when all is back', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', ok({ nonce: '0x01', amount: '75000000' }), job('job-1'), ok({ nonce: '0x02', amount: '0' }));
    server.on('/withdrawals/status', ok({ status: 'executed' }));

    const logged: { level: number; msg: string; remainder?: string }[] = [];
    const logger = pino(
      { level: 'error' },
      { write: (line: string) => void logged.push(JSON.parse(line) as { level: number; msg: string }) },
    );
    const first = await advanceWithdrawal(deps({ logger }, { maxAttempts: 1 }), id);
    expect(logged.map((l) => [l.level, l.remainder])).toEqual([
      [50, '25000000'],
      [50, '25000000'],
    ]); // the short job, then the empty offer
    expect(logged[0]!.msg).toMatch(/returned less than the deposit; the remainder is still open/);
    expect(first.withdrawal).toMatchObject({
      state: 'attested',
      receivedAmount: 75_000_000n,
      attempts: 0,
      jobId: null,
      preparedAmount: null,
    });
    expect(first.pausedBecause).toBe(
      "prepare offers 0: 25000000 of the deposit's 100000000 is still open (75000000 back); asked again by the next pass",
    );
    expect((await getTransfer(db, transferId))!.status).toBe('deposited');
    expect(requestBodies().map((b) => [b.nonce ?? 'prepare', b.amount])).toEqual([
      ['prepare', '100000000'],
      ['0x01', '75000000'],
      ['prepare', '25000000'],
    ]);
    expect(
      (await getTransfer(db, transferId))!.events.some((e) =>
        e.detail?.includes("job job-1 executed paid 75000000 of the deposit's 100000000: 75000000 back, 25000000 still open"),
      ),
    ).toBe(true);
    expect(await metricValue('ballast_withdrawal_restarts_total', 'short')).toBe(1);
    expect(await metricValue('ballast_withdrawals_total', 'executed')).toBe(0);

    server.on('/withdrawals/request', ok({ nonce: '0x03', amount: '25000000' }), job('job-2'));
    const second = await advanceWithdrawal(deps({}, { maxAttempts: 1 }), id);
    expect(second.withdrawal).toMatchObject({ state: 'executed', receivedAmount: AMOUNT, jobId: 'job-2', attempts: 1 });
    expect(
      requestBodies()
        .slice(3)
        .map((b) => [b.nonce ?? 'prepare', b.amount]),
    ).toEqual([
      ['prepare', '25000000'],
      ['0x03', '25000000'],
    ]);
    expect(await getTransfer(db, transferId)).toMatchObject({ status: 'withdrawn', resolution: 'withdrawn: job job-2 executed' });
    expect(await metricValue('ballast_withdrawals_total', 'executed')).toBe(1);
  });

  it('leaves a remainder open when prepare refuses it, and still refuses an offer above what is open', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', ok({ nonce: '0x01', amount: '60000000' }), job('job-1'), {
      status: 400,
      body: { message: 'amount above the available hub balance' },
    });
    server.on('/withdrawals/status', ok({ status: 'executed' }));
    const first = await advanceWithdrawal(deps(), id);
    expect(first.withdrawal).toMatchObject({ state: 'attested', receivedAmount: 60_000_000n });
    expect(first.pausedBecause).toContain('prepare refused (amount above the available hub balance): 40000000 of the deposit');
    expect((await getTransfer(db, transferId))!.status).toBe('deposited');

    server.on('/withdrawals/request', ok({ nonce: '0x02', amount: '40000001' }));
    const second = await advanceWithdrawal(deps(), id);
    expect(second.withdrawal).toMatchObject({ state: 'failed', receivedAmount: 60_000_000n });
    expect(second.withdrawal.reason).toBe(
      "WITHDRAWAL_PREPARE_REFUSED: prepare offers 40000001, expected at most the 40000000 still open of the deposit's 100000000",
    );
    expect((await getTransfer(db, transferId))!.status).toBe('deposited');
  });

  it('does not adopt a job another of our withdrawals holds: it waits its turn', async () => {
    const other = await withdrawal(await deposited('0xaa'));
    await markAttested(db, other, clock);
    await recordSigned(db, other, { nonce: '0x01', preparedAmount: AMOUNT, additionalData: null, signature: '0x01', nowMs: clock });
    await recordJob(db, other, { jobId: 'job-9', jobStatus: 'processing', adopted: false, nowMs: clock });
    const id = await withdrawal(await deposited('0xbb'));
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x02'), {
      status: 409,
      body: { message: 'in progress', errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: 'job-9' },
    });
    const result = await advanceWithdrawal(deps(), id);
    expect(result.withdrawal).toMatchObject({ state: 'executing', jobId: null });
    expect(result.pausedBecause).toContain(`job job-9 of withdrawal ${other} is in flight`);
    expect(server.requests.some((r) => r.path === '/withdrawals/status')).toBe(false);
  });

  it('starts again from prepare after an expired job and gives up when the second one fails (maxAttempts 2)', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), job('job-1'), prepared('0x02'), job('job-2'));
    server.on(
      '/withdrawals/status',
      ok({ status: 'processing' }),
      ok({ status: 'expired' }),
      ok({ status: 'failed', reason: 'allocator down' }),
    );
    const { withdrawal: w } = await advanceWithdrawal(deps({}, { maxAttempts: 2 }), id);
    expect(w.state).toBe('failed');
    expect(w.attempts).toBe(2);
    expect(w.reason).toBe('WITHDRAWAL_GAVE_UP: job job-2 failed: allocator down; 2 job(s) started (withdrawals.maxAttempts 2)');
    expect(requestBodies().map((b) => b.nonce ?? 'prepare')).toEqual(['prepare', '0x01', 'prepare', '0x02']);
    expect(server.requests.filter((r) => r.path === '/withdrawals/status').map((r) => r.url)).toEqual([
      '/withdrawals/status?id=job-1',
      '/withdrawals/status?id=job-1',
      '/withdrawals/status?id=job-2',
    ]);
    expect(
      (await getTransfer(db, transferId))!.events.some((e) => e.detail?.includes('job job-1 expired; starting again from prepare')),
    ).toBe(true);
    expect(await metricValue('ballast_withdrawal_restarts_total', 'expired')).toBe(1);
    expect(await metricValue('ballast_withdrawals_total', 'failed')).toBe(1);
    expect((await getTransfer(db, transferId))!.status).toBe('deposited');
  });

  it('treats attest 400 as terminal and a stale-nonce 400 at execute as a reason to prepare again', async () => {
    const refused = await withdrawal(await deposited('0xaa'));
    server.on('/withdrawals/attest-deposit', { status: 400, body: { message: 'deposit was filled' } });
    const a = await advanceWithdrawal(deps(), refused);
    expect(a.withdrawal).toMatchObject({
      state: 'failed',
      reason: 'WITHDRAWAL_ATTEST_REFUSED: attest-deposit refused deposit ' + a.withdrawal.depositTx + ': deposit was filled',
    });
    expect(requestBodies()).toEqual([]);

    const id = await withdrawal(await deposited('0xbb'));
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), { status: 400, body: { message: 'stale nonce' } }, prepared('0x02'), job('job-2'));
    server.on('/withdrawals/status', ok({ status: 'executed' }));
    const b = await advanceWithdrawal(deps(), id);
    expect(b.withdrawal).toMatchObject({ state: 'executed', attempts: 2, jobId: 'job-2' });
    expect(await metricValue('ballast_withdrawal_restarts_total', 'rejected')).toBe(1);
  });

  it('pauses after transientRetries failures in a row, and at maxWaitSec, leaving the state to resume', async () => {
    const id = await withdrawal(await deposited());
    server.on('/withdrawals/attest-deposit', { status: 503, body: { message: 'recovery in progress' } });
    const a = await advanceWithdrawal(deps({}, { transientRetries: 2 }), id);
    expect(a.withdrawal.state).toBe('attesting');
    expect(a.pausedBecause).toMatch(/attest-deposit: .*503.*tried again by the next pass/);
    expect(sleeps).toEqual([5000, 5000]);

    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), job('job-1'));
    server.on('/withdrawals/status', ok({ status: 'attesting' }));
    const b = await advanceWithdrawal(deps({}, { maxWaitSec: 12 }), id);
    expect(b.withdrawal).toMatchObject({ state: 'processing', jobStatus: 'attesting' });
    expect(b.pausedBecause).toBe('still processing; polled again by the next pass');
  });

  it('resumes after a crash at every boundary without sending execute twice', async () => {
    for (const crashAt of ['attested', 'signed', 'job'] as WithdrawalCheckpoint[]) {
      server.requests.length = 0;
      const transferId = await deposited(`0x${crashAt}`);
      const id = await withdrawal(transferId);
      server.on('/withdrawals/attest-deposit', ok({ success: true }));
      server.on('/withdrawals/request', prepared('0x01'), job(`job-${crashAt}`), {
        status: 409,
        body: { message: 'in progress', errorCode: 'WITHDRAWAL_IN_PROGRESS', existingJobId: `job-${crashAt}` },
      });
      server.on('/withdrawals/status', ok({ status: 'executed' }));
      const crash = (step: WithdrawalCheckpoint) => {
        if (step === crashAt) throw new Error(`killed at ${step}`);
      };
      await expect(advanceWithdrawal(deps({ checkpoint: crash }), id)).rejects.toThrow(`killed at ${crashAt}`);
      const resumed = await advanceWithdrawal(deps(), id);
      expect(resumed.withdrawal.state, crashAt).toBe('executed');
      expect(resumed.withdrawal.jobId, crashAt).toBe(`job-${crashAt}`);
      const bodies = requestBodies();
      expect(
        bodies.filter((b) => b.signature !== undefined),
        crashAt,
      ).toHaveLength(1); // one execute only
      expect(
        bodies.filter((b) => b.signature === undefined),
        crashAt,
      ).toHaveLength(1); // one prepare only
      expect((await getTransfer(db, transferId))!.status, crashAt).toBe('withdrawn');
    }
  });

  it('signs no second ready transaction for a job whose first one reverted; a new job after it expires gets one; both paid gas', async () => {
    const transferId = await deposited();
    const id = await withdrawal(transferId);
    const real = deps().adapter;
    const signed: string[] = [];
    const landed = new Map<string, 'confirmed' | 'reverted'>();
    const adapter: ChainAdapter = {
      ...real,
      capabilities: {
        ...real.capabilities,
        withdrawalTxSigner: {
          signWithdrawalTransaction: async (_wallet, tx) => {
            const txHash = `0x${String(signed.length + 1).padStart(64, '0')}`;
            signed.push(tx.data);
            return { chainId: tx.chainId, txHash, rawTx: `0x02${txHash.slice(2)}`, request: { nonce: signed.length } };
          },
        },
        gasMeter: { gasPaid: async (txHash) => (txHash.endsWith('1') ? 30_000n : 50_000n) * 1_000_000_000n },
      },
      broadcast: async (raw) => void landed.set(`0x${raw.slice(4)}`, landed.size === 0 ? 'reverted' : 'confirmed'),
      lookup: async (tx) => {
        const status = landed.get(tx.txHash);
        return status ? { state: 'mined', status, blockNumber: 9n, blockHash: `0x${'99'.repeat(32)}` } : { state: 'unknown' };
      },
      waitForInclusion: async () => ({ kind: 'mined', status: 'confirmed', blockNumber: 9n, blockHash: `0x${'99'.repeat(32)}` }),
    };
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), job('job-1'), prepared('0x02'), job('job-2'));
    const ready = ok({ status: 'ready', transaction: readyTx(USER) });
    server.on('/withdrawals/status', ready, ready, ready, ok({ status: 'expired' }), ready);
    const { withdrawal: w } = await advanceWithdrawal(deps({ adapter }), id);
    expect(w).toMatchObject({ state: 'executed', attempts: 2, jobId: 'job-2', txHash: `0x${'2'.padStart(64, '0')}`, revertedTx: null });
    expect(signed).toHaveLength(2); // one per job: the reverted one was not followed by another for job-1
    expect(w.gasPaid).toBe(80_000n * 1_000_000_000n); // the reverted transaction's gas counts too, each once
    const details = (await getTransfer(db, transferId))!.events.map((e) => e.detail ?? '');
    expect(details.some((d) => d.includes(`ready transaction 0x${'1'.padStart(64, '0')} of job job-1 reverted in block 9`))).toBe(true);
  });

  it('refuses a ready transaction when GET /chains lists no depository, and one whose shape is not EVM', async () => {
    const id = await withdrawal(await deposited());
    server.on('/withdrawals/attest-deposit', ok({ success: true }));
    server.on('/withdrawals/request', prepared('0x01'), job('job-1'));
    server.on('/withdrawals/status', ok({ status: 'ready', transaction: readyTx(USER) }));
    const a = await advanceWithdrawal(deps({ depository: undefined }), id);
    expect(a.withdrawal.reason).toMatch(/^WITHDRAWAL_TX_REFUSED: GET \/chains lists no protocol.v2.depository/);

    const id2 = await withdrawal(await deposited('0xcc'));
    server.on('/withdrawals/request', prepared('0x01'), job('job-2'));
    server.on('/withdrawals/status', ok({ status: 'ready', transaction: { instructions: [] } }));
    const b = await advanceWithdrawal(deps(), id2);
    expect(b.withdrawal.reason).toMatch(/^WITHDRAWAL_TX_REFUSED: the ready transaction is not an EVM transaction request/);
    expect((await getWithdrawal(db, id2))!.txHash).toBeNull();
  });
});
