/**
 * What must hold after every cycle of a model schedule, and after it has settled, judged against the in-memory
 * chains and Relay service (the truth) and Ballast's store (what it believes):
 * - one deposit per order and per need: no order is paid twice, and per asset the deposits the treasury has on
 *   chain that were not refunded add up to at most what the need asked for;
 * - no transfer is `origin_failed` while a deposit for its order is on chain;
 * - at the end, every deposit of the treasury belongs to a transfer that knows it was deposited, and every
 *   transfer is final in agreement with the service (a `success` has its fill on chain, a `refund` its refund),
 *   or provably in flight (`deposited`: its deposit is on chain and the service has not settled it;
 *   `prepared`/`broadcast`: one of its transactions is still in the node's pool);
 * - no money is lost: the treasury holds its starting total less deposits not refunded plus fills received.
 */
import type { Hex } from 'viem';
import type { StoreDb } from '../../packages/ballast/src/store/db.ts';
import { listRecentTransfers, type TransferRow } from '../../packages/ballast/src/store/transfers.ts';
import { lowerHex } from '../../packages/ballast/src/sim/chain.ts';
import type { OrderRecord } from './inMemoryRelay.ts';
import type { AssetName, ChainName } from './schedule.ts';
import { ADDR, assetOfToken, initialBalances, type World } from './world.ts';

/** A deposit of the treasury on a canonical chain. Amount in base units. */
interface TreasuryDeposit {
  chain: ChainName;
  txHash: Hex;
  orderId: string;
  asset: AssetName | undefined;
  amount: bigint;
  refunded: boolean;
}

const CHAINS: readonly ChainName[] = ['alpha', 'beta'];
const lc = (s: string | null | undefined) => (s ?? '').toLowerCase();

function settledPayout(world: World, r: OrderRecord | undefined, kind: 'fill' | 'refund'): boolean {
  const a = r?.action;
  return !!a && a.kind === kind && world.chainById(a.chainId).minedTx(a.txHash) !== undefined;
}

function treasuryDeposits(world: World): TreasuryDeposit[] {
  return CHAINS.flatMap((chain) =>
    world.chains[chain]
      .deposits()
      .filter((d) => d.deposit.from === ADDR.treasury)
      .map((d) => ({
        chain,
        txHash: d.txHash,
        orderId: d.deposit.id,
        asset: assetOfToken(d.deposit.token),
        amount: d.deposit.amount,
        refunded: settledPayout(world, world.relay.find(d.deposit.id), 'refund'),
      })),
  );
}

function transfers(db: StoreDb): Promise<TransferRow[]> {
  return listRecentTransfers(db, 100_000);
}

/**
 * The checks that hold at every moment between cycles.
 *
 * @returns a Promise of one line per violation (empty when all hold)
 */
export async function checkAlways(world: World, db: StoreDb): Promise<string[]> {
  const out: string[] = [];
  const deposits = treasuryDeposits(world);
  const byOrder = new Map<string, TreasuryDeposit[]>();
  for (const d of deposits) byOrder.set(d.orderId, [...(byOrder.get(d.orderId) ?? []), d]);
  for (const [orderId, list] of byOrder) {
    if (list.length > 1) out.push(`order ${orderId} was paid ${list.length} times on chain: ${list.map((d) => d.txHash).join(', ')}`);
  }
  for (const asset of ['USDC', 'USDT'] as const) {
    const need = world.schedule.needs.find((n) => n.asset === asset)?.amount ?? 0n;
    const live = deposits.filter((d) => d.asset === asset && !d.refunded);
    const total = live.reduce((s, d) => s + d.amount, 0n);
    if (live.length > 1 || total > need) {
      out.push(
        `${asset}: ${live.length} deposit(s) not refunded totalling ${total} for a need of ${need}: ${live.map((d) => `${d.chain} ${d.txHash}`).join(', ')}`,
      );
    }
  }
  for (const row of await transfers(db)) {
    if (row.status !== 'origin_failed' || !row.orderId) continue;
    const hit = deposits.find((d) => d.orderId === lc(row.orderId));
    if (hit) out.push(`transfer #${row.id} is origin_failed but deposit ${hit.txHash} for its order ${row.orderId} is on ${hit.chain}`);
  }
  return out;
}

