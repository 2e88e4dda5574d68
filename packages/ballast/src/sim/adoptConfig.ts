/**
 * An operator's own `ballast.yaml` made into the config of a simulation (docs/simulate.md "Replaying your own
 * traffic"): the policy (limits, fee caps, strategy, routes) and the holdings of one asset are kept; that asset's
 * chains become the simulated chains of the same names, its token the simulated token, every wallet its holdings use
 * the one simulated treasury, and the Relay API, store and metrics placeholders; other assets are dropped. `${VAR}`
 * references are never resolved here, so the operator's keys are neither read nor needed. What cannot be simulated
 * (Solana and Bitcoin holdings, an asset absent from the config, a chain the simulation lacks) is refused with one
 * line naming the field and the fix. Pure but for {@link readConfigDocument}.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { protectEnvRefs, restoreEnvRefs } from '../config/env.ts';
import { ConfigError } from '../config/errors.ts';
import { DEFAULT_WEIGHT_TOLERANCE_BPS } from '../planner/weights.ts';
import type { SimChain, SimToken } from './identity.ts';
import type { Holding } from './scenario.ts';
import { SIM_CONFIRMATIONS } from './world.ts';

/** The variable the simulated treasury's key is read from (set by the simulator to the seed's key). */
export const SIM_KEY_VAR = 'BALLAST_SIM_TREASURY_KEY';

/** A parsed config document, `${VAR}` references as written. */
export type ConfigDocument = Record<string, unknown>;

/** The asset of a config a simulation replays: its symbol, decimals when the config states them, its holdings. */
export interface AdoptedAsset {
  symbol: string;
  decimals?: number;
  /** One per chain, in config order; band amounts whole-unit decimal strings. */
  holdings: Holding[];
}

const record = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
const VM_NAMES: Record<string, string> = { svm: 'Solana (svm)', bvm: 'Bitcoin (bvm)' };

/**
 * Reads a config file as a document, without resolving `${VAR}` references (no environment variable is read).
 *
 * @throws ConfigError (exit code 2) when the file cannot be read or is not a YAML mapping
 */
export function readConfigDocument(file: string): ConfigDocument {
  const fail = (message: string, cause?: unknown): never => {
    throw new ConfigError(resolve(file), [{ path: '', message }], [], cause);
  };
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`cannot read the file (${(error as NodeJS.ErrnoException).code ?? 'error'}); check the --config path`, error);
  }
  const doc = parseDocument(protectEnvRefs(text), { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) fail(`YAML error: ${doc.errors[0]!.message}`); // length > 0
  const value = restoreEnvRefs(doc.toJS({ maxAliasCount: 100 }));
  if (Object.keys(record(value)).length === 0) fail('expected a YAML mapping with wallets:, chains:, assets: and policy: sections');
  return value as ConfigDocument;
}

/**
 * Picks the asset a simulation replays and checks that it can be simulated.
 *
 * @param file the config file (for messages)
 * @param requested `--asset`, when given
 * @param fallback the scenario's token symbol: the default when the config has several assets
 * @throws ConfigError one line: the asset is absent or ambiguous, a holding is on a Solana or Bitcoin chain or
 *   wallet, two holdings share a chain, or a holding is malformed
 */
export function pickAsset(file: string, doc: ConfigDocument, requested?: string, fallback?: string): AdoptedAsset {
  const fail = (path: string, message: string): never => {
    throw new ConfigError(resolve(file), [{ path, message }]);
  };
  const assets = record(doc.assets);
  const names = Object.keys(assets);
  const list = names.join(', ') || 'none';
  let symbol: string;
  if (requested !== undefined) {
    if (!(requested in assets)) fail('assets', `no asset ${requested} (the config has ${list}); pass one of them to --asset`);
    symbol = requested;
  } else if (names.length === 1)
    symbol = names[0]!; // length 1
  else if (fallback !== undefined && fallback in assets) symbol = fallback;
  else symbol = fail('assets', `the config has ${list}${fallback ? ` but not ${fallback}` : ''}; choose the asset to replay with --asset`);
  const entries = assets[symbol];
  if (!Array.isArray(entries) || entries.length === 0) return fail(`assets.${symbol}`, 'expected a list of holdings');
  const chains = record(doc.chains);
  const wallets = record(doc.wallets);
  const seen = new Map<string, number>();
  let decimals: number | undefined;
  const holdings = entries.map((raw, i): Holding => {
    const at = `assets.${symbol}[${i}]`;
    const e = record(raw);
    const chain = typeof e.chain === 'string' ? e.chain : fail(`${at}.chain`, 'expected the name of a chain under chains:');
    if (!(chain in chains)) fail(`${at}.chain`, `unknown chain "${chain}"; define it under chains: or fix the name`);
    const chainVm = String(record(chains[chain]).vm ?? 'evm');
    const walletVm = String(record(wallets[String(e.wallet)]).vm ?? 'evm');
    const other = ` the simulator runs EVM chains only: replay another asset with --asset, or a copy of the config without this holding`;
    if (chainVm !== 'evm') fail(`${at}.chain`, `"${chain}" is a ${VM_NAMES[chainVm] ?? chainVm} chain;${other}`);
    if (walletVm !== 'evm') fail(`${at}.wallet`, `"${String(e.wallet)}" is a ${VM_NAMES[walletVm] ?? walletVm} wallet;${other}`);
    const first = seen.get(chain);
    if (first !== undefined) {
      fail(
        `${at}.chain`,
        `a second holding on "${chain}" (the first is assets.${symbol}[${first}]); the simulator has one treasury per chain: keep one in a copy of the config`,
      );
    }
    seen.set(chain, i);
    if (typeof e.decimals === 'number') decimals ??= e.decimals;
    if (typeof e.weight === 'number') {
      return { chain, weight: e.weight, toleranceBps: typeof e.toleranceBps === 'number' ? e.toleranceBps : DEFAULT_WEIGHT_TOLERANCE_BPS };
    }
    const band = [e.min, e.target, e.max];
    if (!band.every((v) => typeof v === 'string')) fail(at, 'expected min, target and max as whole-unit decimal strings, or a weight');
    return { chain, min: String(e.min), target: String(e.target), max: String(e.max) };
  });
  return { symbol, ...(decimals !== undefined ? { decimals } : {}), holdings };
}

