/**
 * CLI commands that work on saved files: verify-quote and order-id on saved quotes — the offline quote (always) and
 * the genuine published one (when its files are present). Each case's quote and GET /chains document are written to
 * a temporary directory first, as an operator would save them.
 *
 * The real process (`runCli`) runs one case per exit code of verify-quote on the offline quote: verified (0),
 * refused (3), unreadable input (2), and order-id once; the other cases call the same `main()` in this process (`runCliInProcess`).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { offlineQuoteJson } from '../fixtures/offlineQuote.ts';
import { QUOTE_CASES } from '../fixtures/quoteCase.ts';
import { loadChainsFixture, readQuoteFixtureJson } from '../fixtures/relay.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ballast-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Writes a case's quote and chains document to `tmp/<name>/` and returns the two paths. */
function saveCase(name: string): { quote: string; chains: string } {
  const dir = path.join(tmp, name);
  mkdirSync(dir, { recursive: true });
  // The genuine quote exactly as published; its chains document with the contracts real GET /chains lists.
  const { quote, chains } = name === 'genuine' ? { quote: readQuoteFixtureJson(), chains: loadChainsFixture() } : offlineQuoteJson();
  const files = { quote: path.join(dir, 'quote.json'), chains: path.join(dir, 'chains.json') };
  writeFileSync(files.quote, JSON.stringify(quote, null, 2));
  writeFileSync(files.chains, JSON.stringify(chains, null, 2));
  return files;
}

describe.each(QUOTE_CASES.map((c) => [c.name, c] as const))('ballast verify-quote and order-id on the %s quote', (name, c) => {
  const f = c.facts;
  const files = saveCase(name);
  // The real process on the first case (the offline quote, always present); in this process on the genuine one.
  const cli = c === QUOTE_CASES[0] ? runCli : runCliInProcess;
  const verifyArgs = (quote: string, extra: string[] = []) => [
    'verify-quote',
    '--quote',
    quote,
    '--chains',
    files.chains,
    '--user',
    f.user,
    '--recipient',
    f.recipient,
    '--now',
    String(f.nowSec),
    ...extra,
  ];

  it('verifies the saved quote with every expectation given (exit 0)', async () => {
    const r = await cli(
      verifyArgs(files.quote, [
        '--amount',
        f.amount.toString(),
        '--origin-currency',
        f.originCurrency,
        '--destination-chain',
        String(f.destinationChainId),
        '--destination-currency',
        f.destinationCurrency,
        '--min-out',
        f.minOut.toString(),
        '--json',
      ]),
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const verdict = JSON.parse(r.stdout) as { ok: boolean; orderId: string; rules: { rule: string; ok: boolean }[] };
    expect(verdict.ok).toBe(true);
    expect(verdict.orderId).toBe(f.orderId);
    expect(verdict.rules.every((x) => x.ok)).toBe(true);
  });

  it('refuses (exit 3) when the guaranteed output is below --min-out, naming the rule', async () => {
    const r = await cli(verifyArgs(files.quote, ['--min-out', (f.minOut + 1n).toString()]));
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/min-output\s*│\s*FAIL/);
    expect(r.stdout).toContain('REFUSED');
  });

  it('refuses a quote whose recipient was changed', async () => {
    const quote = JSON.parse(readFileSync(files.quote, 'utf8'));
    quote.protocol.v2.orderData.output.payments[0].recipient = '0x000000000000000000000000000000000000dead';
    const file = path.join(tmp, `${name}-tampered.json`);
    writeFileSync(file, JSON.stringify(quote));
    const r = await runCliInProcess(verifyArgs(file, ['--json']));
    expect(r.code).toBe(3);
    const failed = (JSON.parse(r.stdout) as { rules: { rule: string; ok: boolean }[] }).rules.filter((x) => !x.ok).map((x) => x.rule);
    expect(failed).toContain('recipient');
  });

  it('order-id prints the order id of the saved orderData', async () => {
    const quote = JSON.parse(readFileSync(files.quote, 'utf8'));
    const file = path.join(tmp, `${name}-order.json`);
    writeFileSync(file, JSON.stringify(quote.protocol.v2.orderData));
    const r = await cli(['order-id', '--order', file, '--chains', files.chains]);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(f.orderId);
  });

  it('order-id exits 2 when a chain slug of the order is unknown to /chains', async () => {
    const quote = JSON.parse(readFileSync(files.quote, 'utf8'));
    quote.protocol.v2.orderData.output.chainId = 'nowhere';
    const file = path.join(tmp, `${name}-order-bad.json`);
    writeFileSync(file, JSON.stringify(quote.protocol.v2.orderData));
    const r = await runCliInProcess(['order-id', '--order', file, '--chains', files.chains]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('nowhere');
  });
});

describe('ballast verify-quote on unreadable input', () => {
  it('exits 2 and names the file', async () => {
    const files = saveCase('offline');
    const args = (quote: string) => [
      'verify-quote',
      '--quote',
      quote,
      '--chains',
      files.chains,
      '--user',
      '0x03508bb71268bba25ecacc8f620e01866650532c',
      '--recipient',
      '0x03508bb71268bba25ecacc8f620e01866650532c',
    ];
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, '{ not json');
    const r = await runCli(args(bad));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(bad);
    const missing = await runCliInProcess(args(path.join(tmp, 'nope.json')));
    expect(missing.code).toBe(2);
  });
});
