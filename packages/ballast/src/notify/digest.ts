/**
 * The daily digest (docs/notifications.md "Daily digest"): when a sink's digest is due, and what it says. A
 * digest covers the 24 hours before its time of day: per route the transfers created then and the stage they
 * reached (filled, not yet filled, ended unfilled), the amount filled and what fees and gas cost (from the same
 * ledger totals as `ballast report`, src/ledger/routeReport.ts), then the routes and wallets paused now and the
 * approval requests open now. Pure: the caller reads the store (src/notify/digestQueue.ts).
 */
import { formatUnits } from 'viem';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import type { PausedRoute, PausedWallet } from '../cycle/pausedRoutes.ts';
import type { RouteReport } from '../ledger/routeReport.ts';
import type { ApprovalRequest } from '../store/approvalReads.ts';
import type { NotifyEvent, NotifyJson } from './events.ts';

/** A sink's `digest:` setting: the local time of day (`HH:MM`, 24 h) in an IANA time zone. */
export interface DigestSetting {
  at: string;
  timezone: string;
}

/** Whether `tz` is an IANA time zone name the runtime knows (`UTC`, `Europe/Paris`, ...). */
export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall clock of instant `ms` in zone `tz`. */
function wallClock(ms: number, tz: string): WallClock {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: tz,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(ms);
  const get = (type: Intl.DateTimeFormatPartTypes): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { year: get('year'), month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

const asUtc = (c: WallClock): number => Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second);

/**
 * The instant the wall clock `c` reads in zone `tz`, ms. A time skipped by a daylight-saving change gives the
 * instant one offset away (e.g. 02:30 on a spring-forward night in Paris is 03:30 local).
 */
function instantOf(c: WallClock, tz: string): number {
  const guess = asUtc(c);
  const first = guess - (asUtc(wallClock(guess, tz)) - guess);
  const offset = asUtc(wallClock(first, tz)) - first;
  return guess - offset;
}

/**
 * Whether the digest of `setting` is due at `nowMs`: the local day in its zone (`YYYY-MM-DD`) and the instant of
 * its time of day on that day, once that instant has passed; null before it.
 *
 * @param nowMs Unix ms
 */
export function digestDue(nowMs: number, setting: DigestSetting): { day: string; atMs: number } | null {
  const local = wallClock(nowMs, setting.timezone);
  const [hour, minute] = setting.at.split(':').map(Number) as [number, number]; // HH:MM, checked by the config schema
  const atMs = instantOf({ ...local, hour, minute, second: 0 }, setting.timezone);
  if (nowMs < atMs) return null;
  const pad = (n: number): string => String(n).padStart(2, '0');
  return { day: `${local.year}-${pad(local.month)}-${pad(local.day)}`, atMs };
}

/** What a digest says: its day and window, and the store's facts (see the module doc). */
export interface DigestInput {
  /** The local day it is for, `YYYY-MM-DD`, and its zone. */
  day: string;
  timezone: string;
  /** The window of the transfers counted: created at or after `sinceMs`, up to `untilMs` (Unix ms). */
  sinceMs: number;
  untilMs: number;
  /** Route totals of the transfers created in the window (src/ledger/routeReport.ts `buildRouteReports`). */
  routes: readonly RouteReport[];
  /** Routes and wallets paused now. */
  pausedRoutes: readonly PausedRoute[];
  pausedWallets: readonly PausedWallet[];
  /** Approval requests open now (pending or approved, not used yet). */
  openRequests: readonly ApprovalRequest[];
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
const usd = (micros: bigint): string => `$${formatUsdMicros(micros)}`;
const sum = (values: readonly bigint[]): bigint => values.reduce((a, b) => a + b, 0n);
const feesOf = (r: RouteReport): bigint => r.fees.execution + r.fees.swap + r.fees.platform + r.fees.app;

/**
 * The `daily_digest` event of one day: subject the day, so its dedupe key is `daily_digest:<YYYY-MM-DD>`;
 * `summary` one line of totals; `payload` the facts (amounts base-unit strings with whole units where the
 * decimals are known, USD decimal strings) and `lines`, one readable line per route, pause and request.
 */
export function digestEvent(d: DigestInput): NotifyEvent {
  const filled = d.routes.reduce((n, r) => n + r.successes, 0);
  const inFlight = d.routes.reduce((n, r) => n + r.inFlight, 0);
  const transfers = d.routes.reduce((n, r) => n + r.transfers, 0);
  const unfilled = d.routes.reduce((n, r) => n + r.finished - r.successes, 0);
  const costMicros = sum(d.routes.map((r) => r.totalUsdMicros));
  const lines = [
    ...d.routes.map(routeLine),
    ...d.pausedRoutes.map(
      (p) =>
        `paused: ${p.asset} ${p.originChain} -> ${p.destinationChain} (${p.reason === 'originFailures' ? 'origin transactions failed on chain in a row' : 'a failed deposit is unresolved'}; transfers ${p.transferIds.join(', ')})`,
    ),
    ...d.pausedWallets.map((w) => `paused wallet: ${w.wallet} (${w.address}), refused by address screening at ${w.stages.join(' and ')}`),
    ...d.openRequests.map(
      (r) =>
        `approval request ${r.id} ${r.status}: ${r.asset} ${r.origin.chain} -> ${r.destination.chain}, ${r.amountIn} base units, ${r.signOffs.length}/${r.required} sign-offs, expires ${new Date(r.expiresAtMs).toISOString()}`,
    ),
  ];
  return {
    kind: 'daily_digest',
    subject: d.day,
    summary:
      `daily digest ${d.day} (${d.timezone}): ${plural(transfers, 'transfer')} in 24 h, ${filled} filled, ${inFlight} not yet filled, ` +
      `${unfilled} ended unfilled; fees and gas ${usd(costMicros)}; ${plural(d.pausedRoutes.length, 'route')} and ` +
      `${plural(d.pausedWallets.length, 'wallet')} paused; ${plural(d.openRequests.length, 'approval request')} open`,
    payload: {
      day: d.day,
      timezone: d.timezone,
      since: new Date(d.sinceMs).toISOString(),
      until: new Date(d.untilMs).toISOString(),
      transfers,
      filled,
      notYetFilled: inFlight,
      endedUnfilled: unfilled,
      feesUsd: formatUsdMicros(sum(d.routes.map(feesOf))),
      gasUsd: formatUsdMicros(sum(d.routes.map((r) => r.gasUsdMicros))),
      totalCostUsd: formatUsdMicros(costMicros),
      routes: d.routes.map(routeFacts),
      pausedRoutes: d.pausedRoutes.map((p) => ({
        asset: p.asset,
        originChain: p.originChain,
        destinationChain: p.destinationChain,
        reason: p.reason ?? 'failure',
        transferIds: p.transferIds,
      })),
      pausedWallets: d.pausedWallets.map((w) => ({ wallet: w.wallet, address: w.address, stages: w.stages })),
      openRequests: d.openRequests.map((r) => ({
        id: r.id,
        status: r.status,
        asset: r.asset,
        originChain: r.origin.chain,
        destinationChain: r.destination.chain,
        amountIn: r.amountIn.toString(10),
        signOffs: r.signOffs.length,
        required: r.required,
        expiresAt: new Date(r.expiresAtMs).toISOString(),
      })),
      lines: lines.length > 0 ? lines : ['no transfers, pauses or open requests'],
    },
  };
}

function movedText(r: RouteReport): string {
  return r.decimalsIn === null ? `${r.movedIn} base units` : `${formatUnits(r.movedIn, r.decimalsIn)} ${r.asset}`;
}

function routeLine(r: RouteReport): string {
  const ended = r.finished - r.successes;
  return (
    `${r.asset} ${r.originChain} -> ${r.destinationChain}: ${plural(r.transfers, 'transfer')}, ${r.successes} filled (${movedText(r)} in)` +
    `${r.inFlight > 0 ? `, ${r.inFlight} not yet filled` : ''}${ended > 0 ? `, ${ended} ended unfilled (failed, refunded or withdrawn)` : ''}` +
    `; fees ${usd(feesOf(r))}, gas ${usd(r.gasUsdMicros)}`
  );
}

function routeFacts(r: RouteReport): { [key: string]: NotifyJson } {
  return {
    asset: r.asset,
    originChain: r.originChain,
    destinationChain: r.destinationChain,
    transfers: r.transfers,
    filled: r.successes,
    notYetFilled: r.inFlight,
    endedUnfilled: r.finished - r.successes,
    movedIn: r.movedIn.toString(10),
    ...(r.decimalsIn !== null ? { movedInWhole: formatUnits(r.movedIn, r.decimalsIn) } : {}),
    feesUsd: formatUsdMicros(feesOf(r)),
    gasUsd: formatUsdMicros(r.gasUsdMicros),
    totalCostUsd: formatUsdMicros(r.totalUsdMicros),
  };
}
