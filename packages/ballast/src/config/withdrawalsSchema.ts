/**
 * `withdrawals:` section of `ballast.yaml`: recovery of deposits the service never filled (docs/relay-contract.md
 * "Withdrawal endpoints", "Withdrawal job status", "Limits"). See docs/withdrawals.md.
 *
 * Times carry their unit in the name: `*Ms` milliseconds, `*Sec` seconds.
 */
import { z } from 'zod';

/** Defaults of the section (docs/relay-contract.md "Limits": status polled about every 5 s, about 15 s after a 429). */
export const WITHDRAWALS_DEFAULTS = {
  auto: false,
  unfilledAfterSec: 3600,
  pollMs: 5000,
  rateLimitedPollMs: 15_000,
  maxAttempts: 3,
  transientRetries: 5,
  maxWaitSec: 300,
} as const;

/** The `withdrawals:` section. */
export const WithdrawalsSectionSchema = z
  .strictObject({
    auto: z
      .boolean()
      .default(WITHDRAWALS_DEFAULTS.auto)
      .describe(
        'recover withdrawable deposits in every cycle without operator action; false: only `ballast withdraw` does (default false)',
      ),
    unfilledAfterSec: z
      .number()
      .int()
      .min(60)
      .max(30 * 86_400)
      .default(WITHDRAWALS_DEFAULTS.unfilledAfterSec)
      .describe(
        'a deposited transfer still unfilled this many seconds after its deposit is checked for withdrawal (GET /requests/v3 protocol.isWithdrawable); failed transfers are checked at once',
      ),
    pollMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(WITHDRAWALS_DEFAULTS.pollMs)
      .describe(
        'withdrawal job status poll interval and wait between attest-deposit retries, milliseconds (docs/relay-contract.md "Limits": about 5 s)',
      ),
    rateLimitedPollMs: z
      .number()
      .int()
      .min(10)
      .max(600_000)
      .default(WITHDRAWALS_DEFAULTS.rateLimitedPollMs)
      .describe('wait after a 429 from the withdrawal status endpoint, milliseconds (docs/relay-contract.md "Limits": about 15 s)'),
    maxAttempts: z
      .number()
      .int()
      .min(1)
      .max(20)
      .default(WITHDRAWALS_DEFAULTS.maxAttempts)
      .describe('withdrawal jobs started for one deposit (prepare, sign, execute) before giving up after expired or failed jobs'),
    transientRetries: z
      .number()
      .int()
      .min(0)
      .max(100)
      .default(WITHDRAWALS_DEFAULTS.transientRetries)
      .describe(
        'transient answers (attest-deposit 503, 5xx, network errors) waited out pollMs apart, in a row, in one pass; the next pass tries again',
      ),
    maxWaitSec: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(WITHDRAWALS_DEFAULTS.maxWaitSec)
      .describe('longest one pass (a cycle or `ballast withdraw`) waits on one withdrawal; an unfinished one is resumed by the next pass'),
  })
  .describe('recovery of deposits the service never filled or failed (docs/withdrawals.md)');

/** The `withdrawals` section after defaults. */
export type WithdrawalsConfig = z.output<typeof WithdrawalsSectionSchema>;

/** The section's value when the file omits it. */
export const WITHDRAWALS_SECTION_DEFAULT: WithdrawalsConfig = { ...WITHDRAWALS_DEFAULTS };
