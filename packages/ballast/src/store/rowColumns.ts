/**
 * Row types of store reads, tied to the migrated schema. A store module reads rows with `db.all`/`db.get` and
 * casts them to a row type (`TransferDbRow`, `LedgerDbRow`, …): the engine does not check the cast, so each row
 * type comes with a {@link RowShape} next to it that names every field's column, storage kind and nullability.
 *
 * - At compile time, {@link rowShape}'s `columns` must list exactly the fields of the row type (a missing or an
 *   extra field is an error), and each field's kind must fit its TypeScript type (`number` → `integer`, `string`
 *   → `text`, `Date` → `timestamptz`, `T | null` → the kind with `?`): the shape cannot drift from the type.
 * - At test time, test/unit/store/rowTypes.test.ts migrates a fresh SQLite file and a fresh PostgreSQL
 *   database (src/store/migrations.ts, src/store/pg/migrations.ts) and checks every shape against the columns
 *   each engine reports (`PRAGMA table_info`, `information_schema.columns`): a migration that adds, renames or
 *   drops a column, or changes its type or nullability, fails that test until the row type follows.
 *
 * Storage kinds (the same on both engines, see the migrations' file comments):
 * - `integer`: SQLite INTEGER, PostgreSQL INTEGER or BIGINT; read as a JS number on both (ids, `*_ms` times,
 *   chain ids, flags).
 * - `text`: TEXT on both. Base-unit amounts are TEXT digit strings (parsed with `BigInt` by the store modules),
 *   USD values TEXT decimal strings, JSON columns TEXT.
 * - `integer_text`: an INTEGER/BIGINT column selected as text (`col::text`), read as a string so a 64-bit value
 *   stays exact (the lease epoch).
 * - `timestamptz`: PostgreSQL `timestamp with time zone`, read as a `Date` (PostgreSQL-only tables).
 */
import type { StoreDialect } from './db.ts';

/** How a column is stored and read (see the file comment). */
export type ColumnKind = 'integer' | 'text' | 'integer_text' | 'timestamptz';

/** The kinds a non-null field of TypeScript type `T` may be read from. */
type KindOf<T> = [T] extends [number]
  ? 'integer'
  : [T] extends [Date]
    ? 'timestamptz'
    : [T] extends [string]
      ? 'text' | 'integer_text'
      : never;

/**
 * Column description of a field of type `T`: its {@link ColumnKind}, followed by `?` when the field may be null
 * (e.g. `number | null` → `'integer?'`, `string` → `'text'`).
 */
export type ColumnSpec<T> = null extends T ? `${KindOf<NonNullable<T>>}?` : KindOf<T>;

/** Every field of `Row` with its {@link ColumnSpec}; a missing field, an extra one or a kind that does not fit is a compile error. */
export type RowColumns<Row> = { readonly [K in keyof Row]-?: ColumnSpec<Row[K]> };

/** A column description as stored at run time: a {@link ColumnKind}, with `?` when nullable. */
export type ColumnSpecText = ColumnKind | `${ColumnKind}?`;

/** The columns a row type is read from, checked against the migrated schema by test/unit/store/rowTypes.test.ts. */
export interface RowShape {
  /** Name of the row type, for messages. */
  readonly name: string;
  /**
   * The table the query reads `FROM` (never outer-joined): a field read from it is nullable exactly when the
   * column is.
   */
  readonly table: string;
  /** True when the row holds every column of `table` (`SELECT *` or `t.*`), false for a select list. */
  readonly allColumns: boolean;
  /** Field → column description; the field is the column's name unless {@link from} says otherwise. */
  readonly columns: Readonly<Record<string, ColumnSpecText>>;
  /**
   * Fields read from another table of a join, or under another name (`AS`): field → `table.column`. Such a
   * field must be nullable when its column is, and may be nullable when it is not (an outer join).
   */
  readonly from: Readonly<Record<string, string>>;
  /** The engines whose schema has the table. */
  readonly engines: readonly StoreDialect[];
}

/** Input of {@link rowShape}; `Row` is the row type the query result is cast to. */
export interface RowShapeSpec<Row> {
  name: string;
  table: string;
  allColumns: boolean;
  columns: RowColumns<Row>;
  from?: Partial<Record<keyof Row & string, string>>;
  /** Default: both engines. */
  engines?: readonly StoreDialect[];
}

/**
 * Declares the columns of row type `Row` (give it explicitly: `rowShape<LimitHitDbRow>({ … })`). Pure: it only
 * copies its input; the compile-time checks are in the parameter's type, the schema checks in the test.
 *
 * @returns the shape, for test/unit/store/rowTypes.test.ts
 */
export function rowShape<Row>(spec: RowShapeSpec<Row>): RowShape {
  return {
    name: spec.name,
    table: spec.table,
    allColumns: spec.allColumns,
    columns: spec.columns as Readonly<Record<string, ColumnSpecText>>, // RowColumns<Row> holds only ColumnSpec values
    from: (spec.from ?? {}) as Readonly<Record<string, string>>, // a partial record of strings
    engines: spec.engines ?? ['sqlite', 'postgres'],
  };
}
