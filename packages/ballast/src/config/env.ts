/**
 * `${VAR}` substitution in configuration values.
 *
 * Every string value of the parsed YAML tree (not keys) may contain `${NAME}` references, resolved from the
 * environment map given to `loadConfig` (only `src/config` reads `process.env`). `$${` is an escape for a
 * literal `${`. An unset or empty variable is an error, never an empty string: secrets have no defaults.
 *
 * References may be written unquoted inside YAML flow collections (`{ rpcUrl: ${BASE_RPC} }`), where `{` and
 * `}` are YAML syntax: {@link protectEnvRefs} rewrites each `${NAME}` in the file text to `$⟦NAME⟧` (same
 * length, so parser line/column positions stay exact) before parsing, and {@link restoreEnvRefs} turns the
 * parsed strings back. Substitution itself happens on parsed values only, so a variable's value can never
 * change the YAML structure.
 */
import { formatPath, type ConfigIssue } from './errors.ts';

/** Environment map (same shape as `process.env`). */
export type EnvMap = Readonly<Record<string, string | undefined>>;

/** Result of {@link resolveEnvRefs}. */
export interface EnvResolution {
  /** The tree with every reference replaced (unresolvable ones left as written). */
  value: unknown;
  /** YAML paths of the string values that contained at least one reference. */
  referencedPaths: Set<string>;
  /** Values substituted in, to be scrubbed from error messages. */
  substituted: Set<string>;
}

const VAR_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const REF_IN_TEXT_RE = /(\$?)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;
const PROTECTED_REF_RE = /\$\u27E6([A-Za-z_][A-Za-z0-9_]*)\u27E7/g;

/**
 * Rewrites every `${NAME}` in YAML source text to `$⟦NAME⟧` so it parses as plain text in any YAML context.
 * Escaped references (`$${NAME}`) are left alone.
 *
 * @param text YAML source
 * @returns text of the same length
 */
export function protectEnvRefs(text: string): string {
  return text.replace(REF_IN_TEXT_RE, (all, escape: string, name: string) => (escape ? all : `$\u27E6${name}\u27E7`));
}

/**
 * Reverses {@link protectEnvRefs} in every string (keys included) of a parsed tree.
 *
 * @param tree parsed YAML
 * @returns a copy with `$⟦NAME⟧` turned back into `${NAME}`
 */
export function restoreEnvRefs(tree: unknown): unknown {
  if (typeof tree === 'string') return tree.replace(PROTECTED_REF_RE, (_all, name: string) => `\${${name}}`);
  if (Array.isArray(tree)) return tree.map(restoreEnvRefs);
  if (tree !== null && typeof tree === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(tree)) out[restoreEnvRefs(k) as string] = restoreEnvRefs(v); // string in, string out
    return out;
  }
  return tree;
}

/**
 * Resolves `${VAR}` references in every string of a parsed YAML tree.
 *
 * @param tree parsed YAML (plain objects, arrays, scalars)
 * @param env environment variables
 * @param issues receives one issue per missing variable or malformed reference, with its YAML path
 * @returns the resolved tree and bookkeeping for warnings and redaction
 */
export function resolveEnvRefs(tree: unknown, env: EnvMap, issues: ConfigIssue[]): EnvResolution {
  const referencedPaths = new Set<string>();
  const substituted = new Set<string>();
  const walk = (node: unknown, path: PropertyKey[]): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('${')) return node;
      const p = formatPath(path);
      const out = substitute(node, env, p, issues, substituted);
      if (out.referenced) referencedPaths.add(p);
      return out.text;
    }
    if (Array.isArray(node)) return node.map((v, i) => walk(v, [...path, i]));
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(node)) out[k] = walk(v, [...path, k]);
      return out;
    }
    return node;
  };
  return { value: walk(tree, []), referencedPaths, substituted };
}

function substitute(
  text: string,
  env: EnvMap,
  path: string,
  issues: ConfigIssue[],
  substituted: Set<string>,
): { text: string; referenced: boolean } {
  let out = '';
  let referenced = false;
  let i = 0;
  while (i < text.length) {
    if (text.startsWith('$${', i)) {
      out += '${';
      i += 3;
      continue;
    }
    if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i + 2);
      const name = end === -1 ? '' : text.slice(i + 2, end);
      if (end === -1 || !VAR_NAME_RE.test(name)) {
        issues.push({
          path,
          message: 'malformed ${...} reference; write ${NAME} with letters, digits and _, or $${ for a literal "${"',
        });
        return { text, referenced: true };
      }
      referenced = true;
      const value = env[name];
      if (value === undefined || value === '') {
        issues.push({
          path,
          message: `environment variable ${name} is ${value === undefined ? 'not set' : 'empty'}; export it before starting Ballast`,
        });
      } else {
        substituted.add(value);
        out += value;
      }
      i = end + 1;
      continue;
    }
    out += text[i];
    i += 1;
  }
  return { text: out, referenced };
}
