/**
 * `ballast export --check`: proves that the exported rows add up, per wallet and asset, to the change the ledger
 * records over the period (received − sent − fees = change), to the base unit. Pure; no I/O.
 *
 * The two sides are computed apart: the rows side reads each row's volume back from the whole-unit text the
 * formats write (viem `parseUnits`) and sums incoming, outgoing and fee rows; the ledger side sums the transfers'
 * movements as recorded (src/accounting/transferMovements.ts: amount paid, amounts that came back, network fees),
 * with none of the splitting, pairing or unit conversion the rows went through.
 */
import { formatUnits, parseUnits } from 'viem';
import type { AccountingRow, ExportWindow } from './exportRows.ts';
import type { Movement, TransferMovements, WalletRef } from './transferMovements.ts';

/** One wallet and asset: the rows' totals (base units), their net change and the ledger's. */
export interface ReconciliationLine {
  wallet: WalletRef;
  asset: string;
  decimals: number;
  received: bigint;
  sent: bigint;
  fees: bigint;
  /** received − sent − fees, from the rows. */
  rowsChange: bigint;
  /** The same change summed from the ledger's movements. */
  ledgerChange: bigint;
  ok: boolean;
}

/** A transfer with rows that have no USD price at quote time (no stored quote, or it gave no `amountUsd`). */
export interface UnpricedTransfer {
  transferId: number;
  requestId: string | null;
  /** `<kind>[/<fee kind>] <volume> <asset>` of each unpriced row. */
  rows: string[];
}

/** What the store does not record about a transfer (src/accounting/transferMovements.ts `gaps`). */
export interface TransferGap {
  transferId: number;
  requestId: string | null;
  gap: string;
}

/** Outcome of {@link reconcile}. */
export interface Reconciliation {
  /** One line per wallet and asset, ordered by chain, address, asset. */
  lines: ReconciliationLine[];
  /** Every line adds up. */
  ok: boolean;
  unpriced: UnpricedTransfer[];
  gaps: TransferGap[];
}

/**
 * Reconciles the rows of a period with the ledger's movements of the same transfers.
 *
 * @param transfers the transfers the rows were built from (every one whose rows may fall in the window)
 * @param rows the exported rows (already limited to `window`)
 * @param window the period; a ledger movement counts when `sinceMs ≤ atMs < untilMs`, as a row does
 */
export function reconcile(transfers: readonly TransferMovements[], rows: readonly AccountingRow[], window: ExportWindow): Reconciliation {
  const lines = new Map<string, ReconciliationLine>();
  const line = (wallet: WalletRef, asset: string, decimals: number): ReconciliationLine => {
    const key = keyOf(wallet, asset);
    let l = lines.get(key);
    if (!l) {
      l = { wallet, asset, decimals, received: 0n, sent: 0n, fees: 0n, rowsChange: 0n, ledgerChange: 0n, ok: true };
      lines.set(key, l);
    }
    return l;
  };
  for (const r of rows) {
    const l = line(r.wallet, r.asset, r.decimals);
    const volume = parseUnits(wholeUnits(r), r.decimals); // what the file says, read back
    if (r.direction === 'in') l.received += volume;
    else if (r.kind === 'fee') l.fees += volume;
    else l.sent += volume;
  }
  const inWindow = (mv: Movement) => mv.atMs >= window.sinceMs && mv.atMs < window.untilMs;
  for (const t of transfers) {
    const signed: [Movement, bigint][] = [
      ...(t.payment ? [[t.payment, -1n] as [Movement, bigint]] : []),
      ...t.returns.map((r): [Movement, bigint] => [r, 1n]),
      ...[t.networkFee, t.withdrawalFee].flatMap((fee) => (fee ? [[fee, -1n] as [Movement, bigint]] : [])),
    ];
    for (const [mv, sign] of signed) {
      if (inWindow(mv)) line(mv.wallet, mv.asset.symbol, mv.asset.decimals).ledgerChange += sign * mv.amount;
    }
  }
  const sorted = [...lines.values()].sort(
    (a, b) => cmp(a.wallet.chain, b.wallet.chain) || cmp(a.wallet.address, b.wallet.address) || cmp(a.asset, b.asset),
  );
  for (const l of sorted) {
    l.rowsChange = l.received - l.sent - l.fees;
    l.ok = l.rowsChange === l.ledgerChange;
  }
  const rowsOf = new Set(rows.map((r) => r.transferId));
  return {
    lines: sorted,
    ok: sorted.every((l) => l.ok),
    unpriced: unpricedTransfers(rows),
    gaps: transfers
      .filter((t) => rowsOf.has(t.transferId))
      .flatMap((t) => t.gaps.map((gap) => ({ transferId: t.transferId, requestId: t.requestId, gap }))),
  };
}

/** A row's volume as the formats write it: whole units, decimal text from base units (viem `formatUnits`). */
export function wholeUnits(row: Pick<AccountingRow, 'amount' | 'decimals'>): string {
  return formatUnits(row.amount, row.decimals);
}

function unpricedTransfers(rows: readonly AccountingRow[]): UnpricedTransfer[] {
  const byTransfer = new Map<number, UnpricedTransfer>();
  for (const r of rows) {
    if (r.usdValue !== null) continue;
    const u = byTransfer.get(r.transferId) ?? { transferId: r.transferId, requestId: r.requestId, rows: [] };
    u.rows.push(`${r.kind}${r.feeKind ? `/${r.feeKind}` : ''} ${wholeUnits(r)} ${r.asset}`);
    byTransfer.set(r.transferId, u);
  }
  return [...byTransfer.values()].sort((a, b) => a.transferId - b.transferId);
}

/** EVM addresses compare case-insensitively; Solana and Bitcoin addresses as written. */
function keyOf(wallet: WalletRef, asset: string): string {
  const address = wallet.address.startsWith('0x') ? wallet.address.toLowerCase() : wallet.address;
  return JSON.stringify([wallet.chain, address, asset]);
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
