/**
 * Origin gas in the ledger on Solana and Bitcoin origins (the sandbox's litesvm node and Esplora node): on Solana
 * the payer's whole SOL spend in lamports (the fee, and the rent of the vault's token account the first deposit of
 * the mint creates), equal to what the wallet's SOL balance lost; Bitcoin's inputs − outputs in satoshis, equal to
 * what the wallet lost beyond the amount.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { getLedgerEntry } from '../../packages/ballast/src/store/ledger.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { oneTransferTreasury } from './nonEvm/treasury.ts';

let sandbox: Sandbox;
const tmp = tempDir('ballast-ledger-nonevm-');
beforeAll(async () => {
  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500 });
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

describe('ledger gas on non-EVM origins', () => {
  it('Solana origin: the fee and the rent the deposit paid, in lamports', async () => {
    const t = await oneTransferTreasury(sandbox, tmp.dir, { asset: 'USDC', from: 'solana', to: 'alpha', amount: 1_000_000_000n });
    const sol = () => sandbox.solana!.node.balance(sandbox.solana!.treasury.address);
    const solBefore = sol();
    try {
      const report = await t.ballast.runCycle('once');
      expect(report.attempts[0]!.outcome, report.attempts[0]!.error).toBe('success');
      const entry = (await getLedgerEntry(t.ballast.db, report.attempts[0]!.transferId!))!;
      expect(entry.gasDecimals).toBe(9);
      expect(entry.gasPaid! > 2_039_280n).toBe(true); // the vault's token account rent, and the fee
      expect(entry.gasPaid).toBe(solBefore - sol());
      expect(entry.receivedOut! >= entry.quotedMinOut).toBe(true);
    } finally {
      await t.ballast.close();
    }
  });

  it('Bitcoin origin: inputs − outputs, what the wallet lost beyond the amount', async () => {
    const amount = 10_000_000n;
    const t = await oneTransferTreasury(sandbox, tmp.dir, { asset: 'BTC', from: 'bitcoin', to: 'alpha', amount, reserve: 100_000n });
    try {
      const report = await t.ballast.runCycle('once');
      expect(report.attempts[0]!.outcome, report.attempts[0]!.error).toBe('success');
      const entry = (await getLedgerEntry(t.ballast.db, report.attempts[0]!.transferId!))!;
      expect(entry.gasDecimals).toBe(8);
      expect(entry.gasPaid! > 0n).toBe(true);
      expect(entry.gasPaid).toBe(t.fromBefore - (await t.from.balance()) - amount);
    } finally {
      await t.ballast.close();
    }
  });
});
