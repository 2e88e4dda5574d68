/**
 * Wallets paused by Relay's address screening (migration 10, `wallet_pauses`; src/relay/screening.ts): a quote
 * refused with `BLOCKED_WALLET_ADDRESS` / `SANCTIONED_WALLET_ADDRESS` (stage `quote`), or a fill blocked with
 * `failReason` `BLOCKED_WALLET` (stage `fill`, with the transfer whose deposit is held for compliance review).
 * An open pause (no resolution) keeps every route of its address out of the plan (src/cycle/pausedRoutes.ts)
 * until `ballast resume --wallet <name>` (or, for a fill-time block, `ballast resume --transfer <id>`) resolves it.
 *
 * Addresses are stored in a canonical form ({@link canonicalAddress}): EVM hex lower-cased, others as given.
 */
import type { StoreDb } from './db.ts';
import { rowShape } from './rowColumns.ts';
import { checkMs } from './values.ts';

/** Where screening refused: at quote time, or before the fill (after our deposit). */
export type WalletPauseStage = 'quote' | 'fill';

/** One pause to record. */
export interface WalletPauseRecord {
  /** The wallet address (origin `user` or destination `recipient` of the transfer). */
  address: string;
  stage: WalletPauseStage;
  /** The API's code: the quote `errorCode` or the request `failReason`. */
  code: string;
  /** What happened, for the operator (no secrets). */
  detail: string;
  /** Stage `fill`: the transfer whose fill was blocked. */
  transferId?: number;
  nowMs: number;
}

/** A stored pause. */
export interface WalletPauseRow {
  id: number;
  address: string;
  stage: WalletPauseStage;
  code: string;
  detail: string;
  transferId: number | null;
  createdAtMs: number;
}

/** Canonical form of an address for comparison: EVM `0x` hex lower-cased (EIP-55 case is a checksum only), others unchanged. */
export function canonicalAddress(address: string): string {
  return /^0x[0-9a-fA-F]{40}$/.test(address) ? address.toLowerCase() : address;
}

/**
 * Records a pause. A pause naming a transfer is recorded once while open (a status applied twice, by a webhook
 * and by polling, records one).
 *
 * @returns the id of the new or existing open pause
 * @throws StoreValueError on a bad time; the engine's constraint error when the transfer is unknown
 */
export async function recordWalletPause(db: StoreDb, p: WalletPauseRecord): Promise<number> {
  checkMs(p.nowMs, 'nowMs');
  const address = canonicalAddress(p.address);
  const transferId = p.transferId ?? null;
  return db.transaction(async () => {
    if (transferId !== null) {
      const open = await db.get<{ id: number }>(
        `SELECT id FROM wallet_pauses WHERE address = ? AND stage = ? AND transfer_id = ? AND resolved_at_ms IS NULL${db.forUpdate}`,
        address,
        p.stage,
        transferId,
      );
      if (open) return Number(open.id);
    }
    const row = await db.get<{ id: number }>(
      'INSERT INTO wallet_pauses (address, stage, code, detail, transfer_id, created_at_ms) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      address,
      p.stage,
      p.code,
      p.detail,
      transferId,
      p.nowMs,
    );
    return Number((row as { id: number }).id); // RETURNING always yields the inserted row
  });
}

/**
 * An open `wallet_pauses` row as read by {@link listOpenWalletPauses} (every column but the resolution's): times
 * integer ms. Query results are typed as it unchecked; {@link WALLET_PAUSE_ROW} ties it to the migrated schema
 * of both engines (test/unit/store/rowTypes.test.ts).
 */
interface WalletPauseDbRow {
  id: number;
  address: string;
  stage: WalletPauseStage;
  code: string;
  detail: string;
  transfer_id: number | null;
  created_at_ms: number;
}

/** Columns of {@link WalletPauseDbRow}: the select list of {@link listOpenWalletPauses}. */
export const WALLET_PAUSE_ROW = rowShape<WalletPauseDbRow>({
  name: 'WalletPauseDbRow',
  table: 'wallet_pauses',
  allColumns: false,
  columns: {
    id: 'integer',
    address: 'text',
    stage: 'text',
    code: 'text',
    detail: 'text',
    transfer_id: 'integer?',
    created_at_ms: 'integer',
  },
});

/** Open pauses (no resolution), oldest first. */
export async function listOpenWalletPauses(db: StoreDb): Promise<WalletPauseRow[]> {
  const rows = await db.all<WalletPauseDbRow>(
    'SELECT id, address, stage, code, detail, transfer_id, created_at_ms FROM wallet_pauses WHERE resolved_at_ms IS NULL ORDER BY id',
  );
  return rows.map((r) => ({
    id: Number(r.id),
    address: r.address,
    stage: r.stage,
    code: r.code,
    detail: r.detail,
    transferId: r.transfer_id === null ? null : Number(r.transfer_id),
    createdAtMs: Number(r.created_at_ms),
  }));
}

/**
 * Resolves every open pause of `address` (an operator's `ballast resume --wallet`).
 *
 * @param note what the operator did (e.g. "cleared by Relay support, ticket 1234"), kept with each pause
 * @returns the ids resolved, ascending (empty when the wallet had no open pause)
 */
export async function resolveWalletPauses(db: StoreDb, address: string, note: string, nowMs: number): Promise<number[]> {
  checkMs(nowMs, 'nowMs');
  const rows = await db.all<{ id: number }>(
    'UPDATE wallet_pauses SET resolved_at_ms = ?, resolution = ? WHERE address = ? AND resolved_at_ms IS NULL RETURNING id',
    nowMs,
    note,
    canonicalAddress(address),
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}

/**
 * Resolves the open pauses a fill-time block of transfer `transferId` made (with `ballast resume --transfer`).
 *
 * @returns the ids resolved, ascending
 */
export async function resolveTransferWalletPauses(db: StoreDb, transferId: number, note: string, nowMs: number): Promise<number[]> {
  checkMs(nowMs, 'nowMs');
  const rows = await db.all<{ id: number }>(
    'UPDATE wallet_pauses SET resolved_at_ms = ?, resolution = ? WHERE transfer_id = ? AND resolved_at_ms IS NULL RETURNING id',
    nowMs,
    note,
    transferId,
  );
  return rows.map((r) => Number(r.id)).sort((a, b) => a - b);
}
