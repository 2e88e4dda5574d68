/**
 * Every row type a store read is cast to, against the schema each engine really has after migrating
 * (src/store/rowColumns.ts): a fresh SQLite file (`PRAGMA table_info`) and a fresh PostgreSQL database
 * (`information_schema.columns`). A row type that holds every column of its table (`SELECT *`) must list exactly
 * the table's columns; each field's declared kind (integer / text; base-unit amounts are TEXT on both engines)
 * must be the column's, and its nullability the column's (a field of an outer-joined table may be nullable
 * where the column is not). The checker itself is shown to report a renamed, added, retyped or re-nulled column.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { StoreDb, StoreDialect } from '../../../packages/ballast/src/store/db.ts';
import { APPROVAL_REQUEST_ROW, APPROVAL_SIGNOFF_ROW } from '../../../packages/ballast/src/store/approvalRequests.ts';
import { CYCLE_ROW } from '../../../packages/ballast/src/store/cycles.ts';
import { FAILURE_CHECK_ROW } from '../../../packages/ballast/src/store/failures.ts';
import { FLOW_STATE_ROW, OWN_TRANSFER_ROW } from '../../../packages/ballast/src/store/flowStates.ts';
import { LEDGER_ROW } from '../../../packages/ballast/src/store/ledger.ts';
import { LEDGER_DECIMALS_ROW } from '../../../packages/ballast/src/store/ledgerUnits.ts';
import { LIMIT_HIT_ROW } from '../../../packages/ballast/src/store/limitHits.ts';
import { NEED_ROW } from '../../../packages/ballast/src/store/needs.ts';
import { NOTIFICATION_ROW } from '../../../packages/ballast/src/store/notifications.ts';
import { RUN_LOCK_ROW } from '../../../packages/ballast/src/store/lock.ts';
import { LEASE_ROW } from '../../../packages/ballast/src/store/pg/lease.ts';
import { QUOTE_ROW } from '../../../packages/ballast/src/store/quotes.ts';
import { ROUTE_CANDIDATE_ROW } from '../../../packages/ballast/src/store/routeCandidates.ts';
import { rowShape, type RowShape } from '../../../packages/ballast/src/store/rowColumns.ts';
import { SIGNED_TRANSFER_ROW } from '../../../packages/ballast/src/store/spendingHistory.ts';
import { TRANSFER_REQUEST_ROW } from '../../../packages/ballast/src/store/transferRequests.ts';
import { TRANSFER_EVENT_ROW, TRANSFER_ROW, TRANSFER_TX_ROW } from '../../../packages/ballast/src/store/transferRows.ts';
import { WALLET_PAUSE_ROW } from '../../../packages/ballast/src/store/walletPauses.ts';
import { WITHDRAWAL_ROW } from '../../../packages/ballast/src/store/withdrawalRows.ts';
import { describeEachEngine } from '../../helpers/storeEngines.ts';

/** Every row shape declared in src/store. */
const SHAPES: readonly RowShape[] = [
  CYCLE_ROW,
  QUOTE_ROW,
  TRANSFER_ROW,
  TRANSFER_TX_ROW,
  TRANSFER_EVENT_ROW,
  LIMIT_HIT_ROW,
  WITHDRAWAL_ROW,
  LEDGER_ROW,
  ROUTE_CANDIDATE_ROW,
  TRANSFER_REQUEST_ROW,
  WALLET_PAUSE_ROW,
  SIGNED_TRANSFER_ROW,
  FAILURE_CHECK_ROW,
  LEDGER_DECIMALS_ROW,
  RUN_LOCK_ROW,
  LEASE_ROW,
  FLOW_STATE_ROW,
  OWN_TRANSFER_ROW,
  NOTIFICATION_ROW,
  APPROVAL_REQUEST_ROW,
  APPROVAL_SIGNOFF_ROW,
  NEED_ROW,
];

/** One column as an engine reports it: the kind it maps to (or `<engine>:<type>` when none does) and nullability. */
interface SchemaColumn {
  kind: string;
  nullable: boolean;
}

/** table → column → description. */
type Schema = Map<string, Map<string, SchemaColumn>>;

const SQLITE_KINDS: Record<string, string> = { INTEGER: 'integer', TEXT: 'text' };
const PG_KINDS: Record<string, string> = {
  bigint: 'integer',
  integer: 'integer',
  text: 'text',
  'timestamp with time zone': 'timestamptz',
};

