/**
 * Readers for the deployment kit's files (systemd unit, Dockerfile, .dockerignore) and a way to load its
 * configs with test secrets, for the deployKit tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig, type LoadedConfig } from '../../../packages/ballast/src/config/loadConfig.ts';

/** Repository root. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
/** Reads a repository file as text. */
export const readRepo = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');

/** A systemd unit: section → key → values in order (a key may repeat), plus the commented-out assignments. */
export interface Unit {
  sections: Record<string, Record<string, string[]>>;
  /** `#Key=value` lines (a setting shown but not active), by key. */
  commented: Record<string, string[]>;
}

/** Parses a systemd unit file (systemd.syntax(7): sections, `Key=value`, `#`/`;` comments, `\` continuations). */
export function parseUnit(text: string): Unit {
  const unit: Unit = { sections: {}, commented: {} };
  let section = '';
  const lines = text.replace(/\\\n/g, ' ').split('\n');
  for (const raw of lines) {
    const line = raw.trim();
    const off = /^[#;]([A-Za-z]+)=(.*)$/.exec(line);
    if (off) (unit.commented[off[1]!] ??= []).push(off[2]!.trim());
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const header = /^\[(.+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      unit.sections[section] ??= {};
      continue;
    }
    const eq = line.indexOf('=');
    if (eq < 0) throw new Error(`not a Key=value line in [${section}]: ${line}`);
    ((unit.sections[section] ??= {})[line.slice(0, eq).trim()] ??= []).push(line.slice(eq + 1).trim());
  }
  return unit;
}

/** One Dockerfile instruction with its stage. */
export interface DockerInstruction {
  stage: string;
  op: string;
  args: string;
}

/** Parses a Dockerfile into instructions (continuations joined, comments dropped), each with its stage name. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  let stage = '';
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  for (const line of joined.split('\n')) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const op = m[1]!.toUpperCase();
    const args = m[2]!.trim();
    if (op === 'FROM') stage = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? args;
    out.push({ stage, op, args });
  }
  return out;
}

/** Splits a COPY instruction into flags, sources and destination. */
export function copyParts(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((w) => w.startsWith('--'));
  const rest = words.filter((w) => !w.startsWith('--'));
  const from = flags.find((f) => f.startsWith('--from='))?.slice('--from='.length);
  return { ...(from !== undefined ? { from } : {}), sources: rest.slice(0, -1), dest: rest.at(-1)! };
}

/**
 * Whether a context-relative path is excluded by .dockerignore rules (Docker's semantics: patterns are cleaned,
 * `**` spans directories, `*` and `?` stay within one, a rule also matches everything under a matched directory,
 * `!` re-includes, the last matching rule wins).
 */
export function dockerIgnored(rules: string[], rel: string): boolean {
  let excluded = false;
  const parts = rel.split('/');
  for (const rule of rules) {
    const negate = rule.startsWith('!');
    const pattern = path.posix.normalize(negate ? rule.slice(1) : rule).replace(/\/$/, '');
    const re = new RegExp(
      `^${pattern
        .split('')
        .map((c, i, a) => {
          if (c === '*' && a[i + 1] === '*') return '';
          if (c === '*' && a[i - 1] === '*') return '.*';
          if (c === '*') return '[^/]*';
          if (c === '?') return '[^/]';
          return c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
        })
        .join('')}$`,
    );
    const matches = parts.some((_, i) => re.test(parts.slice(0, i + 1).join('/')));
    if (matches) excluded = !negate;
  }
  return excluded;
}

/** .dockerignore rules (comments and blank lines dropped). */
export function dockerignoreRules(): string[] {
  return readRepo('.dockerignore')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
}

/** Anvil's first dev key and its address: public test material. */
export const TEST_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const TEST_ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** Every `${CREDENTIALS_DIRECTORY}/<name>` a config text references, split by active and commented-out lines. */
export function credentialRefs(text: string): { active: string[]; commented: string[] } {
  const active: string[] = [];
  const commented: string[] = [];
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(/keyFile:\s*\$\{CREDENTIALS_DIRECTORY\}\/([\w.-]+)/g)) {
      (/^\s*#/.test(line) ? commented : active).push(m[1]!);
    }
  }
  return { active, commented };
}

/**
 * Loads a config of the kit with the real loader: every `${VAR}` gets a placeholder (URLs for `*_RPC`, the
 * test address for `*_ADDRESS`), and CREDENTIALS_DIRECTORY is a temp directory holding a key file (mode 600)
 * for each credential the config names; `overrides` set the variables whose value matters (e.g. a store URL).
 */
export function loadKitConfig(rel: string, overrides: Record<string, string> = {}): LoadedConfig {
  const text = readRepo(rel);
  const creds = mkdtempSync(path.join(tmpdir(), 'ballast-kit-creds-'));
  try {
    for (const name of credentialRefs(text).active) writeFileSync(path.join(creds, name), `${TEST_KEY}\n`, { mode: 0o600 });
    const env: Record<string, string> = { CREDENTIALS_DIRECTORY: creds };
    for (const [, name] of text.matchAll(/\$\{([A-Z_][A-Z0-9_]*)\}/g)) {
      if (name === 'CREDENTIALS_DIRECTORY') continue;
      env[name!] = name!.endsWith('_RPC')
        ? `https://${name!.toLowerCase()}.example/rpc`
        : name!.endsWith('_ADDRESS')
          ? TEST_ADDRESS
          : 'kit-test-value-123';
    }
    return loadConfig(path.join(ROOT, rel), { ...env, ...overrides });
  } finally {
    rmSync(creds, { recursive: true, force: true });
  }
}

/** A compose file as the kit tests read it: services with their mounts and env files, named volumes, secrets. */
export interface ComposeMounts {
  services: Record<string, { volumes?: string[]; env_file?: string[] }>;
  volumes?: Record<string, unknown>;
  secrets?: Record<string, { file: string }>;
}

/**
 * What a compose file under deploy/ mounts that is missing: bind-mount sources that do not exist, named volumes not
 * declared, and env files or secret files that neither exist nor are ignored by git (the operator supplies them).
 *
 * @returns one line per problem (empty when every reference resolves)
 */
export function composeMountProblems(compose: ComposeMounts): string[] {
  const deployDir = path.join(ROOT, 'deploy');
  const problems: string[] = [];
  for (const [name, svc] of Object.entries(compose.services)) {
    for (const v of svc.volumes ?? []) {
      const [src] = v.split(':');
      if (!src!.startsWith('.')) {
        if (!Object.keys(compose.volumes ?? {}).includes(src!)) problems.push(`${name}: named volume ${src} is not declared`);
      } else if (!existsSync(path.join(deployDir, src!))) problems.push(`${name}: ${src} does not exist`);
    }
  }
  const gitIgnored = (rel: string) => spawnSync('git', ['check-ignore', '-q', rel], { cwd: ROOT }).status === 0;
  const supplied = [
    ...Object.values(compose.services).flatMap((s) => s.env_file ?? []),
    ...Object.values(compose.secrets ?? {}).map((s) => s.file),
  ];
  for (const f of new Set(supplied)) {
    const rel = path.relative(ROOT, path.join(deployDir, f));
    if (!existsSync(path.join(ROOT, rel)) && !gitIgnored(rel)) problems.push(`${rel} neither exists nor is git-ignored`);
  }
  return problems;
}
