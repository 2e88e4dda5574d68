/**
 * `chains.<name>.gasTopUp`: where the native token of a signer below `chains.<name>.minGasBalance` is bought
 * from. The top-up is a cross-asset `EXACT_INPUT` quote (docs/relay-contract.md "POST /quote/v2"): `amount` whole units of
 * the source holding `from` in, at least `minOut` whole units of this chain's native token guaranteed out
 * (`minimumAmount`, docs/relay-contract.md "protocol.v2"). `minOut` is the operator's price floor: it is what lets local
 * verification judge a quote between two assets without trusting the API's prices.
 *
 * This module holds the schema of the key, its cross-field checks (run by src/config/checks.ts) and its
 * resolution to one holding once the configuration is valid.
 */
import { z } from 'zod';
import { BVM_NATIVE_CURRENCY, SVM_NATIVE_CURRENCY } from './addresses.ts';
import type { ChainConfig } from './chainSchema.ts';
import type { ConfigIssue } from './errors.ts';
import { WHOLE_AMOUNT_RE } from './patterns.ts';

/** `<chain>:<asset>` or `<chain>:<asset>:<wallet>`, each a config name (src/config/patterns.ts NAME_RE). */
const HOLDING_REF_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}:[A-Za-z][A-Za-z0-9_.-]{0,63}(:[A-Za-z][A-Za-z0-9_.-]{0,63})?$/;

const wholeUnits = (key: string, what: string, example: string) =>
  z
    .string({ error: `write ${key} as a quoted decimal string in whole units of ${what}, e.g. "${example}"` })
    .regex(WHOLE_AMOUNT_RE, `${key} must be a decimal string in whole units of ${what}, e.g. "${example}"`);

/** zod schema of `chains.<name>.gasTopUp`. */
export const GasTopUpSchema = z
  .strictObject({
    from: z
      .string({ error: 'expected a holding under assets: as <chain>:<asset> or <chain>:<asset>:<wallet>, e.g. "base:USDC"' })
      .regex(HOLDING_REF_RE, 'expected a holding under assets: as <chain>:<asset> or <chain>:<asset>:<wallet>, e.g. "base:USDC"')
      .describe(
        "the holding that pays for a top-up, <chain>:<asset>[:<wallet>] (on another chain, or another token than this chain's native one)",
      ),
    amount: wholeUnits('amount', 'the source asset', '25').describe(
      'what one top-up pays, in whole units of the source asset (sent as an EXACT_INPUT quote)',
    ),
    minOut: wholeUnits('minOut', "this chain's native token", '0.005').describe(
      "the least native token (whole units) one top-up must guarantee (the order's minimumAmount); your price floor: a quote guaranteeing less is refused",
    ),
  })
  .describe(
    'buy native token for a signer wallet of this chain whose balance falls below minGasBalance, with a cross-asset quote from another holding; needs minGasBalance',
  );

/** `chains.<name>.gasTopUp` as written in the file. */
export type GasTopUpConfig = z.output<typeof GasTopUpSchema>;

/** A gas top-up with its source resolved to one configured holding (the wallet named even when the file did not). */
export interface LoadedGasTopUp {
  from: { chain: string; asset: string; wallet: string };
  /** Whole units of the source asset paid per top-up (decimal string). */
  amount: string;
  /** Whole units of the chain's native token each top-up must guarantee (decimal string). */
  minOut: string;
}

/** One parsed asset holding, as the cross checks see it. */
interface HoldingEntry {
  symbol: string;
  entry: { chain: string; wallet: string; currency: string; decimals?: number | undefined };
}

/** Splits `<chain>:<asset>[:<wallet>]` (the schema has checked its form). */
function splitRef(from: string): { chain: string; asset: string; wallet?: string } {
  const [chain, asset, wallet] = from.split(':') as [string, string, string | undefined];
  return wallet === undefined ? { chain, asset } : { chain, asset, wallet };
}

/** The holdings `from` names (none, one, or several when no wallet is given and several hold it there). */
function matchingHoldings(from: string, assets: readonly HoldingEntry[]): HoldingEntry[] {
  const ref = splitRef(from);
  return assets.filter(
    (a) => a.symbol === ref.asset && a.entry.chain === ref.chain && (ref.wallet === undefined || a.entry.wallet === ref.wallet),
  );
}

/** Whether `currency` is the native token of a chain of family `vm` (docs/relay-contract.md "Currency"). */
export function isNativeCurrency(currency: string, vm: ChainConfig['vm']): boolean {
  if (vm === 'evm') return /^0x0{40}$/i.test(currency);
  return currency === (vm === 'svm' ? SVM_NATIVE_CURRENCY : BVM_NATIVE_CURRENCY);
}

