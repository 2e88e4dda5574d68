/**
 * The four layouts of `ballast export`, written with csv-stringify and read back with csv-parse: each vendor's
 * columns in its order, its date format and lower-case enumerations, one USD figure where Cryptio takes one,
 * unique Cryptio references, one fee row per Bitwave trade, Koinly's `cost` tag on fees, and notes with commas and
 * quotes surviving the round trip.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { buildExportRows } from '../../../packages/ballast/src/accounting/exportRows.ts';
import { renderExport, type ExportFormat } from '../../../packages/ballast/src/accounting/renderExport.ts';
import { transferMovements } from '../../../packages/ballast/src/accounting/transferMovements.ts';
import { facts, transfer } from './fixtures.ts';

const rows = buildExportRows([transferMovements(facts({ transfer: transfer({ requestId: '0xreq7, "quoted"' }) }))], {
  sinceMs: 0,
  untilMs: 1e15,
});
const read = (format: ExportFormat) => parse(renderExport(format, rows), { columns: true }) as Record<string, string>[];

describe('cryptio', () => {
  const records = read('cryptio');

  it("has the template's seventeen columns in order", () => {
    const header = renderExport('cryptio', []).trimEnd();
    expect(header).toBe(
      'transactionDate,orderType,txhash,incomingAsset,incomingVolume,incomingUnitRate,incomingTransactionValue,outgoingAsset,outgoingVolume,outgoingUnitRate,outgoingTransactionValue,feeAsset,feeVolume,feeUnitRate,feeTransactionValue,otherParties,note',
    );
  });

  it('dates in UTC as YYYY-MM-DD HH:MM:SS, lower-case order types, legs and fees in their own columns, value not rate', () => {
    expect(records.map((r) => [r.transactionDate, r.orderType, r.outgoingVolume, r.incomingVolume, r.feeAsset, r.feeVolume])).toEqual([
      ['1970-01-01 00:00:03', 'withdraw', '99', '', '', ''],
      ['1970-01-01 00:00:03', 'withdraw', '', '', 'USDC', '0.2'],
      ['1970-01-01 00:00:03', 'withdraw', '', '', 'USDC', '0.6'],
      ['1970-01-01 00:00:03', 'withdraw', '', '', 'USDC', '0.2'],
      ['1970-01-01 00:00:03', 'withdraw', '', '', 'ETH', '0.000123456789'],
      ['1970-01-01 00:00:08', 'deposit', '', '99', '', ''],
    ]);
    for (const r of records) {
      expect([r.incomingUnitRate, r.outgoingUnitRate, r.feeUnitRate]).toEqual(['', '', '']);
      expect([r.incomingTransactionValue, r.outgoingTransactionValue, r.feeTransactionValue].join('')).not.toBe('');
    }
    expect(records[0]!.otherParties).toBe(transfer().recipient);
  });

  it('a unique txhash on every row: the deposit hash first, then suffixed; the note keeps the plain hash', () => {
    const hashes = records.map((r) => r.txhash);
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(hashes[0]).toBe(rows[0]!.txHash);
    expect(hashes[1]).toBe(`${rows[0]!.txHash}-fee-relay_execution`);
    expect(records[1]!.note).toContain(`tx ${rows[0]!.txHash}`);
    expect(records[0]!.note).toContain('requestId 0xreq7, "quoted"'); // quoting survived
  });
});

describe('koinly', () => {
  const records = read('koinly');

  it('the universal columns, Koinly dates, sent/received by direction, fees tagged cost, USD net worth', () => {
    expect(Object.keys(records[0]!)).toEqual([
      'Date',
      'Sent Amount',
      'Sent Currency',
      'Received Amount',
      'Received Currency',
      'Fee Amount',
      'Fee Currency',
      'Net Worth Amount',
      'Net Worth Currency',
      'Label',
      'Description',
      'TxHash',
    ]);
    expect(
      records.map((r) => [r.Date, r['Sent Amount'], r['Sent Currency'], r['Received Amount'], r['Net Worth Amount'], r.Label]),
    ).toEqual([
      ['1970-01-01 00:00 UTC', '99', 'USDC', '', '99', ''],
      ['1970-01-01 00:00 UTC', '0.2', 'USDC', '', '0.2', 'cost'],
      ['1970-01-01 00:00 UTC', '0.6', 'USDC', '', '0.6', 'cost'],
      ['1970-01-01 00:00 UTC', '0.2', 'USDC', '', '0.2', 'cost'],
      ['1970-01-01 00:00 UTC', '0.000123456789', 'ETH', '', '0.308642', 'cost'],
      ['1970-01-01 00:00 UTC', '', '', '99', '99', ''],
    ]);
    expect(records.every((r) => r['Net Worth Currency'] === 'USD')).toBe(true);
  });
});

describe('bitwave', () => {
  const records = read('bitwave');

  it('one trade per transfer: disposals, acquisitions and a single fee row sharing the trade id, blockchainId blank', () => {
    expect(records.map((r) => [r.transactionType, r.amount, r.amountTicker, r.cost, r.costTicker])).toEqual([
      ['tradeDispose', '99', 'USDC', '99', 'USD'],
      ['tradeDispose', '0.2', 'USDC', '0.2', 'USD'],
      ['tradeDispose', '0.6', 'USDC', '0.6', 'USD'],
      ['tradeDispose', '0.2', 'USDC', '0.2', 'USD'],
      ['tradeFee', '0.000123456789', 'ETH', '0.308642', 'USD'],
      ['tradeAcquire', '99', 'USDC', '99', 'USD'],
    ]);
    expect(new Set(records.map((r) => r.tradeId))).toEqual(new Set(['ballast-7']));
    expect(records.filter((r) => r.transactionType === 'tradeFee')).toHaveLength(1);
    expect(records.every((r) => r.blockchainId === '')).toBe(true);
    expect(records.map((r) => r.time)).toEqual(['3', '3', '3', '3', '3', '8']); // unix seconds
    expect(new Set(records.map((r) => r.id)).size).toBe(records.length);
  });
});

describe('csv', () => {
  it('every field, base units beside whole units, ISO dates', () => {
    const records = read('csv');
    expect(records[0]).toMatchObject({
      date: '1970-01-01T00:00:03.000Z',
      transfer_id: '7',
      kind: 'payment',
      direction: 'out',
      chain: 'alpha',
      counterparty_chain: 'beta',
      asset: 'USDC',
      decimals: '6',
      amount: '99',
      amount_base_units: '99000000',
      usd_unit_rate: '1',
      usd_value: '99',
      usd_source: 'quote details.currencyIn',
      pair_id: 'ballast-7-receipt',
    });
    expect(records.map((r) => BigInt(r.amount_base_units!))).toEqual(rows.map((r) => r.amount));
  });
});
