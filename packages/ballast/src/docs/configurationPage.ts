/**
 * Renders docs/configuration.md from the configuration's JSON Schema (src/config/jsonSchema.ts, itself exported
 * from the zod schema the loader uses): one section per top-level key, one table row per field with its path,
 * type, default and description. Fields whose shape depends on a discriminator (`vm` of a wallet or a chain,
 * `kind` of a signer) get one table per variant. The hand-written guide before the reference is
 * `configurationGuide.md` beside this file. Pure: the schema and the guide come in, the page comes out.
 */
import { cell, code, markdownTable } from './markdown.ts';

/** The parts of a JSON Schema (draft 2020-12) node this page reads. */
export interface JsonSchemaNode {
  type?: string;
  description?: string;
  default?: unknown;
  const?: unknown;
  enum?: readonly unknown[];
  properties?: Readonly<Record<string, JsonSchemaNode>>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchemaNode;
  items?: JsonSchemaNode;
  oneOf?: readonly JsonSchemaNode[];
  anyOf?: readonly JsonSchemaNode[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minItems?: number;
}

/** One field of the reference: its dotted path (`<chain>` stands for any name), type, default and description. */
interface Row {
  path: string;
  type: string;
  fallback: string;
  description: string;
}

/** A table of fields; `variant` names the discriminator value the fields apply to (`vm: svm`). */
interface Table {
  title: string;
  variant?: string;
  description?: string;
  rows: Row[];
}

/**
 * What a map's keys stand for in paths, by the map's path; other maps use `<name>`. Paths of the page read
 * `chains.<chain>.rpcUrl` rather than `chains.<name>.rpcUrl`.
 */
const KEY_NAMES: Readonly<Record<string, string>> = {
  wallets: '<wallet>',
  chains: '<chain>',
  assets: '<asset>',
  'policy.transferLimits': '<asset>',
  'policy.sweepTo': '<asset>',
  'policy.refillTo': '<asset>',
  'policy.strategy': '<asset>',
  'policy.limits.dailyNotional': '<asset>',
  'policy.approvals.approvers': '<approver>',
  'policy.approvals.assets': '<asset>',
  'policy.approvals.validators': '<validator>',
  prices: '<asset>',
  'notify.sinks': '<sink>',
};

/** The property whose `const` tells the variants of a `oneOf` apart (`vm`, `kind`), if every variant has one. */
function discriminatorOf(variants: readonly JsonSchemaNode[]): string | undefined {
  const first = variants[0]?.properties;
  if (!first) return undefined;
  return Object.keys(first).find((key) => variants.every((v) => v.properties?.[key]?.const !== undefined));
}

function isRecord(node: JsonSchemaNode): node is JsonSchemaNode & { additionalProperties: JsonSchemaNode } {
  return node.properties === undefined && typeof node.additionalProperties === 'object';
}

/** A type for people: `integer ≥ 1`, `"a" | "b"`, `list of string`, `map of object`. */
export function typeOf(node: JsonSchemaNode): string {
  if (node.const !== undefined) return JSON.stringify(node.const);
  if (node.enum) return node.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (node.oneOf) {
    const key = discriminatorOf(node.oneOf);
    if (key) return `object by ${key}: ${node.oneOf.map((v) => JSON.stringify(v.properties![key]!.const)).join(' | ')}`; // discriminatorOf checked every variant's const
    return node.oneOf.map(typeOf).join(' or ');
  }
  if (node.anyOf) return node.anyOf.map(typeOf).join(' or ');
  if (node.type === 'array') return `list of ${node.items ? typeOf(node.items) : 'values'}`;
  if (node.type === 'object' || node.additionalProperties !== undefined) {
    return isRecord(node) ? `map of ${typeOf(node.additionalProperties)}` : 'object';
  }
  const type = node.type ?? 'value';
  const low = node.minimum ?? (node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : undefined);
  if (typeof low === 'number' && node.maximum !== undefined) return `${type} ${low}–${node.maximum}`;
  if (typeof low === 'number') return `${type} ≥ ${low}`;
  if (low !== undefined) return `${type} ${low}`;
  if (node.maximum !== undefined) return `${type} ≤ ${node.maximum}`;
  return type;
}

/** The default column: the value, `required`, `see fields` for an object default (its fields show theirs), or a dash. */
function fallbackOf(node: JsonSchemaNode, required: boolean): string {
  if (node.default !== undefined) {
    const isObject = typeof node.default === 'object' && node.default !== null && !Array.isArray(node.default);
    return isObject ? 'see fields' : code(JSON.stringify(node.default));
  }
  return required ? '**required**' : '—';
}

/** Adds a row per property of `node` (and rows or tables for what each holds). */
function collect(node: JsonSchemaNode, path: string, rows: Row[], tables: Table[]): void {
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    const childPath = path === '' ? name : `${path}.${name}`;
    rows.push({
      path: childPath,
      type: typeOf(child),
      fallback: fallbackOf(child, node.required?.includes(name) ?? false),
      description: child.description ?? (child.const !== undefined ? `always ${JSON.stringify(child.const)}: selects this kind` : ''),
    });
    descend(child, childPath, rows, tables);
  }
}

