/**
 * Routes paused (Ballast), until an operator resolves what paused them (`ballast resume`). Pure.
 *
 * - A failed deposit: after a request ends `failure` its deposit stays in the depository (docs/relay-contract.md "What the
 *   service does" 5), neither at the origin nor at the destination. Planning the same route again would deposit again
 *   for the same need, cycle after cycle.
 * - Origin transactions failing on chain: `policy.pauseRouteAfterOriginFailures` transfers in a row on the route
 *   ended `origin_failed` with a transaction that was mined and failed (reverted), each paying its fee, or with a
 *   Bitcoin deposit that missed its deadline and was ended by a mined cancel of ours (a deposit fee and a cancel
 *   fee). Whatever makes them fail (a program that refuses the deposit, a quote shape the chain rejects, a fee
 *   market the deposits keep falling under) is likely to fail the next one too, so the route stops paying fees
 *   every cycle. Failures proven never to have landed (a dropped or unsent transaction, a refused simulation)
 *   cost nothing and do not count.
 * - A wallet refused by Relay's address screening (src/relay/screening.ts): every route the wallet sends from or
 *   receives on is paused, whatever the asset and chains, because screening judges the address, not the route.
 *   Cleared like a route pause, by an operator: `ballast resume --wallet <name> --note …` (any stage), or
 *   `ballast resume --transfer <id> --note …` for a fill-time block (it resolves that failed transfer and the
 *   wallet pauses it made).
 */
import type { Plan, PlannedTransfer } from '../planner/types.ts';
import type { TransferRow } from '../store/transferRows.ts';
import { canonicalAddress, type WalletPauseRow, type WalletPauseStage } from '../store/walletPauses.ts';

/**
 * A paused route: asset, origin chain and destination chain, with the transfers that pause it and why:
 * `failure` (unresolved failed deposits) or `originFailures` (origin transactions that failed on chain in a row).
 */
export interface PausedRoute {
  asset: string;
  originChain: string;
  destinationChain: string;
  transferIds: number[];
  reason?: 'failure' | 'originFailures';
}

function byRoute(rows: readonly TransferRow[], reason: NonNullable<PausedRoute['reason']>): PausedRoute[] {
  const byKey = new Map<string, PausedRoute>();
  for (const f of rows) {
    const key = `${f.asset}\u0000${f.originChain}\u0000${f.destinationChain}`;
    const route = byKey.get(key) ?? {
      asset: f.asset,
      originChain: f.originChain,
      destinationChain: f.destinationChain,
      transferIds: [],
      reason,
    };
    route.transferIds.push(f.id);
    byKey.set(key, route);
  }
  return [...byKey.values()];
}

/** Groups unresolved failures by route (asset, origin chain, destination chain), in first-failure order. */
export function pausedRoutes(failures: readonly TransferRow[]): PausedRoute[] {
  return byRoute(failures, 'failure');
}

/**
 * Routes whose origin transactions failed on chain `threshold` times in a row.
 *
 * @param failures the unresolved on-chain origin failures since each route's last landed deposit
 *   (`listOriginFailureStreaks`, src/store/failures.ts), oldest first
 * @param threshold `policy.pauseRouteAfterOriginFailures` (≥ 1)
 * @returns the routes with at least `threshold` of them, with all their ids
 */
export function originFailurePauses(failures: readonly TransferRow[], threshold: number): PausedRoute[] {
  return byRoute(failures, 'originFailures').filter((r) => r.transferIds.length >= threshold);
}

function pausedFor(routes: readonly PausedRoute[], t: PlannedTransfer): PausedRoute | undefined {
  return routes.find((r) => r.asset === t.asset && r.originChain === t.from.chain && r.destinationChain === t.to.chain);
}

/**
 * A wallet paused by address screening: its configured name (the address itself when no configured wallet has
 * it), the canonical address, and the open pauses with their stages, codes and the fill-blocked transfers.
 */
export interface PausedWallet {
  wallet: string;
  address: string;
  stages: WalletPauseStage[];
  codes: string[];
  pauseIds: number[];
  transferIds: number[];
}

/**
 * Groups open screening pauses by address and names them after the configured wallet holding that address.
 *
 * @param pauses open pauses (`listOpenWalletPauses`, src/store/walletPauses.ts), oldest first
 * @param wallets the configured wallets (name and address)
 */
