/**
 * docs/errors.md and the code agree both ways: every coded error, verification rule id and fee skip reason
 * in the source (and spending limit reason) is documented, and the page documents nothing that does not exist.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { VERIFY_RULE_IDS } from '../../../packages/ballast/src/verify/types.ts';
import { FEE_SKIP_REASONS } from '../../../packages/ballast/src/policy/feePolicy.ts';
import { SPENDING_LIMIT_REASONS } from '../../../packages/ballast/src/policy/spendingLimits.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const doc = readFileSync(path.join(root, 'docs/errors.md'), 'utf8');

/** Error code prefixes of Ballast's own error families (API `errorCode`s of the sandbox are not ours). */
const PREFIXES = [
  'CONFIG',
  'RELAY',
  'ADDRESS',
  'ORDER_ID',
  'VERIFY',
  'QUOTE_VERIFICATION',
  'FEE_POLICY',
  'SPENDING_LIMITS',
  'PLAN',
  'EVM',
  'SVM',
  'BVM',
  'SOLANA_NODE',
  'BTC_NODE',
  'EXECUTOR',
  'STORE',
  'CYCLE',
  'RUN_LOCK',
  'MONITOR',
  'TRANSFER',
  'METRICS',
  'WEBHOOK',
  'WITHDRAWAL',
  'ANVIL',
  'LOCAL_CHAIN',
  'LOCAL_CHAINS',
  'SANDBOX',
  'SIGNER',
  'NEED',
];
const CODE_RE = new RegExp(`'((?:${PREFIXES.join('|')})_[A-Z0-9_]+)'`, 'g');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

function codesInSource(): Set<string> {
  const codes = new Set<string>();
  for (const file of ['packages/ballast/src', 'packages/protocol/src', 'packages/sandbox/src'].flatMap((dir) =>
    sourceFiles(path.join(root, dir)),
  )) {
    for (const m of readFileSync(file, 'utf8').matchAll(CODE_RE)) codes.add(m[1]!);
  }
  return codes;
}

/** First-column entries (`| \`name\` | …`) of the table in one section of the page. */
function documented(section: string): string[] {
  const start = doc.indexOf(`## ${section}`);
  const end = doc.indexOf('\n## ', start + 1);
  const text = doc.slice(start, end === -1 ? undefined : end);
  return [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
}

/** Back-quoted codes in the prose under the error table (the sandbox's codes). */
function proseCodes(): string[] {
  const start = doc.indexOf('The local sandbox has its own codes');
  const text = doc.slice(start, doc.indexOf('\n## ', start));
  return [...text.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!);
}

describe('docs/errors.md', () => {
  it('documents every error code raised in src, and only those', () => {
    const inSource = codesInSource();
    const inDoc = [...documented('Error codes').filter((c) => c !== 'RELAY_HTTP_<status>'), ...proseCodes()];
    expect(inSource.size).toBeGreaterThan(20);
    expect([...inSource].filter((c) => !inDoc.includes(c))).toEqual([]);
    expect(inDoc.filter((c) => !inSource.has(c))).toEqual([]);
    expect(documented('Error codes')).toContain('RELAY_HTTP_<status>');
  });

  it('documents exactly the verification rule ids', () => {
    expect(documented('Verification rules')).toEqual([...VERIFY_RULE_IDS]);
  });

  it('documents exactly the fee skip reasons', () => {
    expect([...documented('Fee policy skip reasons')].sort()).toEqual([...FEE_SKIP_REASONS].sort());
  });

  it('documents exactly the spending limit reasons, in the order they are checked', () => {
    expect(documented('Spending limit reasons')).toEqual([...SPENDING_LIMIT_REASONS]);
  });
});