/**
 * The simulation's config document made of an operator's: see the module comment. Policy entries of other assets
 * are dropped, and so are `policy.routes` entries naming a chain or wallet the simulation lacks (they match none of
 * its routes); `<chain>:<wallet>` of a kept holding becomes `<chain>` (one treasury per chain);
 * `limits.allowedRecipients` becomes the treasury when it listed a wallet of the asset's holdings;
 * `limits.killSwitchFile` (a file of the operator's host) is dropped.
 *
 * @param file the config file (for messages)
 * @param symbol the asset, as {@link pickAsset} chose it
 * @param chains the simulated chains: every chain of the asset's holdings must be one of them
 * @param token the simulated token, whose address every holding gets
 * @throws ConfigError one line: a holding on a chain the simulation lacks
 */
export function adoptConfig(
  file: string,
  doc: ConfigDocument,
  symbol: string,
  chains: readonly SimChain[],
  token: SimToken,
): ConfigDocument {
  const entries = (record(doc.assets)[symbol] ?? []) as unknown[];
  const simChain = new Map(chains.map((c) => [c.name, c]));
  const holdingWallet = new Map<string, string>();
  const assetEntries = entries.map((raw, i) => {
    const e = record(raw);
    const chain = String(e.chain);
    if (!simChain.has(chain)) {
      const names = chains.map((c) => c.name).join(', ');
      throw new ConfigError(resolve(file), [
        {
          path: `assets.${symbol}[${i}].chain`,
          message: `"${chain}" is not a chain of the simulation (${names}); add it to the scenario, or simulate a copy of the config without this holding`,
        },
      ]);
    }
    holdingWallet.set(chain, String(e.wallet));
    return { ...e, currency: token.address, wallet: 'treasury' };
  });
  const wallets = new Set(holdingWallet.values());
  return {
    relay: { baseUrl: 'http://127.0.0.1:9', referrer: 'ballast-simulate' },
    wallets: { treasury: { vm: 'evm', privateKey: `\${${SIM_KEY_VAR}}` } },
    chains: Object.fromEntries(
      chains.map((c) => [c.name, { chainId: c.chainId, rpcUrl: 'http://127.0.0.1:9', confirmations: SIM_CONFIRMATIONS }]),
    ),
    assets: { [symbol]: assetEntries },
    policy: adoptPolicy(record(doc.policy), symbol, holdingWallet, wallets),
    ...(doc.tracking !== undefined ? { tracking: doc.tracking } : {}),
    store: './unused.db',
    metrics: { listen: '127.0.0.1:9464' },
  };
}

/** Keeps `key` of a per-asset map, when present. */
function only(map: unknown, symbol: string): Record<string, unknown> | undefined {
  if (map === undefined) return undefined;
  const m = record(map);
  return symbol in m ? { [symbol]: m[symbol] } : undefined;
}

/** `<chain>` or `<chain>:<wallet>` of a kept holding → `<chain>`; anything else → null (no simulated holding). */
function holdingRef(ref: string, holdingWallet: ReadonlyMap<string, string>): string | null {
  if (ref === '*') return ref;
  const [chain, wallet] = ref.split(':') as [string, string | undefined];
  const held = holdingWallet.get(chain);
  return held !== undefined && (wallet === undefined || wallet === held) ? chain : null;
}

function adoptPolicy(
  policy: Record<string, unknown>,
  symbol: string,
  holdingWallet: ReadonlyMap<string, string>,
  wallets: ReadonlySet<string>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...policy };
  for (const key of ['transferLimits', 'strategy', 'refillTo'] as const) {
    const kept = only(policy[key], symbol);
    if (kept) out[key] = kept;
    else delete out[key];
  }
  const sweep = only(policy.sweepTo, symbol);
  const home = sweep ? holdingRef(String(sweep[symbol]), holdingWallet) : null;
  if (home !== null && home !== '*') out.sweepTo = { [symbol]: home };
  else delete out.sweepTo;
  if (Array.isArray(policy.routes)) {
    out.routes = policy.routes.flatMap((raw) => {
      const r = record(raw);
      if (r.asset !== undefined && r.asset !== symbol) return [];
      const from = holdingRef(String(r.from), holdingWallet);
      const to = holdingRef(String(r.to), holdingWallet);
      return from !== null && to !== null ? [{ ...r, from, to }] : [];
    });
  }
  if (policy.limits !== undefined) {
    const limits: Record<string, unknown> = { ...record(policy.limits) };
    delete limits.killSwitchFile;
    const notional = only(limits.dailyNotional, symbol);
    if (notional) limits.dailyNotional = notional;
    else delete limits.dailyNotional;
    if (Array.isArray(limits.allowedRecipients)) {
      limits.allowedRecipients = limits.allowedRecipients.some((w) => wallets.has(String(w))) ? ['treasury'] : [];
    }
    out.limits = limits;
  }
  return out;
}
