/**
 * The export rows of each kind of finished transfer: a fill paired at the received volume with Relay's kept amount
 * split into fee rows, a refund and a withdrawal paired the same way, an unreturned deposit, a mined cancel's miner
 * fee, a cross-asset order, destination decimals the origin cannot hold, a surplus, and the period's bounds.
 */
import { describe, expect, it } from 'vitest';
import { buildExportRows, rowsOfTransfer, type AccountingRow } from '../../../packages/ballast/src/accounting/exportRows.ts';
import { transferMovements } from '../../../packages/ballast/src/accounting/transferMovements.ts';
import { wholeUnits } from '../../../packages/ballast/src/accounting/reconcile.ts';
import { amountOf, DEPOSIT_HASH, facts, FILL_HASH, ledger, quote, transfer, tx, withdrawal, ZERO } from './fixtures.ts';

/** `<kind>[/<fee kind>] <direction> <whole units> <asset>` per row, for compact expectations. */
const brief = (rows: AccountingRow[]) =>
  rows.map((r) => `${r.feeKind ? `fee/${r.feeKind}` : r.kind} ${r.direction} ${wholeUnits(r)} ${r.asset}`);
const sum = (rows: AccountingRow[], pick: (r: AccountingRow) => boolean) => rows.filter(pick).reduce((s, r) => s + r.amount, 0n);
const ALL = { sinceMs: 0, untilMs: 1e15 };

describe('a filled same-asset transfer', () => {
  const rows = buildExportRows([transferMovements(facts())], ALL);

  it('pays the received volume as one internal transfer and writes what Relay kept as one fee row per component', () => {
    expect(brief(rows)).toEqual([
      'payment out 99 USDC',
      'fee/relay_execution out 0.2 USDC',
      'fee/relay_platform out 0.6 USDC',
      'fee/relay_app out 0.2 USDC',
      'fee/network out 0.000123456789 ETH',
      'receipt in 99 USDC',
    ]);
    const [payment, receipt] = [rows[0]!, rows.at(-1)!];
    expect(payment.pairId).toBe('ballast-7-receipt');
    expect(receipt.pairId).toBe(payment.pairId);
    expect(wholeUnits(payment)).toBe(wholeUnits(receipt)); // what pairing tools compare
    // Paid = paired volume + fees in the input asset, to the base unit.
    expect(sum(rows, (r) => r.direction === 'out' && r.asset === 'USDC')).toBe(100_000_000n);
  });

  it('prices each row at the quote, Relay components at their own USD as the order settled', () => {
    const figures = rows.map((r) => [r.usdRate, r.usdValue, r.usdSource]);
    expect(figures).toEqual([
      ['1', '99', 'quote details.currencyIn'],
      ['1', '0.2', 'request data.fees.actual'],
      ['1', '0.6', 'request data.fees.actual'],
      ['1', '0.2', 'request data.fees.actual'],
      ['2500', '0.308642', 'quote fees.gas'], // 0.000123456789 ETH × 2,500 USD, rounded to the micro-USD
      ['1', '99', 'quote details.currencyOut'],
    ]);
  });

  it('dates, hashes, wallets and the note: the deposit for the payment and its costs, the fill for the receipt', () => {
    expect(rows.map((r) => [r.atMs, r.txHash])).toEqual([
      [3_000, DEPOSIT_HASH],
      [3_000, DEPOSIT_HASH],
      [3_000, DEPOSIT_HASH],
      [3_000, DEPOSIT_HASH],
      [3_000, DEPOSIT_HASH],
      [8_000, FILL_HASH],
    ]);
    expect(rows[0]!.wallet).toEqual({ chain: 'alpha', address: transfer().user });
    expect(rows[0]!.counterparty).toEqual({ chain: 'beta', address: transfer().recipient });
    expect(rows.at(-1)!.wallet.chain).toBe('beta');
    for (const r of rows) {
      expect(r.note).toContain('requestId 0xreq7');
      expect(r.note).toContain(`from alpha:${transfer().user}`);
      expect(r.note).toContain(`to beta:${transfer().recipient}`);
    }
  });
});

