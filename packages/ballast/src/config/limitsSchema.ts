/**
 * `policy.limits:` — the spending limits checked before anything is signed (src/policy/spendingLimits.ts):
 * a kill switch (flag and file), a recipient allow-list, a per-transfer USD cap, rolling 24 h caps on the
 * amount sent per asset and on fees, and a cap on transfers per hour. Every limit is optional; an absent one is
 * not checked. Cross-field checks (known assets and wallets) are in checks.ts.
 */
import { z } from 'zod';
import { NAME_RE, WHOLE_AMOUNT_RE } from './patterns.ts';

/** USD with at most 6 decimals (the limits compare micro-USD exactly). */
const LIMIT_USD_RE = /^[0-9]+(\.[0-9]{1,6})?$/;

const limitUsd = (what: string) =>
  z
    .string({ error: `write ${what} as a quoted USD decimal string, e.g. "5000"` })
    .regex(LIMIT_USD_RE, `${what} must be a non-negative USD decimal string with at most 6 decimals, e.g. "5000" or "12.5"`);

/** The `policy.limits` section. */
export const SpendingLimitsSectionSchema = z
  .strictObject({
    killSwitch: z
      .boolean({ error: 'killSwitch must be true or false' })
      .default(false)
      .describe('true halts every transfer (nothing is quoted for execution or signed) until it is set back to false'),
    killSwitchFile: z
      .string({ error: 'killSwitchFile must be a file path' })
      .min(1, 'killSwitchFile must not be empty; remove the key or give a path')
      .optional()
      .describe('while a file exists at this path every transfer is halted; removing it resumes without a restart'),
    maxTransferUsd: limitUsd('maxTransferUsd').optional().describe('largest USD value of one transfer (details.currencyIn.amountUsd)'),
    dailyNotional: z
      .record(
        z.string().regex(NAME_RE),
        z
          .string({ error: 'write the cap as a quoted decimal string in whole units, e.g. "250000"' })
          .regex(WHOLE_AMOUNT_RE, 'expected a non-negative decimal in whole units of the asset, e.g. "250000"'),
      )
      .optional()
      .describe('rolling 24 h cap on the amount sent per asset, whole units, summed over every origin chain'),
    dailyFeesUsd: limitUsd('dailyFeesUsd').optional().describe('rolling 24 h budget for fees, USD'),
    maxTransfersPerHour: z
      .number({ error: 'maxTransfersPerHour must be a whole number' })
      .int('maxTransfersPerHour must be a whole number')
      .min(0, 'maxTransfersPerHour must not be negative')
      .optional()
      .describe('most transfers signed in any rolling hour'),
    allowedRecipients: z
      .array(z.string().regex(NAME_RE, 'expected a wallet name from wallets:'))
      .optional()
      .describe('wallet names that may receive; default every configured wallet (nothing outside the config ever may)'),
  })
  .describe('spending limits, checked before signing from the transfers already signed');

/** `policy.limits` as loaded. */
export type SpendingLimitsConfig = z.output<typeof SpendingLimitsSectionSchema>;