/** Decimals of each VM family's native token (ETH 18, SOL 9, BTC 8), as the chain adapters report them. */
const NATIVE_DECIMALS: Readonly<Record<ChainConfig['vm'], number>> = { evm: 18, svm: 9, bvm: 8 };

/** Number of fractional digits of a whole-unit decimal string. */
function fractionDigits(amount: string): number {
  return (amount.split('.')[1] ?? '').length;
}

/** Whole-unit decimal string is zero ("0", "0.000"). */
function isZero(amount: string): boolean {
  return /^0+(\.0+)?$/.test(amount);
}

/**
 * Cross-field checks of every `chains.<name>.gasTopUp`: `minGasBalance` set on the same chain, amounts above 0,
 * `from` naming exactly one holding under `assets:` that is not this chain's own native token, and a signer on
 * the chain to top up.
 *
 * @param chains the chains that parsed
 * @param assets the asset entries that parsed
 * @param issues receives one issue per problem, naming the YAML path, the valid holdings and the fix
 */
export function checkGasTopUps(chains: ReadonlyMap<string, ChainConfig>, assets: readonly HoldingEntry[], issues: ConfigIssue[]): void {
  for (const [name, chain] of chains) {
    const topUp = chain.gasTopUp;
    if (topUp === undefined) continue;
    const at = `chains.${name}.gasTopUp`;
    if (chain.minGasBalance === undefined) {
      issues.push({
        path: at,
        message: `needs chains.${name}.minGasBalance: a signer is topped up when its native balance falls below it; set minGasBalance or remove gasTopUp`,
      });
    }
    if (isZero(topUp.amount))
      issues.push({ path: `${at}.amount`, message: 'must be above 0: what one top-up pays, in whole units of the source asset' });
    if (isZero(topUp.minOut)) {
      issues.push({
        path: `${at}.minOut`,
        message: `must be above 0: the least native token on ${name} a top-up must guarantee (your price floor)`,
      });
    } else if (fractionDigits(topUp.minOut) > NATIVE_DECIMALS[chain.vm]) {
      issues.push({
        path: `${at}.minOut`,
        message: `${topUp.minOut} has more than ${NATIVE_DECIMALS[chain.vm]} fractional digits (the native token's decimals); round it`,
      });
    }
    if (!assets.some((a) => a.entry.chain === name)) {
      issues.push({
        path: at,
        message: `no wallet holds an asset on ${name}, so no signer there is read or topped up; add a holding on ${name} or remove gasTopUp`,
      });
    }
    const holdings = matchingHoldings(topUp.from, assets);
    const valid = () => assets.map((a) => `${a.entry.chain}:${a.symbol}:${a.entry.wallet}`).join(', ');
    if (holdings.length === 0) {
      issues.push({
        path: `${at}.from`,
        message: `${topUp.from} is not a holding under assets:; name one as <chain>:<asset>[:<wallet>] (configured: ${valid()})`,
      });
      continue;
    }
    if (holdings.length > 1) {
      const { chain: c, asset } = splitRef(topUp.from);
      issues.push({
        path: `${at}.from`,
        message: `${holdings.length} wallets hold ${asset} on ${c}; name one as ${c}:${asset}:<wallet> (${holdings.map((h) => h.entry.wallet).join(', ')})`,
      });
      continue;
    }
    const source = holdings[0]!;
    const pinned = source.entry.decimals;
    if (pinned !== undefined && fractionDigits(topUp.amount) > pinned) {
      issues.push({
        path: `${at}.amount`,
        message: `${topUp.amount} has more than ${pinned} fractional digits (the decimals of ${topUp.from}); round it`,
      });
    }
    if (source.entry.chain === name && isNativeCurrency(source.entry.currency, chain.vm)) {
      issues.push({
        path: `${at}.from`,
        message: `${topUp.from} is ${name}'s own native token, which the top-up buys; name a holding on another chain or of another token`,
      });
    }
  }
}

/**
 * Resolves a valid `gasTopUp` (checked by {@link checkGasTopUps}) to its one source holding.
 *
 * @throws Error when `from` does not name exactly one holding (unreachable after the checks passed)
 */
export function resolveGasTopUp(topUp: GasTopUpConfig, assets: readonly HoldingEntry[]): LoadedGasTopUp {
  const holdings = matchingHoldings(topUp.from, assets);
  if (holdings.length !== 1) throw new Error(`unreachable: gasTopUp.from ${topUp.from} was checked`);
  const h = holdings[0]!;
  return { from: { chain: h.entry.chain, asset: h.symbol, wallet: h.entry.wallet }, amount: topUp.amount, minOut: topUp.minOut };
}
