/**
 * Replaying an operator's own payments (README "Test a configuration before it moves money"): the README's command,
 * word for word, on the shipped example config and CSV, through the CLI and the real cycle.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../../packages/ballast/src/cli/main.ts';
import { parseCsvTraffic } from '../../../packages/ballast/src/sim/csvTraffic.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The README's replay command, its repository paths made absolute. */
function readmeCommand(): string[] {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const line = /^npx ballast (--config docs\/examples\/\S+ simulate --traffic .*)$/m.exec(readme)?.[1];
  if (!line) throw new Error('README.md has no "npx ballast --config docs/examples/… simulate --traffic …" line');
  return line.split(/\s+/).map((a) => (a.startsWith('docs/') ? path.join(ROOT, a) : a));
}

/** The cells of the table row whose first cell is `name`. */
function row(output: string, name: string): string[] {
  const cells = output
    .split('\n')
    .map((l) => l.split('│').map((c) => c.trim()))
    .find((c) => c[1] === name);
  if (!cells) throw new Error(`no row ${name} in:\n${output}`);
  return cells.slice(1, -1);
}

describe('ballast simulate --traffic', () => {
  it("runs the README's command: every payment completes and a transfer refills the holding the CSV drains", async () => {
    const args = readmeCommand();
    const csv = args[args.indexOf('--traffic') + 1]!;
    const rows = parseCsvTraffic(readFileSync(csv, 'utf8'), csv, 6);
    expect(new Set(rows.filter((r) => r.kind === 'payment').map((r) => r.chain))).toEqual(new Set(['base']));

    const out: string[] = [];
    const program = await buildProgram((s) => out.push(s), ['simulate']);
    await program.parseAsync(['node', 'ballast', ...args]);
    const table = out.join('\n');
    const [scenario, payments, completion, , , , rebalances] = row(table, 'payments');
    expect([scenario, payments, completion, rebalances]).toEqual(['payments', '4/4', '100.0 %', '1']);
    // holding, initial, final, payments, completion, p95, rebalances in/out, below min
    const base = row(table, 'base');
    const arbitrum = row(table, 'arbitrum');
    expect([base[0], base[1], base[3], base[6]]).toEqual(['base', '5000', '4/4', '1/0']);
    expect([arbitrum[1], arbitrum[6]]).toEqual(['3000', '0/1']);
    // base paid 4750.50 and received the transfer; arbitrum received 3600 and sent it
    const moved = Number(base[2]) - (5000 - 4750.5);
    expect(moved).toBeGreaterThan(0);
    expect(Number(arbitrum[2])).toBeCloseTo(3000 + 3600 - moved, 6);
  });

  it('refuses --scenario with --traffic, and --traffic without a config (exit 2)', async () => {
    expect(await main(['node', 'ballast', 'simulate', '--scenario', 'a.yaml', '--traffic', 'b.csv'])).toBe(2);
    expect(await main(['node', 'ballast', 'simulate', '--traffic', 'b.csv'])).toBe(2);
  });
});