/** Every column of every table of the store, as its engine reports it. */
async function readSchema(db: StoreDb): Promise<Schema> {
  const rows =
    db.dialect === 'sqlite'
      ? (
          await db.all<{ table_name: string; column_name: string; type: string; nn: number; pk: number }>(
            `SELECT m.name AS table_name, p.name AS column_name, p.type AS type, p."notnull" AS nn, p.pk AS pk
               FROM sqlite_master m, pragma_table_info(m.name) p
              WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'`,
          )
        ).map((r) => ({
          table: r.table_name,
          column: r.column_name,
          kind: SQLITE_KINDS[r.type] ?? `sqlite:${r.type}`,
          // An INTEGER PRIMARY KEY is the rowid: never NULL, though table_info reports notnull = 0.
          nullable: r.nn === 0 && !(r.pk > 0 && r.type === 'INTEGER'),
        }))
      : (
          await db.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
            `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
              WHERE table_schema = current_schema()`,
          )
        ).map((r) => ({
          table: r.table_name,
          column: r.column_name,
          kind: PG_KINDS[r.data_type] ?? `postgres:${r.data_type}`,
          nullable: r.is_nullable === 'YES',
        }));
  const schema: Schema = new Map();
  for (const r of rows) {
    const table = schema.get(r.table) ?? new Map<string, SchemaColumn>();
    table.set(r.column, { kind: r.kind, nullable: r.nullable });
    schema.set(r.table, table);
  }
  return schema;
}

/** What does not match between `shape` and `schema`, one line each (empty when they match). */
function mismatches(shape: RowShape, schema: Schema): string[] {
  const main = schema.get(shape.table);
  if (!main) return [`${shape.name}: there is no table ${shape.table}`];
  const out: string[] = [];
  for (const [field, spec] of Object.entries(shape.columns)) {
    const nullable = spec.endsWith('?');
    const kind = nullable ? spec.slice(0, -1) : spec;
    const source = shape.from[field];
    const [table = '', column = ''] = source === undefined ? [shape.table, field] : source.split('.');
    const col = schema.get(table)?.get(column);
    if (!col) {
      out.push(`${shape.name}.${field}: there is no column ${table}.${column}`);
      continue;
    }
    const stored = kind === 'integer_text' ? 'integer' : kind; // selected as `col::text`
    if (col.kind !== stored) out.push(`${shape.name}.${field}: declared ${kind}, but ${table}.${column} is ${col.kind}`);
    if (col.nullable && !nullable) out.push(`${shape.name}.${field}: ${table}.${column} may be NULL, but the field is not nullable`);
    if (source === undefined && !col.nullable && nullable) {
      out.push(`${shape.name}.${field}: ${table}.${column} is NOT NULL, but the field is nullable`);
    }
  }
  if (shape.allColumns) {
    const fromMain = new Set(Object.keys(shape.columns).filter((f) => shape.from[f] === undefined));
    for (const column of main.keys()) {
      if (!fromMain.has(column)) out.push(`${shape.name}: column ${shape.table}.${column} is missing from the row type`);
    }
  }
  return out.sort();
}

/** `schema` with `table.column` replaced (or added) as described, or removed when `col` is undefined. */
function withColumn(schema: Schema, table: string, column: string, col: SchemaColumn | undefined): Schema {
  const copy: Schema = new Map([...schema].map(([t, cols]) => [t, new Map(cols)]));
  const cols = copy.get(table);
  if (!cols) throw new Error(`no table ${table}`);
  if (col) cols.set(column, col);
  else cols.delete(column);
  return copy;
}

describe('row shapes', () => {
  it('have unique names, known kinds, and join sources naming one of their fields', () => {
    expect(new Set(SHAPES.map((s) => s.name)).size).toBe(SHAPES.length);
    for (const shape of SHAPES) {
      for (const spec of Object.values(shape.columns)) expect(spec).toMatch(/^(integer|text|integer_text|timestamptz)\??$/);
      for (const [field, source] of Object.entries(shape.from)) {
        expect(shape.columns, `${shape.name}.${field}`).toHaveProperty(field);
        expect(source).toMatch(/^[a-z_]+\.[a-z_]+$/);
      }
    }
  });

  it('rowShape copies the declaration, both engines by default', () => {
    interface Row {
      id: number;
      note: string | null;
    }
    const shape = rowShape<Row>({ name: 'Row', table: 't', allColumns: true, columns: { id: 'integer', note: 'text?' } });
    expect(shape).toEqual({
      name: 'Row',
      table: 't',
      allColumns: true,
      columns: { id: 'integer', note: 'text?' },
      from: {},
      engines: ['sqlite', 'postgres'],
    });
    // The declaration must fit the row type exactly (checked by `tsc --noEmit`):
    // @ts-expect-error a field is missing
    rowShape<Row>({ name: 'Row', table: 't', allColumns: true, columns: { id: 'integer' } });
    // @ts-expect-error a field the row type does not have
    rowShape<Row>({ name: 'Row', table: 't', allColumns: true, columns: { id: 'integer', note: 'text?', extra: 'text' } });
    // @ts-expect-error a number field declared as text
    rowShape<Row>({ name: 'Row', table: 't', allColumns: true, columns: { id: 'text', note: 'text?' } });
    // @ts-expect-error a nullable field declared NOT NULL
    rowShape<Row>({ name: 'Row', table: 't', allColumns: true, columns: { id: 'integer', note: 'text' } });
  });
});

