/**
 * `ballast export --check`: the rows of a period add up per wallet and asset to the ledger's change to the base
 * unit; a row lost or changed shows as a mismatch on its wallet and asset; what could not be priced and what the
 * store does not record are listed.
 */
import { describe, expect, it } from 'vitest';
import { buildExportRows } from '../../../packages/ballast/src/accounting/exportRows.ts';
import { reconcile } from '../../../packages/ballast/src/accounting/reconcile.ts';
import { transferMovements } from '../../../packages/ballast/src/accounting/transferMovements.ts';
import { facts, ledger, transfer, withdrawal } from './fixtures.ts';

const ALL = { sinceMs: 0, untilMs: 1e15 };
const transfers = [
  transferMovements(facts()),
  transferMovements(
    facts({
      transfer: transfer({
        id: 8,
        requestId: '0xreq8',
        status: 'refund',
        outTxHashes: [],
        refund: { amount: 99_900_000n, txHash: '0xr', failReason: null, checkedAtMs: 9_500 },
      }),
      ledger: ledger({ transferId: 8, status: 'refund', receivedOut: null, fees: null, feesSource: 'none' }),
    }),
  ),
  transferMovements(
    facts({
      transfer: transfer({ id: 9, requestId: '0xreq9', status: 'failure', outTxHashes: [] }),
      withdrawal: withdrawal({ transferId: 9, gasPaid: 21_000n }),
    }),
  ),
  transferMovements(
    facts({
      transfer: transfer({ id: 10, requestId: '0xreq10', status: 'withdrawn', outTxHashes: [] }),
      ledger: null,
      withdrawal: withdrawal({ id: 4, transferId: 10, gasPaid: null }),
    }),
  ),
];

describe('reconcile', () => {
  it('every wallet and asset adds up: received − sent − fees = the ledger change, in base units', () => {
    const rows = buildExportRows(transfers, ALL);
    const rec = reconcile(transfers, rows, ALL);
    expect(rec.ok).toBe(true);
    expect(rec.lines.map((l) => [l.wallet.chain, l.asset, l.received, l.sent, l.fees, l.rowsChange, l.ledgerChange])).toEqual([
      // alpha USDC: −100 (filled) −100 +99.9 (refunded) −100 +100 (withdrawn) −100 +100 (withdrawn) = −100.1 USDC;
      // ETH: three origin fees and one withdrawal transaction's gas (the other withdrawal's is not recorded)
      [
        'alpha',
        'ETH',
        0n,
        0n,
        3n * 123_456_789_000_000n + 21_000n,
        -3n * 123_456_789_000_000n - 21_000n,
        -3n * 123_456_789_000_000n - 21_000n,
      ],
      ['alpha', 'USDC', 299_900_000n, 299_900_000n + 99_000_000n, 1_100_000n, -100_100_000n, -100_100_000n],
      ['beta', 'USDC', 99_000_000n, 0n, 0n, 99_000_000n, 99_000_000n],
    ]);
    expect(rec.unpriced).toEqual([]);
    expect(rec.gaps).toEqual([
      {
        transferId: 10,
        requestId: '0xreq10',
        gap: `the network fee of withdrawal 4's transaction 0x${'e1'.repeat(32)} is not recorded in the store`,
      },
      {
        transferId: 10,
        requestId: '0xreq10',
        gap: 'the origin network fee is not in the ledger (no entry is written for status withdrawn)',
      },
    ]);
  });

  it('a lost fee row, a changed volume or a receipt outside the rows is a mismatch on its line only', () => {
    const rows = buildExportRows(transfers, ALL);
    const lost = reconcile(
      transfers,
      rows.filter((r) => r.feeKind !== 'relay_platform'),
      ALL,
    );
    expect(lost.ok).toBe(false);
    expect(lost.lines.filter((l) => !l.ok).map((l) => [l.wallet.chain, l.asset, l.rowsChange - l.ledgerChange])).toEqual([
      ['alpha', 'USDC', 600_000n],
    ]);
    const changed = reconcile(
      transfers,
      rows.map((r) => (r.kind === 'receipt' ? { ...r, amount: r.amount - 1n } : r)),
      ALL,
    );
    expect(changed.lines.filter((l) => !l.ok).map((l) => [l.wallet.chain, l.rowsChange - l.ledgerChange])).toEqual([['beta', -1n]]);
  });

  it('counts a movement in the period its time falls in, on both sides', () => {
    const early = { sinceMs: 0, untilMs: 8_000 }; // the fill's receipt (8,000) falls in the next period
    const rec = reconcile(transfers, buildExportRows(transfers, early), early);
    expect(rec.ok).toBe(true);
    expect(rec.lines.find((l) => l.wallet.chain === 'beta')).toBeUndefined();
  });

  it('lists each transfer with rows it could not price', () => {
    const unpriced = [transferMovements(facts({ quoteRaw: null }))];
    const rec = reconcile(unpriced, buildExportRows(unpriced, ALL), ALL);
    expect(rec.ok).toBe(true);
    expect(rec.unpriced).toEqual([
      { transferId: 7, requestId: '0xreq7', rows: ['payment 99 USDC', 'fee/network 0.000123456789 alpha-native', 'receipt 99 USDC'] },
    ]);
  });
});