/**
 * The checks that hold once the schedule has settled (faults off, deadlines passed).
 *
 * @returns a Promise of one line per violation (empty when all hold)
 */
export async function checkSettled(world: World, db: StoreDb): Promise<string[]> {
  const out = await checkAlways(world, db);
  const rows = await transfers(db);
  const deposits = treasuryDeposits(world);
  for (const d of deposits) {
    const row = rows.find((r) => lc(r.orderId) === d.orderId);
    if (!row || !['deposited', 'success', 'failure', 'refund'].includes(row.status)) {
      out.push(
        `deposit ${d.txHash} on ${d.chain} (order ${d.orderId}) is on chain but its transfer is ${row ? `#${row.id} ${row.status}` : 'missing'}`,
      );
    }
  }
  for (const row of rows) {
    const why = unsettledReason(world, row, deposits);
    if (why) out.push(`transfer #${row.id} ${row.status}: ${why}`);
  }
  out.push(...moneyLost(world, deposits));
  return out;
}

/** Why a transfer's status disagrees with the world, or null when it agrees. */
function unsettledReason(world: World, row: TransferRow, deposits: TreasuryDeposit[]): string | null {
  const record = row.orderId ? world.relay.find(row.orderId) : undefined;
  const origin = world.chainById(row.originChainId);
  const pending = row.txs.filter((t) => origin.mempool.has(lowerHex(t.txHash)));
  const deposit = deposits.find((d) => d.orderId === lc(row.orderId));
  switch (row.status) {
    case 'success': {
      const a = record?.action;
      if (!settledPayout(world, record, 'fill') || a?.kind !== 'fill') return 'the service never paid a fill for it';
      return row.outTxHashes.some((h) => lc(h) === lc(a.txHash)) ? null : `its fill ${a.txHash} is not among its recorded fills`;
    }
    case 'refund':
      return settledPayout(world, record, 'refund') ? null : 'the service never refunded it';
    case 'failure':
      return record?.action?.kind === 'failure' ? null : 'the service never reported a failure for it';
    case 'deposited':
      if (!deposit) return 'no deposit for its order is on chain';
      if (settledPayout(world, record, 'fill') || settledPayout(world, record, 'refund') || record?.action?.kind === 'failure') {
        return 'the service settled it but the transfer is not final';
      }
      return null;
    case 'prepared':
    case 'broadcast':
      return pending.length > 0 ? null : 'none of its transactions is pending and it is not final';
    case 'origin_failed': {
      const depositCall = pending.find((t) => lc((t.request as { to?: string }).to) === ADDR.depository); // signedTxRecord stores `to`
      return depositCall ? `its deposit transaction ${depositCall.txHash} is still pending and may land` : null;
    }
    default:
      return null;
  }
}

/** The treasury's total per asset against its start, deposits not refunded and fills received. */
function moneyLost(world: World, deposits: TreasuryDeposit[]): string[] {
  const out: string[] = [];
  const start = initialBalances(world.schedule);
  for (const asset of ['USDC', 'USDT'] as const) {
    const held = CHAINS.reduce((s, c) => s + world.chains[c].balanceOf(ADDR[asset], ADDR.treasury), 0n);
    const paidOut = deposits.filter((d) => d.asset === asset && !d.refunded).reduce((s, d) => s + d.amount, 0n);
    const filled = world.relay.orders
      .filter(
        (r) =>
          assetOfToken(r.order.currencyOut.address) === asset && lc(r.order.recipient) === ADDR.treasury && settledPayout(world, r, 'fill'),
      )
      .reduce((s, r) => s + (r.action?.kind === 'fill' ? r.action.amount : 0n), 0n);
    const expected = start[asset].alpha + start[asset].beta - paidOut + filled;
    if (held !== expected) out.push(`${asset}: the treasury holds ${held}, expected ${expected} (start − deposits not refunded + fills)`);
  }
  return out;
}
