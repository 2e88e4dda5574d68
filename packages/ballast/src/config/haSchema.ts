/**
 * `ha:` section of `ballast.yaml`: the leader lease that lets several replicas share one PostgreSQL store with
 * exactly one of them planning and signing (docs/ha.md). Used only when `store:` is a `postgres://` URL; with a
 * SQLite store the single-run lock applies instead and this section is ignored with a warning.
 */
import { z } from 'zod';
import { LeaseOptionsError } from '../ha/errors.ts';
import { resolveLeaseTiming } from '../ha/leaseTiming.ts';
import type { ConfigIssue } from './errors.ts';

/** Defaults of the section (also its value when the section is absent). */
export const DEFAULT_HA = Object.freeze({ lease: 'ballast', ttlMs: 15_000 });

const ms = (what: string) =>
  z.number({ error: `expected a whole number of milliseconds (${what})` }).int('must be a whole number of milliseconds');

/** `ha:` section. */
export const HaSectionSchema = z
  .strictObject({
    lease: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,200}$/, 'expected 1–200 letters, digits, dots, dashes, underscores or colons, e.g. ballast')
      .default(DEFAULT_HA.lease)
      .describe('name of the lease row: one per treasury; every replica acting on the same wallets uses the same name'),
    instance: z
      .string()
      .regex(/^[A-Za-z0-9._:-]{1,100}$/, 'expected 1–100 letters, digits, dots, dashes, underscores or colons')
      .optional()
      .describe("this replica's label in ballast_leader{instance} and in logs; default the host name (a pod name in Kubernetes)"),
    ttlMs: ms('lease lifetime')
      .min(100)
      .max(3_600_000)
      .default(DEFAULT_HA.ttlMs)
      .describe('lease lifetime without renewal; a follower takes over at most ttlMs + renewEveryMs after the leader last renewed'),
    renewEveryMs: ms('renew interval')
      .min(10)
      .optional()
      .describe('leader renews / followers try to take over at this interval; default ttlMs / 3'),
    marginMs: ms('safety margin')
      .min(0)
      .optional()
      .describe('the leader stops acting this long before its lease can expire; default ttlMs / 5'),
  })
  .describe('leader lease for replicas sharing a PostgreSQL store (docs/ha.md)');

/** The `ha:` section as parsed. */
export type HaConfig = z.output<typeof HaSectionSchema>;

/**
 * Checks the timing as a whole (renewEveryMs below ttlMs − marginMs, marginMs below ttlMs) with the elector's own
 * rules (src/ha/leaseTiming.ts), reporting a violation as a config problem on the field it names.
 */
export function checkHa(ha: HaConfig | undefined, issues: ConfigIssue[]): void {
  if (!ha) return;
  try {
    resolveLeaseTiming({
      ttlMs: ha.ttlMs,
      ...(ha.renewEveryMs !== undefined ? { renewEveryMs: ha.renewEveryMs } : {}),
      ...(ha.marginMs !== undefined ? { marginMs: ha.marginMs } : {}),
    });
  } catch (err) {
    if (!(err instanceof LeaseOptionsError)) throw err;
    issues.push({ path: `ha.${err.field}`, message: err.message.slice(err.field.length + 2) });
  }
}
