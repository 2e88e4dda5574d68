/**
 * CLI commands that work on saved files: verify-quote and order-id on the genuine published fixture.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli } from './helpers/cli.ts';
import { loadChainsFixture } from '../fixtures/relay.ts';

const QUOTE = path.join(FIXTURES, 'quote-v2-base-usdc-to-arbitrum-usdt.json');
const USER = '0x03508bb71268bba25ecacc8f620e01866650532c';
const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
/** The genuine chains document with the contracts real GET /chains lists (see loadChainsFixture). */
const CHAINS = path.join(tmp, 'chains.json');
writeFileSync(CHAINS, JSON.stringify(loadChainsFixture()));

const verifyArgs = (quote: string, extra: string[] = []) => [
  'verify-quote', '--quote', quote, '--chains', CHAINS, '--user', USER, '--recipient', USER, '--now', '1777339000', ...extra,
];

describe('ballast verify-quote', () => {
  it('verifies the genuine published quote with every expectation given (exit 0)', async () => {
    const r = await runCli(verifyArgs(QUOTE, [
      '--amount', '100000000',
      '--origin-currency', '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913',
      '--destination-chain', '42161',
      '--destination-currency', '0xfd086bc7cd5c481dcc9c85ebe478a1c0b69fcbb9',
      '--min-out', '97951882',
      '--json',
    ]));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const verdict = JSON.parse(r.stdout) as { ok: boolean; orderId: string; rules: { rule: string; ok: boolean }[] };
    expect(verdict.ok).toBe(true);
    expect(verdict.orderId).toBe('0x4c625ab9733d2d5702beed88f4156575e25d599d5145551d5bf2bfc358db234b');
    expect(verdict.rules.every((x) => x.ok)).toBe(true);
  });

  it('refuses (exit 3) when the guaranteed output is below --min-out, naming the rule', async () => {
    const r = await runCli(verifyArgs(QUOTE, ['--min-out', '97951883']));
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/min-output\s*│\s*FAIL/);
    expect(r.stdout).toContain('REFUSED');
  });

  it('refuses a quote whose recipient was changed', async () => {
    const quote = JSON.parse(readFileSync(QUOTE, 'utf8'));
    quote.protocol.v2.orderData.output.payments[0].recipient = '0x000000000000000000000000000000000000dead';
    const file = path.join(tmp, 'tampered.json');
    writeFileSync(file, JSON.stringify(quote));
    const r = await runCli(verifyArgs(file, ['--json']));
    expect(r.code).toBe(3);
    const failed = (JSON.parse(r.stdout) as { rules: { rule: string; ok: boolean }[] }).rules.filter((x) => !x.ok).map((x) => x.rule);
    expect(failed).toContain('recipient');
  });

  it('exits 2 on unreadable input and names the file', async () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, '{ not json');
    const r = await runCli(verifyArgs(bad));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(bad);
    const missing = await runCli(verifyArgs(path.join(tmp, 'nope.json')));
    expect(missing.code).toBe(2);
  });
});

describe('ballast order-id', () => {
  it('prints the order id of the fixture orderData', async () => {
    const quote = JSON.parse(readFileSync(QUOTE, 'utf8'));
    const file = path.join(tmp, 'order.json');
    writeFileSync(file, JSON.stringify(quote.protocol.v2.orderData));
    const r = await runCli(['order-id', '--order', file, '--chains', CHAINS]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe('0x4c625ab9733d2d5702beed88f4156575e25d599d5145551d5bf2bfc358db234b');
  });

  it('exits 2 when a chain slug of the order is unknown to /chains', async () => {
    const quote = JSON.parse(readFileSync(QUOTE, 'utf8'));
    quote.protocol.v2.orderData.output.chainId = 'nowhere';
    const file = path.join(tmp, 'order-bad.json');
    writeFileSync(file, JSON.stringify(quote.protocol.v2.orderData));
    const r = await runCli(['order-id', '--order', file, '--chains', CHAINS]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nowhere');
  });
});
