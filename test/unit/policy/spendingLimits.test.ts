import { describe, expect, it } from 'vitest';
import {
  checkSpendingLimits,
  SPENDING_LIMIT_REASONS,
  SpendingLimitsConfigError,
  type SpendingHistory,
  type SpendingLimitReason,
  type SpendingLimits,
  type SpendingLimitsReturnType,
  type SpendingTransfer,
} from '../../../packages/ballast/src/policy/spendingLimits.ts';

const EVM_RECIPIENT = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const SOL_RECIPIENT = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** A 250 USDC transfer (6 dp) worth 250.123456 USD with 2.5 USD of fees. */
function transfer(over: Partial<SpendingTransfer> = {}): SpendingTransfer {
  return { asset: 'USDC', amountIn: 250_000_000n, amountUsd: '250.123456', feesUsd: '2.5', recipient: EVM_RECIPIENT, ...over };
}

function history(over: Partial<SpendingHistory> = {}): SpendingHistory {
  return { notional24h: new Map(), feesUsd24hMicros: 0n, transfersLastHour: 0, ...over };
}

function check(limits: SpendingLimits, h: Partial<SpendingHistory> = {}, t: Partial<SpendingTransfer> = {}): SpendingLimitsReturnType {
  return checkSpendingLimits({ limits, history: history(h), transfer: transfer(t) });
}

function refused(result: SpendingLimitsReturnType): { reason: SpendingLimitReason; detail: string } {
  if (result.ok) throw new Error('expected a refusal, got ok');
  return result;
}

