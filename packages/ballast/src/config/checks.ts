/**
 * Cross-field checks of the configuration that a per-field schema cannot express: references from assets to
 * chains and wallets, VM and Bitcoin network agreement, token addresses per VM family, band ordering
 * (min <= target <= max), duplicate holdings, chain id reuse and the well-known Solana/Bitcoin chain ids,
 * transfer limits, fee ceilings, gas top-ups (src/config/gasTopUp.ts) and the cron schedule.
 *
 * Each check runs on whatever parsed cleanly, so one broken entry does not hide problems elsewhere; a reference
 * to an entry that exists but failed its own schema is not reported a second time.
 */
import { validate as validateCron } from 'node-cron';
import { currencyProblem } from './addresses.ts';
import { BITCOIN_CHAIN_ID, SOLANA_CHAIN_ID, type ChainConfig } from './chainSchema.ts';
import type { ConfigIssue } from './errors.ts';
import { checkGasTopUps } from './gasTopUp.ts';
import type { AssetEntryConfig, PolicyConfig } from './schema.ts';
import type { WalletConfig } from './walletSchema.ts';

/** Chain ids whose VM family is fixed, with the family and the chain's name for messages. */
const KNOWN_CHAIN_VMS: ReadonlyMap<number, { vm: 'svm' | 'bvm'; label: string }> = new Map([
  [SOLANA_CHAIN_ID, { vm: 'svm', label: 'Solana' }],
  [BITCOIN_CHAIN_ID, { vm: 'bvm', label: 'Bitcoin' }],
]);

/** The parts of the configuration that parsed, plus the names that exist at all. */
export interface ParsedParts {
  /** Every key under `wallets:` (parsed or not). */
  walletNames: ReadonlySet<string>;
  /** Every key under `chains:` (parsed or not). */
  chainNames: ReadonlySet<string>;
  wallets: ReadonlyMap<string, WalletConfig>;
  chains: ReadonlyMap<string, ChainConfig>;
  /** Asset entries that parsed, with their position. */
  assets: ReadonlyArray<{ symbol: string; index: number; entry: AssetEntryConfig }>;
  policy?: PolicyConfig;
  schedule?: string;
}

/**
 * Runs every cross-field check.
 *
 * @param parts parsed parts of the file
 * @param issues receives one issue per problem, with its YAML path and fix
 */
export function checkConfig(parts: ParsedParts, issues: ConfigIssue[]): void {
  checkChains(parts, issues);
  checkAssets(parts, issues);
  checkGasTopUps(parts.chains, parts.assets, issues);
  if (parts.policy) checkPolicy(parts.policy, parts.assets, issues);
  if (parts.policy) checkGasTopUpAmounts(parts, parts.policy, issues);
  if (parts.policy?.limits) checkLimits(parts.policy.limits, parts, issues);
  if (parts.policy?.approvals) checkApprovals(parts.policy.approvals, parts, issues);
  if (parts.schedule !== undefined && !validateCron(parts.schedule)) {
    issues.push({
      path: 'schedule',
      message: `"${parts.schedule}" is not a valid cron expression; use five fields such as "*/5 * * * *"`,
    });
  }
}

function checkChains(parts: ParsedParts, issues: ConfigIssue[]): void {
  const byId = new Map<number, string>();
  for (const [name, chain] of parts.chains) {
    const other = byId.get(chain.chainId);
    if (other !== undefined) {
      issues.push({
        path: `chains.${name}.chainId`,
        message: `${chain.chainId} is already used by chains.${other}; define each chain once`,
      });
    } else byId.set(chain.chainId, name);
    const known = KNOWN_CHAIN_VMS.get(chain.chainId);
    if (known !== undefined && chain.vm !== known.vm) {
      issues.push({
        path: `chains.${name}.vm`,
        message: `chain ${chain.chainId} is ${known.label} but vm is ${chain.vm}; set vm: ${known.vm}`,
      });
    }
    if (chain.vm === 'bvm' && chain.highValueConfirmations !== undefined && chain.highValueConfirmations < chain.confirmations) {
      issues.push({
        path: `chains.${name}.highValueConfirmations`,
        message: `${chain.highValueConfirmations} is below confirmations (${chain.confirmations}); a large deposit must wait at least as long as a small one`,
      });
    }
    if (chain.vm === 'bvm' && chain.minFeeRateSatPerVb > chain.maxFeeRateSatPerVb) {
      issues.push({
        path: `chains.${name}.minFeeRateSatPerVb`,
        message: `${chain.minFeeRateSatPerVb} sat/vB is above maxFeeRateSatPerVb (${chain.maxFeeRateSatPerVb}); no deposit could pass both; lower minFeeRateSatPerVb or raise maxFeeRateSatPerVb`,
      });
    }
  }
}

