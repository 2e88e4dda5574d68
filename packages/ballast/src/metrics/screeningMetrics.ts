/**
 * Metrics of Relay's address screening (src/relay/screening.ts, https://docs.relay.link/security/transaction-screening):
 * wallets paused because a quote was refused (`BLOCKED_WALLET_ADDRESS`, `SANCTIONED_WALLET_ADDRESS`) or a fill was
 * blocked (`failReason` `BLOCKED_WALLET`). Registered by `createMetrics` (src/metrics/metrics.ts). `wallet` is a
 * configured wallet name (a bounded set), never an address.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

/** The screening metrics; part of `BallastMetrics`. */
export interface ScreeningMetrics {
  /** `ballast_wallet_screening_blocks_total{wallet, stage}`: quotes refused by screening, per wallet paused (stage `quote`). */
  walletScreeningBlocksTotal: Counter<'wallet' | 'stage'>;
  /** `ballast_wallet_screening_paused{wallet}`: 1 while the wallet is paused by screening (set every cycle). */
  walletScreeningPaused: Gauge<'wallet'>;
}

/** Creates the screening metrics in `registry`. */
export function createScreeningMetrics(registry: Registry): ScreeningMetrics {
  const registers = [registry];
  return {
    walletScreeningBlocksTotal: new Counter({
      name: 'ballast_wallet_screening_blocks_total',
      help: 'Quotes refused by Relay address screening (BLOCKED_WALLET_ADDRESS, SANCTIONED_WALLET_ADDRESS), once per wallet of the transfer, which is paused; stage quote.',
      labelNames: ['wallet', 'stage'],
      registers,
    }),
    walletScreeningPaused: new Gauge({
      name: 'ballast_wallet_screening_paused',
      help: 'Wallets paused by Relay address screening (a quote refused, or a fill blocked with failReason BLOCKED_WALLET): 1 per wallet until an operator runs ballast resume.',
      labelNames: ['wallet'],
      registers,
    }),
  };
}

/**
 * Sets `ballast_wallet_screening_paused` to exactly the wallets given (others dropped).
 *
 * @param wallets names of the wallets paused now
 */
export function setScreeningPaused(metrics: ScreeningMetrics, wallets: readonly string[]): void {
  metrics.walletScreeningPaused.reset();
  for (const wallet of wallets) metrics.walletScreeningPaused.set({ wallet }, 1);
}