export function pausedWallets(pauses: readonly WalletPauseRow[], wallets: Iterable<{ name: string; address: string }>): PausedWallet[] {
  const names = new Map<string, string>();
  for (const w of wallets) names.set(canonicalAddress(w.address), w.name);
  const byAddress = new Map<string, PausedWallet>();
  for (const p of pauses) {
    const w = byAddress.get(p.address) ?? {
      wallet: names.get(p.address) ?? p.address,
      address: p.address,
      stages: [],
      codes: [],
      pauseIds: [],
      transferIds: [],
    };
    if (!w.stages.includes(p.stage)) w.stages.push(p.stage);
    if (!w.codes.includes(p.code)) w.codes.push(p.code);
    w.pauseIds.push(p.id);
    if (p.transferId !== null && !w.transferIds.includes(p.transferId)) w.transferIds.push(p.transferId);
    byAddress.set(p.address, w);
  }
  return [...byAddress.values()];
}

function walletPausedFor(wallets: readonly PausedWallet[], t: Pick<PlannedTransfer, 'from' | 'to'>): PausedWallet | undefined {
  const from = canonicalAddress(t.from.address);
  const to = canonicalAddress(t.to.address);
  return wallets.find((w) => w.address === from || w.address === to);
}

/**
 * Removes the planned transfers of paused routes, and of routes touching a wallet paused by address screening
 * (as sender or as recipient), and records a `route_paused` decision for each.
 *
 * @param wallets wallets paused by screening ({@link pausedWallets}); none by default
 * @returns a new plan; `plan` is not modified
 */
export function withoutPausedRoutes(plan: Plan, routes: readonly PausedRoute[], wallets: readonly PausedWallet[] = []): Plan {
  const transfers: PlannedTransfer[] = [];
  const decisions = [...plan.decisions];
  for (const t of plan.transfers) {
    const paused = pausedFor(routes, t);
    const walletPaused = paused ? undefined : walletPausedFor(wallets, t);
    if (!paused && !walletPaused) {
      // An alternative donor on a paused route, or a paused wallet, is no alternative.
      const alternatives = t.alternatives?.filter(
        (a) => !pausedFor(routes, { ...t, from: a.from }) && !walletPausedFor(wallets, { from: a.from, to: t.to }),
      );
      transfers.push(alternatives === undefined || alternatives.length === t.alternatives?.length ? t : { ...t, alternatives });
      continue;
    }
    const detail = paused ? pausedDetail(t, paused) : walletPausedDetail(t, walletPaused!); // one of the two is set
    decisions.push({ asset: t.asset, chain: t.to.chain, kind: 'route_paused', detail });
  }
  return { transfers, decisions, ...(plan.spare ? { spare: plan.spare } : {}) };
}

function walletPausedDetail(t: PlannedTransfer, w: PausedWallet): string {
  const route = `${t.asset} ${t.from.chain} → ${t.to.chain} is paused`;
  const fill = w.stages.includes('fill');
  const what = fill
    ? `a fill was blocked (${w.codes.join(', ')}; transfer(s) ${w.transferIds.join(', ')}): the deposit is in Relay compliance review`
    : `a quote was refused by screening (${w.codes.join(', ')})`;
  return (
    `${route}: wallet ${w.wallet} is paused by Relay address screening, ${what}; every route of the wallet waits. ` +
    `Contact Relay support, then run \`ballast resume --wallet ${w.wallet} --note <what was done>\``
  );
}

function pausedDetail(t: PlannedTransfer, paused: PausedRoute): string {
  const route = `${t.asset} ${t.from.chain} → ${t.to.chain} is paused`;
  if (paused.reason === 'originFailures') {
    const last = paused.transferIds[paused.transferIds.length - 1]!;
    return (
      `${route}: the origin transactions of transfers ${paused.transferIds.join(', ')} failed on chain, ${paused.transferIds.length} in a row ` +
      `(policy.pauseRouteAfterOriginFailures), each paying its fee; find out why (\`ballast history\`), then run \`ballast resume --transfer ${last}\``
    );
  }
  return (
    `${route}: transfer(s) ${paused.transferIds.join(', ')} ended in failure and ` +
    'their deposit is still in the depository; recover it, then run `ballast resume --transfer <id>`'
  );
}