/** An asset is held either by weights on every holding or by bands on every holding, never a mix. */
function checkWeightForms(parts: ParsedParts, issues: ConfigIssue[]): void {
  const forms = new Map<string, { weighted: number[]; banded: number[] }>();
  for (const { symbol, index, entry } of parts.assets) {
    const f = forms.get(symbol) ?? { weighted: [], banded: [] };
    (entry.weight !== undefined ? f.weighted : f.banded).push(index);
    forms.set(symbol, f);
  }
  for (const [symbol, f] of forms) {
    if (f.weighted.length > 0 && f.banded.length > 0) {
      issues.push({
        path: `assets.${symbol}[${f.banded[0]!}]`,
        message: `${symbol} mixes weighted holdings ([${f.weighted.join(', ')}]) with min/target/max bands ([${f.banded.join(', ')}]); give every holding of ${symbol} a weight, or none`,
      });
    }
  }
}

function checkAssets(parts: ParsedParts, issues: ConfigIssue[]): void {
  checkWeightForms(parts, issues);
  const seen = new Map<string, string>();
  for (const { symbol, index, entry } of parts.assets) {
    const at = `assets.${symbol}[${index}]`;
    const chain = parts.chains.get(entry.chain);
    const wallet = parts.wallets.get(entry.wallet);
    if (!parts.chainNames.has(entry.chain)) {
      issues.push({
        path: `${at}.chain`,
        message: `unknown chain "${entry.chain}"; define it under chains: or fix the name`,
      });
    }
    if (!parts.walletNames.has(entry.wallet)) {
      issues.push({
        path: `${at}.wallet`,
        message: `unknown wallet "${entry.wallet}"; define it under wallets: or fix the name`,
      });
    }
    if (chain && wallet && chain.vm !== wallet.vm) {
      issues.push({
        path: `${at}.wallet`,
        message: `wallet "${entry.wallet}" is ${wallet.vm} but chain "${entry.chain}" is ${chain.vm}; use a ${chain.vm} wallet`,
      });
    }
    if (chain?.vm === 'bvm' && wallet?.vm === 'bvm' && wallet.network !== chain.network) {
      issues.push({
        path: `${at}.wallet`,
        message: `wallet "${entry.wallet}" is a ${wallet.network} wallet but chain "${entry.chain}" is ${chain.network}; use a ${chain.network} wallet or fix the network`,
      });
    }
    const currency = chain ? currencyProblem(entry.currency, chain.vm) : undefined;
    if (currency !== undefined) issues.push({ path: `${at}.currency`, message: currency });
    checkBand(at, entry, issues);
    if (chain) {
      const currency = chain.vm === 'evm' ? entry.currency.toLowerCase() : entry.currency;
      const key = `${entry.chain}\u0000${currency}\u0000${entry.wallet}`;
      const first = seen.get(key);
      if (first !== undefined) {
        issues.push({
          path: at,
          message: `duplicate of ${first} (same chain, currency and wallet); keep one entry`,
        });
      } else seen.set(key, at);
    }
  }
}

