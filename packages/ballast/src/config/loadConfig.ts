/**
 * Loads `ballast.yaml`: YAML → `${VAR}` resolution → zod shape check → key loading → cross checks →
 * {@link LoadedConfig}. Every problem is collected and thrown together in one {@link ConfigError}.
 *
 * This module (with the rest of `src/config`) is the only place that reads `process.env`; everything else
 * receives resolved values.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { getAddress } from 'viem';
import { LineCounter, parseDocument } from 'yaml';
import { ChainSchema, type ChainConfig } from './chainSchema.ts';
import { checkConfig, type ParsedParts } from './checks.ts';
import { checkRoutes } from './routeChecks.ts';
import { protectEnvRefs, resolveEnvRefs, restoreEnvRefs, type EnvMap } from './env.ts';
import { ConfigError, type ConfigIssue } from './errors.ts';
import { buildLoadedChain, type LoadedChain } from './loadedChains.ts';
import { resolveGasTopUp } from './gasTopUp.ts';
import {
  AssetEntrySchema,
  ConfigSchema,
  DEFAULT_SCHEDULE,
  NAME_RE,
  PolicySectionSchema,
  type AssetEntryConfig,
  type ConfigFile,
  type PolicyConfig,
} from './schema.ts';
import { WalletSchema, type WalletConfig } from './walletSchema.ts';
import { checkWebhooks, type WebhooksConfig } from './webhooksSchema.ts';
import { loadWallet, type LoadedWallet } from './wallets.ts';
import { issuesFromZod } from './zodIssues.ts';
import { checkHa, DEFAULT_HA, type HaConfig } from './haSchema.ts';
import { loadNotify, notifySecrets, type NotifyConfig } from './notifySchema.ts';
import { checkNeeds, loadNeeds, needsSecrets, type NeedsConfig } from './needsSchema.ts';
import { DEFAULT_WEIGHT_TOLERANCE_BPS } from '../planner/weights.ts';
import { isPostgresUrl } from './storeUrl.ts';

export { ConfigError } from './errors.ts';
export type { LoadedBvmWallet, LoadedEvmWallet, LoadedSvmWallet, LoadedWallet } from './wallets.ts';
export type { LoadedBvmChain, LoadedChain, LoadedEvmChain, LoadedSvmChain } from './loadedChains.ts';

/** Relay client settings. `apiKey` is non-enumerable: read it explicitly, it is not copied by spread or JSON. */
export interface LoadedRelayConfig {
  baseUrl: string;
  readonly apiKey?: string;
  referrer?: string;
  timeoutMs: number;
  /** How long a fetched GET /chains list is reused, seconds (0: fetched every cycle). */
  chainsCacheSec: number;
  /** Client-side cap on quote requests per minute (default 50, the documented per-key default). */
  quotesPerMinute: number;
  /** Quote endpoint: `v2` POST /quote/v2 (default) or `v3` POST /quote/v3 (src/relay/quoteApi/). */
  quoteApi: 'v2' | 'v3';
}

/**
 * One holding of an asset with its references resolved. Amounts stay whole-unit decimal strings (the caller
 * converts with `wholeToBaseUnits` once decimals are known from GET /chains or the token contract).
 */
export interface LoadedAssetEntry {
  asset: string;
  chain: string;
  chainId: number;
  /**
   * Token: EIP-55 checksummed address on EVM chains, base58 mint (or `11111111111111111111111111111111` for SOL)
   * on Solana, `bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8` (BTC) on Bitcoin.
   */
  currency: string;
  wallet: string;
  /** Address of the wallet in its family's form: EIP-55 on EVM, base58 on Solana, lower-case bech32 on Bitcoin. */
  address: string;
  /** Band in whole units; "0" for a weighted holding, whose band each cycle computes (src/planner/weights.ts). */
  min: string;
  target: string;
  max: string;
  /** Weighted holding: its share of the asset's total, relative to the sum of the asset's weights. */
  weight?: number;
  /** Weighted holding: the band's half-width in bps of the asset's total (default 100). */
  toleranceBps?: number;
  decimals?: number;
}

/**
 * The validated configuration with secrets resolved.
 *
 * Secrets: each wallet's signer (`account`, `keypair` or `signer`) and `relay.apiKey` are non-enumerable, so
 * `JSON.stringify(config)`, object spread and default `util.inspect` cannot expose them; the raw private key
 * text is kept nowhere on the object. Solana and Bitcoin chains carry `bigint` amounts: serialise with a
 * replacer that turns bigints into strings.
 */
