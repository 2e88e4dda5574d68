/**
 * Small Ballast scenarios several simulator tests share. `payRefillDoc`: alpha pays 700 of its 1000 USDC at 1 s, beta (3000 USDC)
 * receives 50 at 1.5 s and holds a surplus; alpha's `min` decides whether Ballast refills it (at 500 it does, at
 * 200 nothing moves). Routes deliver in 600 ± 100 ms for 5 bps + 0.10 USD.
 */
export function payRefillDoc(alphaMin: string, name = `pay-700-min-${alphaMin}`) {
  return {
    name,
    token: { symbol: 'USDC', decimals: 6 },
    chains: {
      alpha: { initial: '1000', holding: { min: alphaMin, target: '1000', max: '2000' } },
      beta: { initial: '3000', holding: { min: '500', target: '1500', max: '2800' } },
    },
    traffic: [
      { at: 1000, chain: 'alpha', payment: '700', id: 'rent' },
      { at: 1500, chain: 'beta', receipt: '50' },
    ],
    routes: { default: { delayMs: 600, jitterMs: 100, feeBps: 5, feeUsd: '0.10' } },
    minTransfer: '10',
  };
}

/** alpha (100) pays a 120 USDC invoice at 20 s; beta holds 300, 150 above its max: it can give. */
export function invoiceDoc(extra: { announcedAheadMs?: number } = {}) {
  return {
    name: 'invoice',
    token: { symbol: 'USDC', decimals: 6 },
    chains: {
      alpha: { initial: '100', holding: { min: '50', target: '100', max: '200' } },
      beta: { initial: '300', holding: { min: '50', target: '100', max: '150' } },
    },
    traffic: [{ at: 20_000, chain: 'alpha', payment: '120', id: 'invoice', ...extra }],
    routes: { default: { delayMs: 2000, jitterMs: 200 } },
  };
}