describeEachEngine('row types against the migrated schema', (engine) => {
  let schema: Schema;
  beforeEach(async () => {
    schema = await readSchema(await engine.open());
  });

  const dialect: StoreDialect = engine.name;
  for (const shape of SHAPES) {
    if (shape.engines.includes(dialect)) {
      it(`${shape.name} matches ${shape.table}`, () => {
        expect(mismatches(shape, schema)).toEqual([]);
      });
    } else {
      it(`${shape.name}: ${shape.table} does not exist on ${dialect}`, () => {
        expect(schema.has(shape.table)).toBe(false);
      });
    }
  }

  it('reports a renamed column, on either side', () => {
    const renamed = { ...LIMIT_HIT_ROW.columns, decided_ms: 'integer' as const };
    delete (renamed as Record<string, unknown>).decided_at_ms;
    expect(mismatches({ ...LIMIT_HIT_ROW, columns: renamed }, schema)).toEqual([
      'LimitHitDbRow.decided_ms: there is no column limit_hits.decided_ms',
      'LimitHitDbRow: column limit_hits.decided_at_ms is missing from the row type',
    ]);
    const migrated = withColumn(withColumn(schema, 'limit_hits', 'decided_at_ms', undefined), 'limit_hits', 'decided_ms', {
      kind: 'integer',
      nullable: false,
    });
    expect(mismatches(LIMIT_HIT_ROW, migrated)).toEqual([
      'LimitHitDbRow.decided_at_ms: there is no column limit_hits.decided_at_ms',
      'LimitHitDbRow: column limit_hits.decided_ms is missing from the row type',
    ]);
  });

  it('reports a column a migration added to a table read with SELECT *, but not to one read by a select list', () => {
    const added = { kind: 'text', nullable: true };
    expect(mismatches(TRANSFER_ROW, withColumn(schema, 'transfers', 'new_column', added))).toEqual([
      'TransferDbRow: column transfers.new_column is missing from the row type',
    ]);
    expect(mismatches(SIGNED_TRANSFER_ROW, withColumn(schema, 'transfers', 'new_column', added))).toEqual([]);
  });

  it('reports a column whose type or nullability changed', () => {
    expect(mismatches(LEDGER_ROW, withColumn(schema, 'transfer_ledger', 'amount_in', { kind: 'integer', nullable: false }))).toEqual([
      'LedgerDbRow.amount_in: declared text, but transfer_ledger.amount_in is integer',
    ]);
    expect(mismatches(LEDGER_ROW, withColumn(schema, 'transfer_ledger', 'amount_in', { kind: 'text', nullable: true }))).toEqual([
      'LedgerDbRow.amount_in: transfer_ledger.amount_in may be NULL, but the field is not nullable',
    ]);
    expect(mismatches(LEDGER_ROW, withColumn(schema, 'transfer_ledger', 'gas_usd', { kind: 'text', nullable: false }))).toEqual([
      'LedgerDbRow.gas_usd: transfer_ledger.gas_usd is NOT NULL, but the field is nullable',
    ]);
  });

  it('checks the joined columns of a join row type against their own tables', () => {
    // verdicts.ok is NOT NULL; the field is nullable because the join is outer: accepted as it is.
    expect(schema.get('verdicts')?.get('ok')?.nullable).toBe(false);
    expect(mismatches(QUOTE_ROW, withColumn(schema, 'verdicts', 'ok', { kind: 'text', nullable: false }))).toEqual([
      'QuoteDbRow.ok: declared integer, but verdicts.ok is text',
    ]);
    expect(mismatches(SIGNED_TRANSFER_ROW, withColumn(schema, 'transfer_ledger', 'gas_usd', undefined))).toEqual([
      'SignedTransferDbRow.paid_gas_usd: there is no column transfer_ledger.gas_usd',
    ]);
    const notNull = { ...SIGNED_TRANSFER_ROW, columns: { ...SIGNED_TRANSFER_ROW.columns, breakdown_json: 'text' as const } };
    expect(mismatches(notNull, schema)).toEqual([
      'SignedTransferDbRow.breakdown_json: fee_decisions.breakdown_json may be NULL, but the field is not nullable',
    ]);
  });
});
