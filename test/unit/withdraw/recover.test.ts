/**
 * One withdrawal pass (src/withdraw/recover.ts) with a hand-wired context, a real SQLite file and a scripted
 * Relay API on loopback: a Bitcoin owner is refused with a message naming its chain before any API call; a
 * record describing another deposit is refused and recorded; a deposit not yet withdrawable writes nothing; a
 * refusal is not asked about again by later passes.
 */
import { pino } from 'pino';
import { createPublicClient, http } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { createBvmAdapter } from '../../../packages/ballast/src/chains/bvm/adapter.ts';
import { createEvmAdapter } from '../../../packages/ballast/src/chains/evm/adapter.ts';
import type { LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { WITHDRAWALS_SECTION_DEFAULT } from '../../../packages/ballast/src/config/withdrawalsSchema.ts';
import type { CycleContext, WalletRuntime } from '../../../packages/ballast/src/cycle/context.ts';
import { pausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import { createMetrics } from '../../../packages/ballast/src/metrics/metrics.ts';
import { createRelayClient } from '../../../packages/ballast/src/relay/client.ts';
import type { ChainsResponse } from '../../../packages/protocol/src/relay/schemas.ts';
import { listUnresolvedFailures } from '../../../packages/ballast/src/store/failures.ts';
import type { SqliteStoreDb } from '../../../packages/ballast/src/store/sqliteDb.ts';
import { createTransfer, transitionTransfer, type NewTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { getWithdrawalOfTransfer } from '../../../packages/ballast/src/store/withdrawals.ts';
import { recoverDeposits } from '../../../packages/ballast/src/withdraw/recover.ts';
import { startTestServer, type TestServer } from '../relay/testServer.ts';
import { newTransfer, tempDb, type TempDb } from '../store/helpers.ts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const BTC_USER = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const BTC = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';

let tmp: TempDb;
let db: SqliteStoreDb;
let server: TestServer;
beforeEach(async () => {
  tmp = tempDb();
  db = tmp.open();
  server = await startTestServer();
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

const chainsDoc = {
  chains: [
    {
      id: 8253038,
      name: 'bitcoin',
      vmType: 'bvm',
      currency: { symbol: 'BTC', address: BTC, decimals: 8 },
      protocol: { v2: { chainId: 'bitcoin', depository: 'bcrt1qdepository' } },
    },
    {
      id: 8453,
      name: 'base',
      vmType: 'evm',
      currency: { symbol: 'ETH', address: '0x0000000000000000000000000000000000000000', decimals: 18 },
      protocol: { v2: { chainId: 'base', depository: '0x1111111111111111111111111111111111111111' } },
    },
  ],
} as ChainsResponse; // a hand-written GET /chains document with the fields the pass reads

function context(): CycleContext {
  const chains = new Map<string, ChainAdapter>([
    [
      'bitcoin',
      createBvmAdapter({
        name: 'bitcoin',
        chainId: 8253038,
        esploraUrl: 'http://127.0.0.1:9',
        network: 'regtest',
        highValueSats: 100_000_000n,
        minerFeeReserveSats: 0n,
        maxFeeRateSatPerVb: 50,
        signers: new Map(),
      }),
    ],
    [
      'base',
      createEvmAdapter({
        name: 'base',
        chainId: 8453,
        client: createPublicClient({ transport: http('http://127.0.0.1:9') }),
        accounts: new Map([['treasury', account]]),
        confirmations: 1,
      }),
    ],
  ]);
  const wallets = new Map<string, WalletRuntime>([
    ['treasury', { name: 'treasury', vm: 'evm', address: account.address }],
    ['treasury_btc', { name: 'treasury_btc', vm: 'bvm', address: BTC_USER }],
  ]);
  return {
    config: { withdrawals: { ...WITHDRAWALS_SECTION_DEFAULT } } as LoadedConfig, // the pass reads only `withdrawals`
    db,
    relay: createRelayClient({ baseUrl: server.url, sleep: async () => undefined }),
    chains,
    wallets,
    metrics: createMetrics(),
    logger: pino({ level: 'silent' }),
    now: () => 10_000_000,
    sleep: async () => undefined,
  };
}

async function failedTransfer(over: Partial<NewTransfer>): Promise<number> {
  const { transferId } = await createTransfer(db, await newTransfer(db, over));
  await transitionTransfer(db, transferId, 'prepared', 'broadcast', { nowMs: 2100 });
  await transitionTransfer(db, transferId, 'broadcast', 'failure', { nowMs: 2200, relayStatus: 'failure' });
  return transferId;
}

describe('recoverDeposits', () => {
  it('refuses a Bitcoin owner before any API call, naming the chain, and does not ask again', async () => {
    const id = await failedTransfer({
      originChain: 'bitcoin',
      originChainId: 8253038,
      originCurrency: BTC,
      user: BTC_USER,
      requestId: '0xbtc',
    });
    const ctx = context();
    const report = await recoverDeposits(ctx, { chainsDoc });
    expect(report).toHaveLength(1);
    expect(report[0]).toMatchObject({ transferId: id, outcome: 'refused', state: 'failed' });
    expect(report[0]!.reason).toBe(
      `WITHDRAWAL_OWNER_UNSUPPORTED: the deposit's owner ${BTC_USER} is on bitcoin (vmType bvm): the Relay API rejects withdrawals by ` +
        'Bitcoin and Lighter owners (docs/relay-contract.md "Withdrawal endpoints"); recover this deposit with the service\'s support',
    );
    expect(server.requests).toEqual([]);
    expect(await getWithdrawalOfTransfer(db, id)).toMatchObject({ state: 'failed', attempts: 0 });
    expect(await recoverDeposits(ctx, { chainsDoc })).toEqual([]);
    expect(server.requests).toEqual([]);
    expect(pausedRoutes(await listUnresolvedFailures(db))).toHaveLength(1); // nothing recovered: still paused
    expect(await ctx.metrics.registry.metrics()).toMatch(/^ballast_withdrawals_total\{outcome="refused"\} 1$/m);
  });

  it('refuses a record that names another depositor, and waits while a deposit is not withdrawable', async () => {
    const mismatch = await failedTransfer({ requestId: '0xaa' });
    const waiting = await failedTransfer({ requestId: '0xbb' });
    const origin = (depositor: string) => ({
      depositor,
      chainId: 8453,
      currency: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '100000000',
      transactionId: `0x${'22'.repeat(32)}`,
    });
    server.on(
      '/requests/v3',
      {
        status: 200,
        body: {
          requests: [
            {
              id: '0xaa',
              status: 'failure',
              protocol: { isWithdrawable: true, deposit: { origin: origin('0x0000000000000000000000000000000000000001') } },
            },
          ],
        },
      },
      {
        status: 200,
        body: {
          requests: [{ id: '0xbb', status: 'failure', protocol: { isWithdrawable: false, deposit: { origin: origin(account.address) } } }],
        },
      },
    );
    const report = await recoverDeposits(context(), { chainsDoc });
    expect(report.map((r) => [r.transferId, r.outcome])).toEqual([
      [mismatch, 'refused'],
      [waiting, 'not_withdrawable'],
    ]);
    expect(report[0]!.reason).toContain(
      'WITHDRAWAL_NOT_ELIGIBLE: the record does not describe our deposit: depositor is 0x0000000000000000000000000000000000000001',
    );
    expect(await getWithdrawalOfTransfer(db, waiting)).toBeUndefined();
    expect(server.requests.map((r) => r.url)).toEqual(['/requests/v3?id=0xaa', '/requests/v3?id=0xbb']);
  });

  it('names the request when --request matches no transfer of ours', async () => {
    await expect(recoverDeposits(context(), { chainsDoc, requestId: '0xnone' })).rejects.toThrow(
      'no transfer of ours has request id 0xnone',
    );
  });
});