/** Rows for what a field holds: an object's fields, a map's or a list's entries, a variant table per `oneOf` member. */
function descend(node: JsonSchemaNode, path: string, rows: Row[], tables: Table[]): void {
  if (node.properties) {
    collect(node, path, rows, tables);
  } else if (isRecord(node)) {
    descend(node.additionalProperties, `${path}.${KEY_NAMES[path] ?? '<name>'}`, rows, tables);
  } else if (node.type === 'array' && node.items) {
    descend(node.items, `${path}[]`, rows, tables);
  } else if (node.oneOf) {
    const key = discriminatorOf(node.oneOf);
    for (const variant of node.oneOf) {
      const table: Table = {
        title: path,
        ...(key ? { variant: `${key}: ${String(variant.properties![key]!.const)}` } : {}), // discriminatorOf checked it
        ...(variant.description ? { description: variant.description } : {}),
        rows: [],
      };
      tables.push(table); // before the tables of its own fields (a wallet's table before its signer kinds)
      collect(variant, path, table.rows, tables);
    }
  }
}

/** Renders one table with its heading; the first column drops the section's own prefix when it is long. */
function renderTable(table: Table, heading: string): string {
  const parts = [`${heading} ${code(table.title)}${table.variant ? ` with ${code(table.variant)}` : ''}`];
  if (table.description) parts.push(table.description);
  parts.push(renderRows(table.rows));
  return parts.join('\n\n');
}

function renderRows(rows: readonly Row[]): string {
  return markdownTable(
    ['field', 'type', 'default', 'description'],
    rows.map((r) => [code(r.path), cell(code(r.type)), cell(r.fallback), cell(r.description)]),
  );
}

/**
 * Renders the reference part of the page: a `###` section per top-level key of the schema, in schema order.
 *
 * @param schema the configuration's JSON Schema (its top level is an object)
 * @returns Markdown, starting with the first section heading
 */
export function renderConfigurationReference(schema: JsonSchemaNode): string {
  const sections: string[] = [];
  for (const [name, node] of Object.entries(schema.properties ?? {})) {
    const rows: Row[] = [];
    const tables: Table[] = [];
    collect({ properties: { [name]: node }, required: schema.required?.includes(name) ? [name] : [] }, '', rows, tables);
    const parts = [`### ${name}`];
    // A map of variants (wallets, chains) is described by its variant tables; its own row says what it is.
    parts.push(renderRows(rows));
    const seen = new Set<string>();
    for (const table of tables) {
      const rendered = renderTable(table, '####');
      if (seen.has(rendered)) continue; // the same signer kinds under every wallet VM
      seen.add(rendered);
      parts.push(rendered);
    }
    sections.push(parts.join('\n\n'));
  }
  return sections.join('\n\n');
}

/**
 * Renders the whole page: a notice that it is generated, the hand-written guide, then the reference.
 *
 * @param schema the configuration's JSON Schema
 * @param guide the hand-written Markdown that precedes the reference (`configurationGuide.md`), from the page's
 *   `#` title to its `## Reference` heading
 * @returns the page, ending with one newline
 */
export function renderConfigurationPage(schema: JsonSchemaNode, guide: string): string {
  const notice =
    '<!-- Generated by `npm run docs` from the JSON Schema of the config (packages/ballast/src/config/schema.ts) and the ' +
    'guide configurationGuide.md in packages/ballast/src/docs/: edit those, not this file. -->';
  return `${notice}\n\n${guide.trim()}\n\n${renderConfigurationReference(schema)}\n`;
}
