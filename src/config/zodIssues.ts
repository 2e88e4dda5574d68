/**
 * Turns zod issues into {@link ConfigIssue}s that name the YAML path and the fix. Values are never echoed
 * (zod 4 does not include inputs in issues unless asked), so a secret in a wrongly typed field cannot leak.
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
      const allowed = allowedKeys(root, path);
      for (const key of issue.keys) {
        const guess = allowed ? closest(key, allowed) : undefined;
        const hint = guess ? `did you mean "${guess}"?` : 'remove it or fix the spelling';
        const list = allowed ? ` (allowed: ${allowed.join(', ')})` : '';
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
}

/** Keys an object schema accepts at `path`, or undefined when the path does not lead to an object schema. */
function allowedKeys(root: z.ZodType, path: readonly PropertyKey[]): string[] | undefined {
  let schema: z.ZodType | undefined = unwrap(root);
  for (const key of path) {
    if (!schema) return undefined;
    const def = defOf(schema);
    if (def.type === 'object') schema = def.shape?.[String(key)];
    else if (def.type === 'record') schema = def.valueType;
    else if (def.type === 'array') schema = def.element;
    else return undefined;
    schema = schema ? unwrap(schema) : undefined;
  }
  if (!schema) return undefined;
  const def = defOf(schema);
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : undefined;
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