export interface LoadedConfig {
  /** Absolute path of the file that was loaded. */
  configFile: string;
  /** Directory of that file; relative paths in the file resolve against it. */
  configDir: string;
  relay: LoadedRelayConfig;
  wallets: Record<string, LoadedWallet>;
  chains: Record<string, LoadedChain>;
  assets: Record<string, LoadedAssetEntry[]>;
  policy: PolicyConfig;
  tracking: ConfigFile['tracking'];
  /** node-cron expression for the daemon. */
  schedule: string;
  /** Monitor-only mode: cycles plan, quote and verify, sign nothing (`daemon --monitor-only` sets it too). */
  monitorOnly: boolean;
  /**
   * Absolute path of the SQLite file, or a PostgreSQL URL as written (`postgres://…`, src/config/storeUrl.ts).
   */
  store: string;
  /** `readyAfterSchedules`: /readyz fails when no cycle finished within this many schedule intervals (default 3). */
  metrics: { listen: string; host: string; port: number; readyAfterSchedules?: number };
  /** `prices.<asset>`: USD per whole unit, pinned for `ballast_balance_usd` (src/cycle/metricsPrices.ts). */
  prices?: Record<string, string>;
  log: ConfigFile['log'];
  /** Recovery of unfilled deposits (src/config/withdrawalsSchema.ts, docs/withdrawals.md). */
  withdrawals: ConfigFile['withdrawals'];
  /** Relay webhook receiver (src/config/webhooksSchema.ts, docs/webhooks.md); absent = off. */
  webhooks?: WebhooksConfig;
  /** Leader lease of replicas sharing a PostgreSQL store (src/config/haSchema.ts, docs/ha.md); defaults applied. */
  ha: HaConfig;
  /** Notification sinks and delivery settings (src/config/notifySchema.ts, docs/notifications.md); absent = off. */
  notify?: NotifyConfig;
  /** The needs HTTP API (src/config/needsSchema.ts, docs/needs.md); absent, or without `token`: not served. */
  needs?: NeedsConfig;
  /** Non-fatal advice (e.g. a private key written literally in the file); the caller logs these. */
  warnings: string[];
}

/**
 * Reads, validates and resolves a configuration file.
 *
 * @param file path of the YAML file (relative to the working directory)
 * @param env environment used for `${VAR}` references (default `process.env`)
 * @returns the loaded configuration
 * @throws ConfigError (code `CONFIG_INVALID`, `exitCode` 2) listing every problem, one per line, each naming
 *   its YAML path and fix; secrets are never included
 */
export function loadConfig(file: string, env: EnvMap = process.env): LoadedConfig {
  const configFile = resolve(file);
  const configDir = dirname(configFile);
  const raw = readYaml(configFile);
  const issues: ConfigIssue[] = [];
  const envResult = resolveEnvRefs(raw, env, issues);
  const tree = envResult.value;
  const secrets = collectSecrets(tree);
  const envIssuePaths = new Set(issues.map((i) => i.path));
  const later: ConfigIssue[] = [];

  const parsed = ConfigSchema.safeParse(tree);
  if (!parsed.success) later.push(...issuesFromZod(parsed.error, ConfigSchema, tree));

  const parts = parseParts(tree);
  const wallets: Record<string, LoadedWallet> = {};
  for (const [name, wallet] of parts.wallets) {
    const loaded = loadWallet(name, wallet, configDir, later, secrets);
    if (loaded) wallets[name] = loaded;
  }
  checkConfig(parts, later);
  if (parts.policy) checkRoutes(parts.policy, parts, later);
  checkWebhooks(tree, later);
  checkNeeds(tree, later);
  if (parsed.success) checkHa(parsed.data.ha, later);
  issues.push(...later.filter((i) => !envIssuePaths.has(i.path)));

  if (issues.length > 0 || !parsed.success) throw new ConfigError(configFile, issues, secrets);
  const warnings = literalSecretWarnings(parsed.data, envResult.referencedPaths);
  return buildLoaded(parsed.data, wallets, configFile, configDir, warnings);
}

const MAX_YAML_ERRORS = 3;

