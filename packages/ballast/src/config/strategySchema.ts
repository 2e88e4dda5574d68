/**
 * `policy.strategy.<asset>`: how the planner judges an asset's holdings. Absent: bands (min/target/max, or weights)
 * alone. `kind: flow` adds each holding's smoothed net flow (docs/design.md "Flow-aware strategy"): a holding that
 * will cross its min within `horizonSec` is funded now; a surplus whose flow nets to zero stays where it is.
 * Cross-field checks (known asset) are in checks.ts.
 */
import { z } from 'zod';
import { WHOLE_AMOUNT_RE } from './patterns.ts';

const seconds = (what: string, example: number, max: number) =>
  z
    .number({ error: `${what} must be a whole number of seconds, e.g. ${example}` })
    .int(`${what} must be a whole number of seconds, e.g. ${example}`)
    .min(1, `${what} must be between 1 and ${max} seconds`)
    .max(max, `${what} must be between 1 and ${max} seconds`);

/** `policy.strategy.<asset>` with `kind: flow`. */
export const FlowStrategySchema = z
  .strictObject({
    kind: z.literal('flow', { error: 'kind must be "flow" (the only strategy besides bands alone, which needs no entry)' }),
    halfLifeSec: seconds('halfLifeSec', 3600, 30 * 86_400).describe(
      'smoothing of the observed net flow: a flow observed this many seconds ago weighs half as much as one observed now',
    ),
    horizonSec: seconds('horizonSec', 900, 7 * 86_400).describe(
      "how far ahead each holding's balance is projected: about a transfer's delivery time plus one schedule interval",
    ),
    deadbandPerHour: z
      .string({ error: 'write deadbandPerHour as a quoted decimal string in whole units per hour, e.g. "100"' })
      .regex(WHOLE_AMOUNT_RE, 'deadbandPerHour must be a non-negative decimal in whole units per hour, e.g. "100"')
      .default('0')
      .describe('net flow at or below this (whole units of the asset per hour, either way) counts as none (default "0")'),
    minSamples: z
      .number({ error: 'minSamples must be a whole number of observed cycles, e.g. 3' })
      .int('minSamples must be a whole number of observed cycles, e.g. 3')
      .min(0, 'minSamples must be between 0 and 1000')
      .max(1000, 'minSamples must be between 0 and 1000')
      .default(3)
      .describe('cycles of balance history a holding needs before its flow is used; before that, bands alone (default 3)'),
  })
  .describe('flow-aware planning of one asset: pre-fund holdings about to cross min, leave alone surpluses whose flow nets to zero');

/** `policy.strategy.<asset>` as loaded. */
export type FlowStrategyConfig = z.output<typeof FlowStrategySchema>;
