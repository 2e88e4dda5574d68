/**
 * The ten multi-asset scenarios of Hyperlane's rebalancer-sim (hyperlane-xyz/hyperlane-monorepo,
 * typescript/rebalancer-sim/scenarios), read as is from `BALLAST_SCENARIOS_DIR`, else from
 * `../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios` beside the repository: each reads into one
 * scenario per asset, with a receipt and a payment per transfer. They are not part of this repository: when
 * absent, the tests are skipped with one line saying where they were looked for.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readScenarioSet } from '../../../packages/ballast/src/sim/readScenario.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const DIR = process.env.BALLAST_SCENARIOS_DIR ?? path.resolve(ROOT, '../shared/fixtures/scenarios/hyperlane-rebalancer-sim/scenarios');
const NAMES = [
  'cross-asset-drain',
  'cross-chain-mixed',
  'multi-asset-rebalance',
  'same-chain-swap',
  'mc-bidirectional-cross-asset',
  'mc-local-cross-asset-imbalance',
  'mc-mixed-traffic',
  'mc-remote-cross-asset-imbalance',
  'mc-stress-3chain-swap',
  'mc-wallet-swap',
];
const present = NAMES.every((n) => existsSync(path.join(DIR, `${n}.json`)));
if (!present)
  process.stdout.write(`Hyperlane multi-asset scenarios not found in ${DIR} (set BALLAST_SCENARIOS_DIR): ${NAMES.length} tests skipped\n`);

interface Doc {
  chains: string[];
  assets: { symbol: string }[];
  transfers: { id: string; sourceAsset: string; destinationAsset: string }[];
}

describe.skipIf(!present)("Hyperlane's multi-asset scenarios", () => {
  for (const name of NAMES) {
    it(`${name} reads into one scenario per asset, a receipt and a payment per transfer`, () => {
      const doc = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8')) as Doc;
      const set = readScenarioSet(doc);
      expect(set.multiAsset).toBe(true);
      expect(set.scenarios.map((s) => s.token.symbol)).toEqual(doc.assets.map((a) => a.symbol));
      for (const s of set.scenarios) {
        const symbol = s.token.symbol;
        expect(s.name).toBe(`${name}/${symbol}`);
        expect(s.chains).toEqual(doc.chains);
        expect(s.holdings.map((h) => h.chain)).toEqual(doc.chains);
        const receipts = s.flows.filter((f) => f.kind === 'receipt').map((f) => f.id);
        const payments = s.flows.filter((f) => f.kind === 'payment').map((f) => f.id);
        expect(receipts).toEqual(doc.transfers.filter((t) => t.sourceAsset === symbol).map((t) => `${t.id}/in`));
        expect(payments.sort()).toEqual(
          doc.transfers
            .filter((t) => t.destinationAsset === symbol)
            .map((t) => t.id)
            .sort(),
        );
      }
      const flows = set.scenarios.reduce((n, s) => n + s.flows.length, 0);
      expect(flows).toBe(2 * doc.transfers.length);
    });
  }
});