function readYaml(configFile: string): unknown {
  let text: string;
  try {
    text = readFileSync(configFile, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code; // fs errors carry an errno code
    const message =
      code === 'ENOENT'
        ? 'file not found; pass --config <file> or set BALLAST_CONFIG'
        : `cannot read the file (${code ?? 'error'}); check its permissions`;
    throw new ConfigError(configFile, [{ path: '', message }], [], err);
  }
  const lineCounter = new LineCounter();
  // prettyErrors off: pretty errors quote source lines, which may hold a literal key
  const doc = parseDocument(protectEnvRefs(text), { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    // one syntax slip cascades into many parser errors: the first few locate it
    const issues = doc.errors.slice(0, MAX_YAML_ERRORS).map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return { path: '', message: `YAML error at line ${pos.line}, column ${pos.col}: ${e.message} (${e.code})` };
    });
    const more = doc.errors.length - issues.length;
    if (more > 0) issues.push({ path: '', message: `${more} more YAML errors follow from the ones above` });
    throw new ConfigError(configFile, issues);
  }
  let value: unknown;
  try {
    value = restoreEnvRefs(doc.toJS({ maxAliasCount: 100 }));
  } catch (err) {
    const message = `YAML error: ${err instanceof Error ? err.message : String(err)}`;
    throw new ConfigError(configFile, [{ path: '', message }], [], err);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ConfigError(configFile, [
      { path: '', message: 'expected a YAML mapping with relay:, wallets:, chains:, assets: and policy: sections' },
    ]);
  }
  return value;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function collectSecrets(tree: unknown): Set<string> {
  const secrets = new Set<string>();
  const root = asRecord(tree);
  const apiKey = asRecord(root.relay).apiKey;
  if (typeof apiKey === 'string') secrets.add(apiKey);
  for (const wallet of Object.values(asRecord(root.wallets))) {
    const key = asRecord(wallet).privateKey;
    if (typeof key === 'string') secrets.add(key);
  }
  for (const secret of notifySecrets(tree)) secrets.add(secret);
  for (const secret of needsSecrets(tree)) secrets.add(secret);
  return secrets;
}

/** Parses each entry on its own so that cross checks can run on everything that is well-formed. */
function parseParts(tree: unknown): ParsedParts {
  const root = asRecord(tree);
  const rawWallets = asRecord(root.wallets);
  const rawChains = asRecord(root.chains);
  const wallets = new Map<string, WalletConfig>();
  const chains = new Map<string, ChainConfig>();
  for (const [name, value] of Object.entries(rawWallets)) {
    const r = WalletSchema.safeParse(value);
    if (r.success && NAME_RE.test(name)) wallets.set(name, r.data);
  }
  for (const [name, value] of Object.entries(rawChains)) {
    const r = ChainSchema.safeParse(value);
    if (r.success && NAME_RE.test(name)) chains.set(name, r.data);
  }
  const assets: { symbol: string; index: number; entry: AssetEntryConfig }[] = [];
  for (const [symbol, list] of Object.entries(asRecord(root.assets))) {
    if (!Array.isArray(list) || !NAME_RE.test(symbol)) continue;
    list.forEach((value, index) => {
      const r = AssetEntrySchema.safeParse(value);
      if (r.success) assets.push({ symbol, index, entry: r.data });
    });
  }
  const policy = PolicySectionSchema.safeParse(root.policy);
  const schedule = root.schedule === undefined ? DEFAULT_SCHEDULE : root.schedule;
  return {
    walletNames: new Set(Object.keys(rawWallets)),
    chainNames: new Set(Object.keys(rawChains)),
    wallets,
    chains,
    assets,
    ...(policy.success ? { policy: policy.data } : {}),
    ...(typeof schedule === 'string' ? { schedule } : {}),
  };
}

function literalSecretWarnings(data: ConfigFile, referenced: ReadonlySet<string>): string[] {
  const warnings: string[] = [];
  if (data.relay.apiKey !== undefined && !referenced.has('relay.apiKey')) {
    warnings.push('relay.apiKey is written literally in the config file; prefer ${RELAY_API_KEY}');
  }
  for (const [name, wallet] of Object.entries(data.wallets)) {
    if (wallet.privateKey !== undefined && !referenced.has(`wallets.${name}.privateKey`)) {
      warnings.push(`wallets.${name}.privateKey is written literally in the config file; prefer \${ENV_VAR} or keyFile`);
    }
  }
  for (const [name, sink] of Object.entries(data.notify?.sinks ?? {})) {
    for (const field of ['secret', 'routingKey'] as const) {
      if (sink[field] !== undefined && !referenced.has(`notify.sinks.${name}.${field}`)) {
        warnings.push(`notify.sinks.${name}.${field} is written literally in the config file; prefer \${ENV_VAR}`);
      }
    }
  }
  if (data.needs?.token !== undefined && !referenced.has('needs.token')) {
    warnings.push('needs.token is written literally in the config file; prefer ${BALLAST_NEEDS_TOKEN}');
  }
  return warnings;
}

function buildLoaded(
  data: ConfigFile,
  wallets: Record<string, LoadedWallet>,
  configFile: string,
  configDir: string,
  warnings: string[],
): LoadedConfig {
  const relay: LoadedRelayConfig = {
    baseUrl: data.relay.baseUrl.replace(/\/+$/, ''),
    timeoutMs: data.relay.timeoutMs,
    chainsCacheSec: data.relay.chainsCacheSec,
    quotesPerMinute: data.relay.quotesPerMinute,
    quoteApi: data.relay.quoteApi,
    ...(data.relay.referrer !== undefined ? { referrer: data.relay.referrer } : {}),
  };
  if (data.relay.apiKey !== undefined) {
    Object.defineProperty(relay, 'apiKey', { value: data.relay.apiKey, enumerable: false, writable: false });
  }
  const chains: Record<string, LoadedChain> = {};
  const holdings = Object.entries(data.assets).flatMap(([symbol, entries]) => entries.map((entry) => ({ symbol, entry })));
  for (const [name, c] of Object.entries(data.chains)) {
    const loaded = buildLoadedChain(name, c);
    chains[name] = c.gasTopUp === undefined ? loaded : { ...loaded, gasTopUp: resolveGasTopUp(c.gasTopUp, holdings) };
  }
  const assets: Record<string, LoadedAssetEntry[]> = {};
  for (const [asset, entries] of Object.entries(data.assets)) {
    assets[asset] = entries.map((e) => {
      const chain = chains[e.chain];
      const wallet = wallets[e.wallet];
      if (!chain || !wallet) throw new Error(`unreachable: ${asset} references were checked`);
      return {
        asset,
        chain: e.chain,
        chainId: chain.chainId,
        currency: chain.vm === 'evm' ? getAddress(e.currency) : e.currency,
        wallet: e.wallet,
        address: wallet.address,
        min: e.min ?? '0',
        target: e.target ?? '0',
        max: e.max ?? '0',
        ...(e.weight !== undefined ? { weight: e.weight, toleranceBps: e.toleranceBps ?? DEFAULT_WEIGHT_TOLERANCE_BPS } : {}),
        ...(e.decimals !== undefined ? { decimals: e.decimals } : {}),
      };
    });
  }
  for (const asset of Object.keys(data.prices ?? {})) {
    if (!(asset in data.assets))
      warnings.push(`prices.${asset}: no asset ${asset} under assets:, so this price is unused; fix the name or remove it`);
  }
  if (data.ha !== undefined && !isPostgresUrl(data.store)) {
    warnings.push(
      'ha: is set but store: is a SQLite file, so there is no leader lease (one process at a time, by the run lock); set store: to a postgres:// URL to run replicas, or remove ha:',
    );
  }
  const listen = data.metrics.listen;
  const colon = listen.lastIndexOf(':');
  const host = listen.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return {
    configFile,
    configDir,
    relay,
    wallets,
    chains,
    assets,
    policy: data.policy,
    tracking: data.tracking,
    schedule: data.schedule,
    monitorOnly: data.monitorOnly,
    store: data.store === ':memory:' || isPostgresUrl(data.store) ? data.store : resolve(configDir, data.store),
    metrics: { listen, host, port: Number(listen.slice(colon + 1)), readyAfterSchedules: data.metrics.readyAfterSchedules },
    ...(data.prices !== undefined ? { prices: data.prices } : {}),
    log: data.log,
    withdrawals: data.withdrawals,
    webhooks: data.webhooks,
    ha: data.ha ?? { ...DEFAULT_HA },
    ...(data.notify !== undefined ? { notify: loadNotify(data.notify) } : {}),
    ...(data.needs !== undefined ? { needs: loadNeeds(data.needs) } : {}),
    warnings,
  };
}