function checkBand(at: string, entry: AssetEntryConfig, issues: ConfigIssue[]): void {
  const banded = (['min', 'target', 'max'] as const).filter((f) => entry[f] !== undefined);
  if (entry.weight !== undefined) {
    for (const f of banded)
      issues.push({ path: `${at}.${f}`, message: `set either weight or min/target/max, not both; remove ${f} or weight` });
    return;
  }
  if (entry.toleranceBps !== undefined)
    issues.push({ path: `${at}.toleranceBps`, message: 'toleranceBps applies to a weighted holding only; set weight or remove it' });
  if (banded.length < 3) {
    const missing = (['min', 'target', 'max'] as const).filter((f) => entry[f] === undefined);
    issues.push({
      path: `${at}.${missing[0]!}`,
      message: `missing; a holding needs min, target and max (whole units), or a weight (missing: ${missing.join(', ')})`,
    });
    return;
  }
  checkWholeBand(at, entry as AssetEntryConfig & { min: string; target: string; max: string }, issues);
}

function checkWholeBand(at: string, entry: AssetEntryConfig & { min: string; target: string; max: string }, issues: ConfigIssue[]): void {
  if (compareDecimals(entry.min, entry.target) > 0) {
    issues.push({
      path: `${at}.min`,
      message: `min ${entry.min} is above target ${entry.target}; min <= target <= max is required`,
    });
  }
  if (compareDecimals(entry.target, entry.max) > 0) {
    issues.push({
      path: `${at}.max`,
      message: `max ${entry.max} is below target ${entry.target}; min <= target <= max is required`,
    });
  }
  if (entry.decimals !== undefined) {
    for (const field of ['min', 'target', 'max'] as const) {
      const frac = entry[field].split('.')[1] ?? '';
      if (frac.length > entry.decimals) {
        issues.push({
          path: `${at}.${field}`,
          message: `${entry[field]} has more than ${entry.decimals} fractional digits; round it`,
        });
      }
    }
  }
}

function checkTransferBounds(at: string, limits: { minTransfer: string; maxTransfer: string }, issues: ConfigIssue[]): void {
  if (compareDecimals(limits.minTransfer, limits.maxTransfer) > 0) {
    issues.push({
      path: `${at}.minTransfer`,
      message: `minTransfer ${limits.minTransfer} is above maxTransfer ${limits.maxTransfer}; lower it or raise maxTransfer`,
    });
  }
  if (compareDecimals(limits.maxTransfer, '0') === 0) {
    issues.push({ path: `${at}.maxTransfer`, message: 'must be above 0; set the largest single transfer allowed' });
  }
}

function checkPolicy(policy: PolicyConfig, assets: ParsedParts['assets'], issues: ConfigIssue[]): void {
  checkTransferBounds('policy', policy, issues);
  for (const [asset, limits] of Object.entries(policy.transferLimits ?? {})) {
    if (!assets.some((a) => a.symbol === asset)) {
      issues.push({
        path: `policy.transferLimits.${asset}`,
        message: `unknown asset "${asset}"; use a name defined under assets: or remove the entry`,
      });
    }
    checkTransferBounds(`policy.transferLimits.${asset}`, limits, issues);
  }
  for (const asset of Object.keys(policy.strategy ?? {})) {
    if (!assets.some((a) => a.symbol === asset)) {
      issues.push({
        path: `policy.strategy.${asset}`,
        message: `unknown asset "${asset}"; use a name defined under assets: or remove the entry`,
      });
    }
  }
  for (const asset of Object.keys(policy.refillTo ?? {})) {
    if (!assets.some((a) => a.symbol === asset)) {
      issues.push({
        path: `policy.refillTo.${asset}`,
        message: `unknown asset "${asset}"; use a name defined under assets: or remove the entry`,
      });
    }
  }
  for (const [asset, home] of Object.entries(policy.sweepTo ?? {})) {
    const [chain, wallet] = home.split(':') as [string, string | undefined];
    const holdings = assets.filter(
      (a) => a.symbol === asset && a.entry.chain === chain && (wallet === undefined || a.entry.wallet === wallet),
    );
    if (holdings.length !== 1) {
      issues.push({
        path: `policy.sweepTo.${asset}`,
        message:
          holdings.length === 0
            ? `${home} is not a holding of ${asset} under assets:; name one of its chains (or <chain>:<wallet>), or remove the entry`
            : `${asset} is held by ${holdings.length} wallets on ${chain}; name one as ${chain}:<wallet>`,
      });
    }
  }
  if (policy.maxFees.totalBps === undefined) {
    issues.push({
      path: 'policy.maxFees.totalBps',
      message:
        'required: the total fee ceiling in bps also sets the smallest guaranteed output Ballast accepts (input less slippageBps and totalBps); set it, e.g. totalBps: 30',
    });
  } else if ((policy.slippageBps ?? 0) + policy.maxFees.totalBps >= 10_000) {
    issues.push({
      path: 'policy.maxFees.totalBps',
      message: `slippageBps + totalBps is ${(policy.slippageBps ?? 0) + policy.maxFees.totalBps} bps, which would accept losing the whole transfer; keep the sum well below 10000`,
    });
  }
}