describe('transfers that did not fill', () => {
  it('a refund: the refunded volume paired both ways, what the refund kept as a fee', () => {
    const t = transfer({
      status: 'refund',
      outTxHashes: [],
      refund: { amount: 99_900_000n, txHash: '0xrefund', failReason: null, checkedAtMs: 9_500 },
    });
    const rows = rowsOfTransfer(
      transferMovements(facts({ transfer: t, ledger: ledger({ status: 'refund', receivedOut: null, fees: null, feesSource: 'none' }) })),
    );
    expect(brief(rows)).toEqual([
      'payment out 99.9 USDC',
      'refund in 99.9 USDC',
      'fee/refund_fee out 0.1 USDC',
      'fee/network out 0.000123456789 ETH',
    ]);
    expect(rows[0]!.pairId).toBe('ballast-7-refund');
    expect(rows[1]).toMatchObject({ pairId: 'ballast-7-refund', wallet: rows[0]!.wallet, txHash: '0xrefund', atMs: 8_000 });
  });

  it("a failure withdrawn from the depository: paid and withdrawn paired, nothing kept; the withdrawal's gas a fee", () => {
    const t = transfer({ status: 'failure', outTxHashes: [] });
    const m = transferMovements(facts({ transfer: t, withdrawal: withdrawal({ gasPaid: 42_000_000_000_000n }) }));
    const rows = rowsOfTransfer(m);
    expect(brief(rows)).toEqual([
      'payment out 100 USDC',
      'withdrawal in 100 USDC',
      'fee/network out 0.000123456789 ETH',
      'fee/withdrawal_network out 0.000042 ETH',
    ]);
    expect(rows[1]).toMatchObject({ pairId: 'ballast-7-withdrawal', atMs: 25_000, txHash: `0x${'e1'.repeat(32)}` });
    expect(rows[3]).toMatchObject({ atMs: 25_000, txHash: `0x${'e1'.repeat(32)}`, usdValue: '0.105' }); // at the quote's 2,500 USD per ETH
    expect(m.gaps).toEqual([]);
  });

  it('a `withdrawn` transfer has no ledger entry: its legs are written, its network fee is named as not recorded', () => {
    const m = transferMovements(facts({ transfer: transfer({ status: 'withdrawn' }), ledger: null, withdrawal: withdrawal() }));
    expect(brief(rowsOfTransfer(m))).toEqual(['payment out 100 USDC', 'withdrawal in 100 USDC']);
    expect(m.gaps).toContain('the origin network fee is not in the ledger (no entry is written for status withdrawn)');
  });

  it('a failure nothing came back from: an unpaired payment, not a fee', () => {
    const rows = rowsOfTransfer(transferMovements(facts({ transfer: transfer({ status: 'failure', outTxHashes: [] }) })));
    expect(brief(rows)).toEqual(['payment out 100 USDC', 'fee/network out 0.000123456789 ETH']);
    expect(rows[0]!.pairId).toBeNull();
    expect(rows[0]!.note).toContain('not returned');
  });

  it("a Bitcoin deposit ended by a mined cancel: only the cancel's miner fee, on the cancel's hash and time", () => {
    const btc = quote(
      amountOf('BTC', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', 8, 10_000_000n, '10000'),
      amountOf('WBTC', '0xw', 8, 9_990_000n, '9990'),
    );
    const cancel = tx({ id: 9, stepId: 'deposit:cancel', txHash: 'c'.repeat(64), confirmedAtMs: 7_000 });
    const t = transfer({
      status: 'origin_failed',
      originChain: 'bitcoin',
      user: 'bcrt1qtreasury',
      txs: [tx({ txHash: 'd'.repeat(64), status: 'sent' })],
      cancels: [cancel],
    });
    const rows = rowsOfTransfer(
      transferMovements(
        facts({
          transfer: t,
          quoteRaw: btc,
          ledger: ledger({ status: 'origin_failed', gasPaid: 2_500n, gasDecimals: 8, fees: null, feesSource: 'none', receivedOut: null }),
        }),
      ),
    );
    expect(brief(rows)).toEqual(['fee/cancel_network out 0.000025 BTC']);
    expect(rows[0]).toMatchObject({
      txHash: 'c'.repeat(64),
      atMs: 7_000,
      usdValue: '2.5',
      usdRate: '100000',
      usdSource: 'quote details.currencyIn',
    });
  });
});

describe('volumes that cannot pair', () => {
  it('a cross-asset order (BTC → WBTC) is written as paid and received, Relay fees named in the note', () => {
    const btc = quote(
      amountOf('BTC', 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8', 8, 10_000_000n, '10000'),
      amountOf('WBTC', '0xw', 8, 9_990_000n, '9990'),
    );
    const t = transfer({ asset: 'BTC', amountIn: 10_000_000n, originChain: 'bitcoin', user: 'bcrt1qtreasury' });
    const rows = rowsOfTransfer(
      transferMovements(
        facts({ transfer: t, quoteRaw: btc, ledger: ledger({ receivedOut: 9_990_000n, gasPaid: 1_410n, gasDecimals: 8 }) }),
      ),
    );
    expect(brief(rows)).toEqual(['receipt in 0.0999 WBTC', 'payment out 0.1 BTC', 'fee/network out 0.0000141 BTC']);
    expect(rows.every((r) => r.pairId === null)).toBe(true);
    expect(rows[1]!.note).toContain('Relay fees in the rate: execution 0.2 USD, swap 0 USD, platform 0.6 USD, app 0.2 USD');
  });

  it('a destination with more decimals than the origin: paired only when the digits fit, the rest a fee', () => {
    const q = quote(amountOf('USDC', '0xa1', 6, 100_000_000n, '100'), amountOf('USDC', '0xb1', 18, 99n * 10n ** 18n, '99'));
    const exact = rowsOfTransfer(
      transferMovements(facts({ quoteRaw: q, ledger: ledger({ receivedOut: 99n * 10n ** 18n, decimalsOut: 18 }) })),
    );
    expect(brief(exact).slice(0, 2)).toEqual(['payment out 99 USDC', 'receipt in 99 USDC']);
    expect(exact[0]!.pairId).not.toBeNull();
    const ragged = rowsOfTransfer(
      transferMovements(facts({ quoteRaw: q, ledger: ledger({ receivedOut: 99n * 10n ** 18n + 7n, decimalsOut: 18 }) })),
    );
    expect(brief(ragged).slice(0, 2)).toEqual(['payment out 99 USDC', 'receipt in 99.000000000000000007 USDC']);
    expect([ragged[0]!.pairId, ragged[1]!.pairId]).toEqual([null, null]);
    expect(ragged[1]!.note).toContain('not paired');
  });

  it('a receipt above the amount paid: the paired part and the surplus apart, no fee', () => {
    const rows = rowsOfTransfer(transferMovements(facts({ ledger: ledger({ receivedOut: 100_000_500n, gasPaid: 0n }) })));
    expect(brief(rows)).toEqual(['payment out 100 USDC', 'receipt in 100 USDC', 'receipt in 0.0005 USDC']);
    expect(rows[2]!.pairId).toBeNull();
    expect(rows[2]!.note).toContain('beyond what was paid');
  });
});

describe('the period and missing records', () => {
  it('keeps a row when since ≤ its time < until, so a transfer split over two periods is counted once', () => {
    const m = transferMovements(facts());
    const first = buildExportRows([m], { sinceMs: 0, untilMs: 8_000 });
    const second = buildExportRows([m], { sinceMs: 8_000, untilMs: 1e15 });
    expect(brief(second)).toEqual(['receipt in 99 USDC']);
    expect(first.length + second.length).toBe(rowsOfTransfer(m).length);
  });

  it('without a stored quote: config asset name, ledger decimals, no USD, and the gaps said', () => {
    const m = transferMovements(facts({ quoteRaw: null }));
    const rows = rowsOfTransfer(m);
    expect(rows.every((r) => r.usdValue === null || r.usdSource === 'request data.fees.actual')).toBe(true);
    expect(rows.find((r) => r.feeKind === 'network')!.asset).toBe('alpha-native');
    expect(m.gaps).toContain('no stored quote: the input asset is named by the config (USDC) and has no USD price');
  });

  it('a refund not followed up yet: the payment stands unpaired and the gap is said', () => {
    const m = transferMovements(
      facts({
        transfer: transfer({ status: 'refund', outTxHashes: [] }),
        ledger: ledger({ status: 'refund', receivedOut: null, fees: null, feesSource: 'none' }),
      }),
    );
    expect(brief(rowsOfTransfer(m))).toEqual(['payment out 100 USDC', 'fee/network out 0.000123456789 ETH']);
    expect(m.gaps).toEqual(['the refund is not followed up yet: its amount is unknown']);
  });

  it('the native asset falls back to the payment when it is native and the quote has no fees.gas', () => {
    const q = quote(amountOf('ETH', ZERO, 18, 10n ** 18n, '2500'), amountOf('ETH', ZERO, 18, 10n ** 18n - 10n ** 15n, '2497.5'));
    const m = transferMovements(
      facts({
        transfer: transfer({ asset: 'ETH', amountIn: 10n ** 18n }),
        quoteRaw: q,
        ledger: ledger({ receivedOut: 10n ** 18n - 10n ** 15n }),
      }),
    );
    expect(m.networkFee).toMatchObject({ asset: { symbol: 'ETH', decimals: 18 }, amount: 123_456_789_000_000n });
    expect(m.networkFee!.asset.price!.source).toBe('quote details.currencyIn');
  });
});
