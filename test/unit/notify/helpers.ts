/**
 * Notification test helpers: a loaded sink with its hidden fields set as the config loader sets them, the `notify:`
 * section around some sinks, and a ledger entry of a filled transfer. Pure.
 */
import { DEFAULT_NOTIFY, type LoadedNotifySink, type NotifyConfig } from '../../../packages/ballast/src/config/notifySchema.ts';
import type { LedgerEntry } from '../../../packages/ballast/src/ledger/ledgerEntry.ts';

/** The HMAC key of a webhook sink made by {@link testSink}. */
export const SINK_SECRET = 'whsec-0123456789abcdef';
/** The routing key of a pagerduty sink made by {@link testSink} (32 characters). */
export const ROUTING_KEY = 'R0UTINGKEY0123456789abcdef012345';

/**
 * A sink as loaded (src/config/notifySchema.ts `loadNotify`): every event and severity unless `extra` says
 * otherwise; `url` (default a loopback port nothing answers on), and a webhook's secret or a pagerduty sink's
 * routing key (`extra.routingKey`, else {@link ROUTING_KEY}) non-enumerable.
 */
export function testSink(
  name: string,
  kind: LoadedNotifySink['kind'],
  url = 'http://127.0.0.1:1/hook',
  extra: Partial<LoadedNotifySink> = {},
): LoadedNotifySink {
  const s = { name, kind, events: '*', minSeverity: 'info', ...extra } as LoadedNotifySink;
  Object.defineProperty(s, 'url', { value: url });
  if (kind === 'webhook') Object.defineProperty(s, 'secret', { value: SINK_SECRET });
  if (kind === 'pagerduty') Object.defineProperty(s, 'routingKey', { value: extra.routingKey ?? ROUTING_KEY });
  return s;
}

/** The `notify:` section of `sinks`: the defaults, with 3 attempts and a 2 s timeout, then `over`. */
export function testNotifyConfig(sinks: LoadedNotifySink[], over: Partial<NotifyConfig> = {}): NotifyConfig {
  return { ...DEFAULT_NOTIFY, maxAttempts: 3, timeoutMs: 2_000, sinks, ...over };
}

/**
 * The ledger entry of a transfer of 2500 USDC (6 decimals) base → arbitrum filled with 0.35 USD of fees and 0.03 USD
 * of gas (0.38 USD in all), then `over`.
 */
export function filledEntry(over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    transferId: 1,
    status: 'success',
    asset: 'USDC',
    originChain: 'base',
    destinationChain: 'arbitrum',
    amountIn: 2_500_000_000n,
    decimalsIn: 6,
    decimalsOut: 6,
    quotedExpectedOut: 2_499_000_000n,
    quotedMinOut: 2_498_000_000n,
    receivedOut: 2_499_000_000n,
    receivedSource: 'requests_v3_route_actual',
    fees: { execution: 250_000n, swap: 0n, platform: 100_000n, app: 0n },
    feesSource: 'requests_v3_actual',
    gasPaid: 10n ** 14n,
    gasDecimals: 18,
    gasUsdMicros: 30_000n,
    totalFeesUsdMicros: 380_000n,
    signedAtMs: 1_000,
    settledAtMs: 6_000,
    settleMs: 5_000,
    ...over,
  };
}
