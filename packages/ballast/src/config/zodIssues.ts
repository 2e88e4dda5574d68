/**
 * Turns zod issues into {@link ConfigIssue}s that name the YAML path and the fix. Values are never echoed
 * (zod 4 does not include inputs in issues unless asked), so a secret in a wrongly typed field cannot leak.
 *
 * Wallets and chains are unions discriminated by `vm`: an unknown key is looked up in the variant the input
 * selects, and a key that belongs to another variant is reported as such (`esploraUrl` on an EVM chain is a
 * setting of vm: bvm).
 */
import type { z } from 'zod';
import { formatPath, type ConfigIssue } from './errors.ts';

/**
 * Converts the issues of a failed `safeParse` of the config.
 *
 * @param error the zod error
 * @param root the schema that was parsed (used to list the allowed keys of an object)
 * @param input the value that was parsed (used to tell a missing field from a wrong one)
 * @returns one ConfigIssue per problem (one per unknown key)
 */
export function issuesFromZod(error: z.ZodError, root: z.ZodType, input: unknown): ConfigIssue[] {
  const out: ConfigIssue[] = [];
  for (const issue of error.issues) {
    const path = issue.path;
    if (issue.code === 'unrecognized_keys') {
      const target = objectAt(root, path, input);
      const allowed = target?.keys;
      for (const key of issue.keys) {
        const list = allowed ? ` (allowed: ${allowed.join(', ')})` : '';
        const owners = target?.otherVariants.filter((v) => v.keys.includes(key)).map((v) => v.tag) ?? [];
        if (target?.tag !== undefined && owners.length > 0) {
          const others = owners.join(' or ');
          out.push({
            path: formatPath([...path, key]),
            message: `unknown key for vm: ${target.tag}; it is a setting of vm: ${others} (set vm: ${owners[0]} if that is what you meant, or remove it)${list}`,
          });
          continue;
        }
        const guess = allowed ? closest(key, allowed) : undefined;
        const hint = guess ? `did you mean "${guess}"?` : 'remove it or fix the spelling';
        out.push({ path: formatPath([...path, key]), message: `unknown key; ${hint}${list}` });
      }
      continue;
    }
    if (issue.code === 'invalid_key') {
      out.push({
        path: formatPath(path),
        message: 'invalid name: use 1-64 letters, digits, "_", "." or "-", starting with a letter',
      });
      continue;
    }
    if (issue.code === 'invalid_type' && valueAt(input, path) === undefined) {
      out.push({ path: formatPath(path), message: 'required but missing; add it (see config/ballast.example.yaml)' });
      continue;
    }
    out.push({ path: formatPath(path), message: issue.message });
  }
  return out;
}

/** Reads the value at a zod path inside plain data. */
export function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let node: unknown = input;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<PropertyKey, unknown>)[key]; // indexing plain parsed YAML data
  }
  return node;
}

interface DefLike {
  type: string;
  shape?: Record<string, z.ZodType>;
  valueType?: z.ZodType;
  element?: z.ZodType;
  innerType?: z.ZodType;
  /** unions */
  options?: z.ZodType[];
  discriminator?: string;
  /** literals */
  values?: unknown[];
}

/** The object schema found at a path: its keys, and for a discriminated variant its tag and the other variants. */
interface ObjectAt {
  keys: string[];
  tag?: string;
  otherVariants: { tag: string; keys: string[] }[];
}

/** The object schema at `path` (choosing union variants by the input), or undefined when there is none. */
function objectAt(root: z.ZodType, path: readonly PropertyKey[], input: unknown): ObjectAt | undefined {
  let schema: z.ZodType | undefined = unwrap(root);
  let variant: ObjectAt | undefined;
  for (let depth = 0; depth <= path.length; depth++) {
    if (!schema) return undefined;
    const def = defOf(schema);
    if (def.type === 'union' && def.discriminator !== undefined) {
      variant = chooseVariant(def, def.discriminator, valueAt(input, path.slice(0, depth)));
      schema = variant ? optionByTag(def, def.discriminator, variant.tag) : undefined;
      if (!schema) return undefined;
    } else variant = undefined;
    if (depth === path.length) break;
    const key = path[depth];
    const d = defOf(schema);
    if (d.type === 'object') schema = d.shape?.[String(key)];
    else if (d.type === 'record') schema = d.valueType;
    else if (d.type === 'array') schema = d.element;
    else return undefined;
    schema = schema ? unwrap(schema) : undefined;
  }
  if (!schema) return undefined;
  const def = defOf(schema);
  if (def.type !== 'object' || !def.shape) return undefined;
  return variant ?? { keys: Object.keys(def.shape), otherVariants: [] };
}

/** Tag of an option: the literal of its discriminator, and whether that field has a default (may be omitted). */
function tagOf(option: z.ZodType, discriminator: string): { tag: string; keys: string[]; optional: boolean } | undefined {
  const shape = defOf(unwrap(option)).shape;
  const field = shape?.[discriminator];
  if (!shape || !field) return undefined;
  const tag = defOf(unwrap(field)).values?.[0];
  return typeof tag === 'string' ? { tag, keys: Object.keys(shape), optional: defOf(field).type === 'default' } : undefined;
}

function chooseVariant(def: DefLike, discriminator: string, node: unknown): ObjectAt | undefined {
  const value = node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[discriminator] : undefined; // plain parsed YAML
  const tags = (def.options ?? []).map((o) => tagOf(o, discriminator)).filter((t) => t !== undefined);
  const chosen = tags.find((t) => (value === undefined ? t.optional : t.tag === value));
  if (!chosen) return undefined;
  return {
    keys: chosen.keys,
    tag: chosen.tag,
    otherVariants: tags.filter((t) => t !== chosen).map((t) => ({ tag: t.tag, keys: t.keys })),
  };
}

function optionByTag(def: DefLike, discriminator: string, tag: string | undefined): z.ZodType | undefined {
  const option = (def.options ?? []).find((o) => tagOf(o, discriminator)?.tag === tag);
  return option ? unwrap(option) : undefined;
}

function defOf(schema: z.ZodType): DefLike {
  return schema._zod.def as unknown as DefLike; // zod 4 definitions all carry `type`; other fields checked per type
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (let def = defOf(s); ['optional', 'default', 'nullable', 'prefault'].includes(def.type) && def.innerType; def = defOf(s)) {
    s = def.innerType;
  }
  return s;
}

/** Closest allowed key by case-insensitive edit distance (at most 2 edits or same letters in other case). */
function closest(key: string, allowed: string[]): string | undefined {
  let best: string | undefined;
  let bestDist = 3;
  for (const candidate of allowed) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDist) {
      best = candidate;
      bestDist = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      const left = prev[j - 1] ?? 0;
      prev[j] = Math.min(up + 1, left + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}