describe('checkSpendingLimits', () => {
  it('allows everything when no limit is set', () => {
    expect(check({}, { feesUsd24hMicros: 10n ** 12n, transfersLastHour: 1000 })).toEqual({ ok: true });
  });

  it('exports the reasons in check order', () => {
    expect(SPENDING_LIMIT_REASONS).toEqual([
      'kill_switch',
      'kill_switch_file',
      'recipient_not_allowed',
      'max_transfer_usd',
      'daily_notional',
      'daily_fees_usd',
      'transfers_per_hour',
    ]);
  });

  describe('kill switches', () => {
    it('refuses when the config flag is on, and passes when it is off', () => {
      const r = refused(check({ killSwitch: true }));
      expect(r.reason).toBe('kill_switch');
      expect(r.detail).toContain('policy.limits.killSwitch is true');
      expect(check({ killSwitch: false, killSwitchFilePresent: false })).toEqual({ ok: true });
    });

    it('refuses when the kill-switch file is present', () => {
      const r = refused(check({ killSwitchFilePresent: true }));
      expect(r.reason).toBe('kill_switch_file');
      expect(r.detail).toContain('kill-switch file is present');
    });
  });

  describe('recipient allow-list', () => {
    it('compares 0x hex addresses case-insensitively', () => {
      const allowed = new Set([EVM_RECIPIENT.toLowerCase()]);
      expect(check({ allowedRecipients: allowed }, {}, { recipient: EVM_RECIPIENT.toUpperCase().replace('0X', '0x') })).toEqual({
        ok: true,
      });
      expect(check({ allowedRecipients: new Set([EVM_RECIPIENT]) }, {}, { recipient: EVM_RECIPIENT.toLowerCase() })).toEqual({ ok: true });
    });

    it('compares other addresses exactly (base58 is case-sensitive)', () => {
      const allowed = new Set([SOL_RECIPIENT]);
      expect(check({ allowedRecipients: allowed }, {}, { recipient: SOL_RECIPIENT })).toEqual({ ok: true });
      const r = refused(check({ allowedRecipients: allowed }, {}, { recipient: SOL_RECIPIENT.toLowerCase() }));
      expect(r.reason).toBe('recipient_not_allowed');
      expect(r.detail).toBe(`policy.limits.allowedRecipients (1 address) does not include recipient ${SOL_RECIPIENT.toLowerCase()}`);
    });

    it('refuses a recipient that differs in one hex digit, and any recipient with an empty list', () => {
      const other = `${EVM_RECIPIENT.slice(0, -1)}7`;
      expect(refused(check({ allowedRecipients: new Set([EVM_RECIPIENT, SOL_RECIPIENT]) }, {}, { recipient: other })).reason).toBe(
        'recipient_not_allowed',
      );
      expect(refused(check({ allowedRecipients: new Set() })).reason).toBe('recipient_not_allowed');
    });
  });

  describe('max_transfer_usd', () => {
    it('passes at exactly the cap and refuses one micro-USD above it', () => {
      expect(check({ maxTransferUsd: '250.123456' })).toEqual({ ok: true });
      const r = refused(check({ maxTransferUsd: '250.123455' }));
      expect(r.reason).toBe('max_transfer_usd');
      expect(r.detail).toBe('policy.limits.maxTransferUsd 250.123455 USD: this transfer is 250.123456 USD');
    });

    it('compares decimals exactly, trailing zeros and beyond float precision', () => {
      expect(check({ maxTransferUsd: '0.3' }, {}, { amountUsd: '0.300000' })).toEqual({ ok: true });
      // 1e12 + 1e-6 is not representable as a double (it reads as 1000000000000.0000010, equal to neither side).
      expect(check({ maxTransferUsd: '1000000000000.000001' }, {}, { amountUsd: '1000000000000.000001' })).toEqual({ ok: true });
      expect(refused(check({ maxTransferUsd: '1000000000000' }, {}, { amountUsd: '1000000000000.000001' })).reason).toBe(
        'max_transfer_usd',
      );
    });

    it('fails closed when the quote gives no USD value, and ignores it when no cap is set', () => {
      const r = refused(check({ maxTransferUsd: '1000' }, {}, { amountUsd: null }));
      expect(r.reason).toBe('max_transfer_usd');
      expect(r.detail).toContain('no USD value');
      expect(check({}, {}, { amountUsd: null })).toEqual({ ok: true });
    });
  });

  describe('daily_notional', () => {
    const limits: SpendingLimits = { dailyNotional: new Map([['USDC', 1_000_000_000n]]) };

    it('passes when used + this transfer is exactly the cap, refuses one base unit above', () => {
      expect(check(limits, { notional24h: new Map([['USDC', 750_000_000n]]) })).toEqual({ ok: true });
      const r = refused(check(limits, { notional24h: new Map([['USDC', 750_000_001n]]) }));
      expect(r.reason).toBe('daily_notional');
      expect(r.detail).toBe('policy.limits.dailyNotional.USDC 1000000000 base units: 750000001 used in 24 h + 250000000 for this transfer');
    });

    it('counts only the transfer asset, and does not cap an asset without an entry', () => {
      const used = new Map([['ETH', 10n ** 30n]]);
      expect(check(limits, { notional24h: used })).toEqual({ ok: true });
      expect(check(limits, { notional24h: used }, { asset: 'ETH', amountIn: 10n ** 18n })).toEqual({ ok: true });
    });

    it('sums beyond 2^64 exactly', () => {
      const cap = 2n ** 64n + 5n;
      const big: SpendingLimits = { dailyNotional: new Map([['ETH', cap]]) };
      expect(check(big, { notional24h: new Map([['ETH', 2n ** 64n]]) }, { asset: 'ETH', amountIn: 5n })).toEqual({ ok: true });
      expect(refused(check(big, { notional24h: new Map([['ETH', 2n ** 64n]]) }, { asset: 'ETH', amountIn: 6n })).reason).toBe(
        'daily_notional',
      );
    });
  });

  describe('daily_fees_usd', () => {
    it('passes at exactly the budget and refuses above it, with the detail naming used and this transfer', () => {
      expect(check({ dailyFeesUsd: '50' }, { feesUsd24hMicros: 47_500_000n })).toEqual({ ok: true });
      const r = refused(check({ dailyFeesUsd: '50' }, { feesUsd24hMicros: 48_200_000n }));
      expect(r.reason).toBe('daily_fees_usd');
      expect(r.detail).toBe('policy.limits.dailyFeesUsd 50 USD: 48.2 used in 24 h + 2.5 for this transfer');
    });

    it('compares at micro-USD precision (0.1 + 0.2 <= 0.3, which floating point gets wrong)', () => {
      expect(check({ dailyFeesUsd: '0.3' }, { feesUsd24hMicros: 100_000n }, { feesUsd: '0.2' })).toEqual({ ok: true });
      expect(refused(check({ dailyFeesUsd: '0.3' }, { feesUsd24hMicros: 100_001n }, { feesUsd: '0.2' })).reason).toBe('daily_fees_usd');
    });

    it('does not let a negative fee (a rebate) extend the budget', () => {
      const r = refused(check({ dailyFeesUsd: '10' }, { feesUsd24hMicros: 10_000_001n }, { feesUsd: '-5' }));
      expect(r.detail).toBe('policy.limits.dailyFeesUsd 10 USD: 10.000001 used in 24 h + 0 for this transfer');
      expect(check({ dailyFeesUsd: '10' }, { feesUsd24hMicros: 10_000_000n }, { feesUsd: '-5' })).toEqual({ ok: true });
    });
  });

  describe('transfers_per_hour', () => {
    it('allows the Nth transfer of the hour and refuses the N+1th', () => {
      expect(check({ maxTransfersPerHour: 3 }, { transfersLastHour: 2 })).toEqual({ ok: true });
      const r = refused(check({ maxTransfersPerHour: 3 }, { transfersLastHour: 3 }));
      expect(r.reason).toBe('transfers_per_hour');
      expect(r.detail).toBe('policy.limits.maxTransfersPerHour 3: 3 used in 1 h + 1 for this transfer');
    });

    it('with 0 refuses every transfer', () => {
      expect(refused(check({ maxTransfersPerHour: 0 })).reason).toBe('transfers_per_hour');
    });
  });

  describe('order of checks', () => {
    /** Limits every one of which this transfer hits. */
    const allHit: SpendingLimits = {
      killSwitch: true,
      killSwitchFilePresent: true,
      allowedRecipients: new Set([SOL_RECIPIENT]),
      maxTransferUsd: '1',
      dailyNotional: new Map([['USDC', 1n]]),
      dailyFeesUsd: '1',
      maxTransfersPerHour: 0,
    };
    const switchOff: Record<SpendingLimitReason, (l: SpendingLimits) => SpendingLimits> = {
      kill_switch: (l) => ({ ...l, killSwitch: false }),
      kill_switch_file: (l) => ({ ...l, killSwitchFilePresent: false }),
      recipient_not_allowed: (l) => ({ ...l, allowedRecipients: undefined }),
      max_transfer_usd: (l) => ({ ...l, maxTransferUsd: undefined }),
      daily_notional: (l) => ({ ...l, dailyNotional: undefined }),
      daily_fees_usd: (l) => ({ ...l, dailyFeesUsd: undefined }),
      transfers_per_hour: (l) => ({ ...l, maxTransfersPerHour: undefined }),
    };

    it('reports the first limit hit, in the exported order, as each earlier one is lifted', () => {
      let limits = allHit;
      const seen: SpendingLimitReason[] = [];
      for (;;) {
        const result = check(limits);
        if (result.ok) break;
        seen.push(result.reason);
        limits = switchOff[result.reason](limits);
      }
      expect(seen).toEqual([...SPENDING_LIMIT_REASONS]);
    });

    it('a later limit alone still refuses (each check is independent of the earlier ones)', () => {
      for (const reason of SPENDING_LIMIT_REASONS) {
        // Keep only `reason` from allHit by lifting all the others.
        let limits = allHit;
        for (const other of SPENDING_LIMIT_REASONS) if (other !== reason) limits = switchOff[other](limits);
        expect(refused(check(limits)).reason).toBe(reason);
      }
    });
  });

  describe('malformed input', () => {
    it.each([
      [{ maxTransferUsd: '-1' }, 'policy.limits.maxTransferUsd'],
      [{ maxTransferUsd: '1e3' }, 'policy.limits.maxTransferUsd'],
      [{ dailyFeesUsd: '0.0000001' }, 'policy.limits.dailyFeesUsd'],
      [{ maxTransfersPerHour: 1.5 }, 'policy.limits.maxTransfersPerHour'],
      [{ maxTransfersPerHour: -1 }, 'policy.limits.maxTransfersPerHour'],
      [{ dailyNotional: new Map([['USDC', -1n]]) }, 'policy.limits.dailyNotional.USDC'],
    ] satisfies [SpendingLimits, string][])('rejects limits %o naming %s', (limits, name) => {
      let caught: unknown;
      try {
        check(limits);
      } catch (err) {
        caught = err;
      }
      expect(caught).toBeInstanceOf(SpendingLimitsConfigError);
      expect((caught as SpendingLimitsConfigError).code).toBe('SPENDING_LIMITS_INVALID'); // checked instanceof above
      expect((caught as SpendingLimitsConfigError).message).toContain(name); // checked instanceof above
    });

    it('rejects a malformed transfer even when no limit would look at it', () => {
      expect(() => check({}, {}, { amountIn: -1n })).toThrow(TypeError);
      expect(() => check({}, {}, { feesUsd: 'free' })).toThrow(/transfer.feesUsd/);
      expect(() => check({}, {}, { amountUsd: '1,000' })).toThrow(/transfer.amountUsd/);
    });
  });
});
