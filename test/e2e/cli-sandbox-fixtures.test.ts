/**
 * `ballast sandbox --write-fixtures DIR` (the README's verify-quote example): it saves a real sandbox quote and
 * GET /chains document, prints a verify-quote command line, and that exact line, run by a shell from the same
 * directory, verifies the quote on every rule.
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { VERIFY_RULE_IDS } from '../../packages/ballast/src/verify/verifyQuote.ts';
import { ROOT, runCli } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-sandbox-fixtures-');
afterAll(() => tmp.cleanup());

/** Runs one shell command line in the project root. */
function shell(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/sh', ['-c', line], { cwd: ROOT, timeout: 90_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('ballast sandbox --write-fixtures', () => {
  it('writes quote.json and chains.json, and the printed verify-quote line verifies them (exit 0, every rule ok)', async () => {
    const dir = path.join(tmp.dir, 'fixtures');
    const r = await runCli(['sandbox', '--write-fixtures', dir]);
    expect(r.code, r.stderr).toBe(0);
    const quote = JSON.parse(readFileSync(path.join(dir, 'quote.json'), 'utf8')) as { protocol?: { v2?: { orderId: string } } };
    const chains = JSON.parse(readFileSync(path.join(dir, 'chains.json'), 'utf8')) as { chains: { id: number }[] };
    expect(chains.chains.map((c) => c.id)).toEqual([31001, 31002]);
    const orderId = quote.protocol?.v2?.orderId;
    expect(orderId).toMatch(/^0x[0-9a-f]{64}$/);

    const lines = r.stdout.trim().split('\n');
    const command = lines[lines.indexOf('Check the quote with:') + 1]!;
    expect(command.startsWith('./packages/ballast/bin/ballast.mjs verify-quote ')).toBe(true);
    expect(existsSync(path.join(ROOT, 'packages/ballast/bin/ballast.mjs'))).toBe(true);
    for (const flag of [
      '--user',
      '--recipient',
      '--now',
      '--amount',
      '--origin-currency',
      '--destination-chain',
      '--destination-currency',
      '--min-out',
    ]) {
      expect(command).toContain(` ${flag} `);
    }

    const verified = await shell(command);
    expect(verified.code, verified.stderr).toBe(0);
    const rows = verified.stdout.split('\n').filter((l) => /^│ [a-z-]+\s+│/.test(l) && !/^│ rule\s/.test(l)); // rule rows, not the header
    expect(rows.map((l) => l.split('│')[1]!.trim())).toEqual([...VERIFY_RULE_IDS]);
    expect(rows.every((l) => l.split('│')[2]!.trim() === 'ok')).toBe(true);
    expect(verified.stdout).toContain(`verified: order ${orderId}`);
  }, 120_000);

  it('refuses --keep-running without --write-fixtures (exit 2)', async () => {
    const r = await runCli(['sandbox', '--keep-running']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--keep-running only applies with --write-fixtures');
  });
});