/** A gas top-up is a single transfer of its source asset: its `amount` stays within that asset's maxTransfer. */
function checkGasTopUpAmounts(parts: ParsedParts, policy: PolicyConfig, issues: ConfigIssue[]): void {
  for (const [name, chain] of parts.chains) {
    const topUp = chain.gasTopUp;
    if (topUp === undefined) continue;
    const asset = topUp.from.split(':')[1]!; // <chain>:<asset>[:<wallet>], checked by the schema
    const limit = policy.transferLimits?.[asset];
    const [key, max] = limit
      ? [`policy.transferLimits.${asset}.maxTransfer`, limit.maxTransfer]
      : ['policy.maxTransfer', policy.maxTransfer];
    if (compareDecimals(topUp.amount, max) > 0) {
      issues.push({
        path: `chains.${name}.gasTopUp.amount`,
        message: `${topUp.amount} ${asset} is above ${key} (${max}); lower it or raise the limit`,
      });
    }
  }
}

/** `policy.limits`: caps name configured assets, the allow-list names configured wallets. */
function checkLimits(limits: NonNullable<PolicyConfig['limits']>, parts: ParsedParts, issues: ConfigIssue[]): void {
  for (const asset of Object.keys(limits.dailyNotional ?? {})) {
    if (!parts.assets.some((a) => a.symbol === asset)) {
      issues.push({
        path: `policy.limits.dailyNotional.${asset}`,
        message: `unknown asset "${asset}"; use a name defined under assets: or remove the entry`,
      });
    }
  }
  (limits.allowedRecipients ?? []).forEach((name, i) => {
    if (!parts.walletNames.has(name)) {
      issues.push({
        path: `policy.limits.allowedRecipients[${i}]`,
        message: `unknown wallet "${name}"; list names defined under wallets:`,
      });
    }
  });
}

/** `policy.approvals`: per-asset entries name configured assets. */
function checkApprovals(approvals: NonNullable<PolicyConfig['approvals']>, parts: ParsedParts, issues: ConfigIssue[]): void {
  for (const asset of Object.keys(approvals.assets ?? {})) {
    if (!parts.assets.some((a) => a.symbol === asset)) {
      issues.push({
        path: `policy.approvals.assets.${asset}`,
        message: `unknown asset "${asset}"; use a name defined under assets: or remove the entry`,
      });
    }
  }
}

/**
 * Compares two non-negative decimal strings exactly (scaled to a common number of fractional digits).
 *
 * @param a decimal string matching `^[0-9]+(\.[0-9]+)?$`
 * @param b decimal string matching the same pattern
 * @returns -1, 0 or 1
 */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const scale = Math.max(af.length, bf.length);
  const x = BigInt(ai + af.padEnd(scale, '0'));
  const y = BigInt(bi + bf.padEnd(scale, '0'));
  return x < y ? -1 : x > y ? 1 : 0;
}
