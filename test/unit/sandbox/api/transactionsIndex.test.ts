/**
 * POST /transactions/index body handling: `chainId` as a number (docs/relay-contract.md "POST /transactions/index") or as a
 * decimal string (the live API's published OpenAPI, and what the official SDK sends).
 */
import { pino } from 'pino';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { FaultState } from '../../../../packages/sandbox/src/api/faultState.ts';
import { RequestStore } from '../../../../packages/sandbox/src/api/requestStore.ts';
import { postTransactionsIndex } from '../../../../packages/sandbox/src/api/routes.ts';
import type { SandboxState } from '../../../../packages/sandbox/src/api/state.ts';
import { DEFAULT_SANDBOX_PRICING } from '../../../../packages/sandbox/src/quote/fees.ts';
import { SandboxApiError } from '../../../../packages/sandbox/src/quote/errors.ts';
import { GWEI, PRICES, SOLVER, TABLE } from '../quote/fixtures.ts';

const TX: Hex = `0x${'ab'.repeat(32)}`;

function stateWithIndexer(): { state: SandboxState; indexed: { chainId: number; txHash: Hex }[] } {
  const indexed: { chainId: number; txHash: Hex }[] = [];
  const state: SandboxState = {
    chains: TABLE,
    prices: PRICES,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: SOLVER,
    apiKey: undefined,
    faults: new FaultState(),
    requests: new RequestStore(),
    io: { feeData: async () => ({ maxFeePerGas: GWEI, maxPriorityFeePerGas: GWEI }), balanceOf: async () => 0n },
    indexer: {
      indexTransaction: async (chainId, txHash) => {
        indexed.push({ chainId, txHash });
        return 1;
      },
    },
    logger: pino({ level: 'silent' }),
    nowMs: () => 1_800_000_000_000,
  };
  return { state, indexed };
}

async function rejection(p: Promise<unknown>): Promise<SandboxApiError> {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof SandboxApiError)) throw new Error(`expected a SandboxApiError, got ${String(error)}`);
  return error;
}

describe('POST /transactions/index body', () => {
  it('accepts chainId as a decimal string with extra fields, exactly like a numeric chainId', async () => {
    const { state, indexed } = stateWithIndexer();
    const asString = await postTransactionsIndex(state, { txHash: TX, chainId: '31001', referrer: 'app', requestId: '0x01' });
    const asNumber = await postTransactionsIndex(state, { txHash: TX, chainId: 31002 });
    expect(asString).toEqual({ status: 200, body: { message: 'Transaction indexed', deposits: 1 } });
    expect(asNumber.status).toBe(200);
    expect(indexed).toEqual([
      { chainId: 31001, txHash: TX },
      { chainId: 31002, txHash: TX },
    ]);
  });

  it('refuses non-decimal or unknown chain ids with 400 and indexes nothing', async () => {
    const { state, indexed } = stateWithIndexer();
    for (const chainId of ['0x7919', '31001.0', ' 31001', '', '031001']) {
      const e = await rejection(postTransactionsIndex(state, { txHash: TX, chainId }));
      expect([e.status, e.code]).toEqual([400, null]);
    }
    const unknown = await rejection(postTransactionsIndex(state, { txHash: TX, chainId: '5' }));
    expect([unknown.status, unknown.code]).toEqual([400, null]);
    expect(indexed).toEqual([]);
  });
});
