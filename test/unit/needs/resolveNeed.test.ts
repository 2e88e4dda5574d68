/**
 * Resolving a need request (src/needs/resolveNeed.ts): the configured holding it comes from (wallet optional when
 * the asset has one holding on the chain), whole units to base units with that token's decimals (exact, never
 * rounded), due times in ISO-8601 with a zone or ms, and each refusal naming its field and the fix. Also the two
 * ways a need is shown (src/needs/needView.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  NeedDecimalsError,
  NeedInputError,
  parseDueAt,
  resolveNeed,
  type NeedHolding,
  type NeedRequest,
} from '../../../packages/ballast/src/needs/resolveNeed.ts';
import { needJson, needLine } from '../../../packages/ballast/src/needs/needView.ts';
import type { NeedRow } from '../../../packages/ballast/src/store/needs.ts';

const NOW = Date.parse('2026-12-01T00:00:00Z');
const HOLDINGS: NeedHolding[] = [
  { asset: 'USDC', chain: 'base', wallet: 'treasury', decimals: 6 },
  { asset: 'USDC', chain: 'arbitrum', wallet: 'treasury', decimals: 6 },
  { asset: 'USDC', chain: 'arbitrum', wallet: 'payroll', decimals: 6 },
  { asset: 'ETH', chain: 'base', wallet: 'treasury', decimals: 18 },
  { asset: 'USDT', chain: 'base', wallet: 'treasury', decimals: null, decimalsError: 'token contract unreachable' },
];
const REQ: NeedRequest = {
  asset: 'USDC',
  chain: 'base',
  amount: '50000',
  dueAt: '2026-12-06T09:00:00Z',
  idempotencyKey: 'payroll-2026-12',
};
const resolve = (over: Partial<NeedRequest> = {}, recorded: { dueAtMs: number } | null = null) =>
  resolveNeed({ ...REQ, ...over }, HOLDINGS, { nowMs: NOW, createdBy: 'ops@host', recorded });

function refusal(over: Partial<NeedRequest>): { field: string; message: string } {
  try {
    resolve(over);
  } catch (err) {
    expect(err).toBeInstanceOf(NeedInputError);
    const e = err as NeedInputError;
    expect(e.code).toBe('NEED_INVALID');
    return { field: e.field, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('resolveNeed', () => {
  it('finds the only holding of the asset on the chain and converts whole units with its decimals', () => {
    expect(resolve({ note: '  December payroll ' })).toEqual({
      idempotencyKey: 'payroll-2026-12',
      asset: 'USDC',
      chain: 'base',
      wallet: 'treasury',
      amount: 50_000_000_000n,
      dueAtMs: Date.parse('2026-12-06T09:00:00Z'),
      note: 'December payroll',
      createdBy: 'ops@host',
    });
    expect(resolve({ note: '   ' }).note).toBeNull();
    expect(resolve({ asset: 'ETH', amount: '0.000000000000000001' }).amount).toBe(1n);
    expect(resolve({ asset: 'ETH', amount: '123456789.123456789123456789' }).amount).toBe(123_456_789_123_456_789_123_456_789n);
    expect(resolve({ chain: 'arbitrum', wallet: 'payroll', amount: '0.5' })).toMatchObject({ wallet: 'payroll', amount: 500_000n });
  });

  it('names the field and the choices for an unknown asset, chain or wallet, or a wallet left out among several', () => {
    expect(refusal({ asset: 'DAI' })).toEqual({
      field: 'asset',
      message: 'asset: no asset "DAI" under assets: in the config; configured: ETH, USDC, USDT',
    });
    expect(refusal({ chain: 'optimism' })).toEqual({
      field: 'chain',
      message: 'chain: USDC is not held on chain "optimism"; its holdings are on arbitrum, base',
    });
    expect(refusal({ chain: 'arbitrum' })).toEqual({
      field: 'wallet',
      message: 'wallet: USDC has 2 holdings on arbitrum: name the wallet, one of payroll, treasury',
    });
    expect(refusal({ wallet: 'ops' }).message).toBe('wallet: USDC on base is not held by wallet "ops"; held by treasury');
  });

  it('refuses amounts that are not whole-unit decimals, have more decimals than the token, or are not above 0', () => {
    expect(refusal({ amount: '1.1234567' })).toEqual({
      field: 'amount',
      message: 'amount: 1.1234567 has 7 decimals but USDC on base:treasury has 6; round it to at most 6',
    });
    for (const amount of ['0', '0.000000', '']) expect(refusal({ amount }).field).toBe('amount');
    expect(refusal({ amount: '0' }).message).toBe('amount: must be above 0, got 0');
    for (const amount of ['-5', '1e6', '50,000', '0x10', ' 5', '.5', '5.']) {
      expect(refusal({ amount }).message, amount).toContain('expected whole units of USDC on base:treasury as a decimal string');
    }
  });

  it('takes ISO-8601 with a zone or ms, refuses local times, impossible dates and due times not in the future', () => {
    expect(parseDueAt('2026-12-06T10:00:00+01:00')).toBe(Date.parse('2026-12-06T09:00:00Z'));
    expect(parseDueAt('2026-12-06T09:00Z')).toBe(Date.parse('2026-12-06T09:00:00Z'));
    expect(parseDueAt('2026-12-06T09:00:00.250Z')).toBe(Date.parse('2026-12-06T09:00:00.250Z'));
    expect(parseDueAt(1_796_547_600_000)).toBe(1_796_547_600_000);
    expect(parseDueAt('1796547600000')).toBe(1_796_547_600_000);
    for (const dueAt of ['2026-12-06T09:00:00', '2026-12-06', '2026-02-30T09:00:00Z', '2026-12-06T24:00:00Z', 'tomorrow', '1.5', 0, -1]) {
      expect(refusal({ dueAt }).field, String(dueAt)).toBe('dueAt');
    }
    expect(refusal({ dueAt: '2026-11-30T23:59:59Z' })).toEqual({
      field: 'dueAt',
      message: 'dueAt: 2026-11-30T23:59:59.000Z is not in the future (now 2026-12-01T00:00:00.000Z); a need is a payment still to come',
    });
    expect(refusal({ dueAt: NOW }).field).toBe('dueAt');
    // A retry of a recorded need may repeat its due time once it has passed; another past time is still refused.
    const past = Date.parse('2026-11-30T09:00:00Z');
    expect(resolve({ dueAt: past }, { dueAtMs: past }).dueAtMs).toBe(past);
    expect(() => resolve({ dueAt: past - 1 }, { dueAtMs: past })).toThrow(NeedInputError);
  });

  it('checks the key and the note, and says when the decimals are unknown', () => {
    for (const idempotencyKey of ['', 'has space', 'x'.repeat(201), 'tab\tkey', 'ünïcode']) {
      expect(refusal({ idempotencyKey }).field).toBe('idempotencyKey');
    }
    expect(resolve({ idempotencyKey: 'x'.repeat(200) }).idempotencyKey).toHaveLength(200);
    expect(refusal({ note: 'n'.repeat(501) }).message).toBe('note: at most 500 characters, got 501');
    expect(() => resolve({ asset: 'USDT' })).toThrow(NeedDecimalsError);
    expect(() => resolve({ asset: 'USDT' })).toThrow(/USDT on base:treasury are unknown \(token contract unreachable\); set decimals/);
  });
});

describe('needJson and needLine', () => {
  const row: NeedRow = {
    id: 7,
    idempotencyKey: 'payroll-2026-12',
    asset: 'USDC',
    chain: 'base',
    wallet: 'treasury',
    amount: 50_000_500_000n,
    dueAtMs: Date.parse('2026-12-06T09:00:00Z'),
    note: 'December payroll',
    status: 'cancelled',
    createdAtMs: NOW,
    createdBy: 'api',
    closedAtMs: NOW + 60_000,
    closedReason: 'cancelled by alice',
  };

  it('give whole units and base units as strings, and one line with id, status, amount, holding, due time and note', () => {
    expect(needJson(row, 6)).toEqual({
      id: 7,
      idempotencyKey: 'payroll-2026-12',
      status: 'cancelled',
      asset: 'USDC',
      chain: 'base',
      wallet: 'treasury',
      amount: '50000.5',
      amountBaseUnits: '50000500000',
      decimals: 6,
      dueAt: '2026-12-06T09:00:00.000Z',
      note: 'December payroll',
      createdAt: '2026-12-01T00:00:00.000Z',
      createdBy: 'api',
      closedAt: '2026-12-01T00:01:00.000Z',
      closedReason: 'cancelled by alice',
    });
    expect(needJson(row, null).amount).toBeNull();
    expect(needLine(row, 6)).toBe(
      '#7 cancelled (cancelled by alice at 2026-12-01T00:01:00.000Z) 50000.5 USDC base:treasury due 2026-12-06T09:00:00.000Z key payroll-2026-12 "December payroll"',
    );
    expect(needLine({ ...row, status: 'open', closedAtMs: null, closedReason: null, note: null }, null)).toBe(
      '#7 open 50000500000 base units of USDC (decimals unknown) base:treasury due 2026-12-06T09:00:00.000Z key payroll-2026-12',
    );
  });
});
