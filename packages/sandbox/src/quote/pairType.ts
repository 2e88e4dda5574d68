/**
 * Pair types and the platform fee charged for each (docs/relay-contract.md "Limits", platform fee table): token bridge and
 * same-chain wrap/unwrap 0.00 %, stablecoin swap 0.01 %, major swap 0.06 %, minor swap 0.15 %.
 */

/** Pair type of a quote (docs/relay-contract.md "Limits"). */
export type PairType = 'bridge' | 'stablecoin' | 'major' | 'minor';

/** Stablecoins named by the platform fee table of docs/relay-contract.md "Limits". */
export const STABLECOIN_SYMBOLS: ReadonlySet<string> = new Set([
  'USDC',
  'USDC.e',
  'USDT',
  'USDT0',
  'DAI',
  'USDe',
  'USDS',
  'USD1',
  'PYUSD',
  'USDG',
  'mUSD',
  'USDm',
  'USDH',
  'pUSD',
  'PlumeUSD',
]);

/** Major assets named by the platform fee table of docs/relay-contract.md "Limits". */
export const MAJOR_SYMBOLS: ReadonlySet<string> = new Set(['ETH', 'WETH', 'BTC', 'WBTC', 'SOL', 'WSOL', 'POL', 'BNB', 'PLUME']);

/** Native/wrapped pairs that count as wrap/unwrap (platform fee 0). */
const WRAP_PAIRS: ReadonlySet<string> = new Set(['ETH/WETH', 'WETH/ETH', 'SOL/WSOL', 'WSOL/SOL']);

/** Platform fee in basis points per pair type (docs/relay-contract.md "Limits"). */
export const PLATFORM_BPS_BY_PAIR: Readonly<Record<PairType, number>> = {
  bridge: 0,
  stablecoin: 1,
  major: 6,
  minor: 15,
};

/**
 * Classifies a pair by symbols. Same symbol (or a wrap pair) → `bridge`; two stablecoins → `stablecoin`;
 * two majors, or a major and a stablecoin (docs/relay-contract.md "Limits": "major stablecoin"; every listed stablecoin is
 * treated as major) → `major`; anything else → `minor`.
 *
 * @param symbolIn input currency symbol (case-sensitive as docs/relay-contract.md writes them)
 * @param symbolOut output currency symbol
 */
export function classifyPair(symbolIn: string, symbolOut: string): PairType {
  if (symbolIn === symbolOut || WRAP_PAIRS.has(`${symbolIn}/${symbolOut}`)) return 'bridge';
  const stableIn = STABLECOIN_SYMBOLS.has(symbolIn);
  const stableOut = STABLECOIN_SYMBOLS.has(symbolOut);
  if (stableIn && stableOut) return 'stablecoin';
  const majorIn = MAJOR_SYMBOLS.has(symbolIn);
  const majorOut = MAJOR_SYMBOLS.has(symbolOut);
  if ((majorIn && majorOut) || (majorIn && stableOut) || (stableIn && majorOut)) return 'major';
  return 'minor';
}
