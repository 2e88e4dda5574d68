/**
 * Reads a parsed scenario document in either format: Hyperlane's rebalancer-sim (it has `transfers` and
 * `defaultInitialCollateral`) or Ballast's own (docs/simulate.md). A multi-asset Hyperlane file reads into one
 * scenario per asset (src/sim/multiAsset.ts). Pure.
 */
import { readBallastScenario } from './ballastScenario.ts';
import { HyperlaneScenarioSchema, isHyperlaneScenario, isMultiAsset, readHyperlaneScenario } from './hyperlane.ts';
import { readMultiAssetScenarios } from './multiAsset.ts';
import type { SimScenario } from './scenario.ts';

/**
 * Reads a scenario document.
 *
 * @throws Error or ZodError as the format's reader does
 */
export function readScenario(doc: unknown): SimScenario {
  return isHyperlaneScenario(doc) ? readHyperlaneScenario(doc) : readBallastScenario(doc);
}

/** A scenario file read: its one scenario, or one per asset of a multi-asset file. */
export interface ScenarioSet {
  /** The file's scenario name. */
  name: string;
  /** Whether the file is multi-asset: its runs merge into one log keyed `"ASSET|chain"` (src/sim/multiAsset.ts). */
  multiAsset: boolean;
  /** The single-asset file's scenario, or one per asset named `<name>/<ASSET>` whose token is the asset. */
  scenarios: SimScenario[];
}

/**
 * Reads a scenario document of any format, multi-asset Hyperlane files included.
 *
 * @throws Error or ZodError as the format's reader does
 */
export function readScenarioSet(doc: unknown): ScenarioSet {
  if (isHyperlaneScenario(doc)) {
    const h = HyperlaneScenarioSchema.parse(doc);
    if (isMultiAsset(h)) return { name: h.name, multiAsset: true, scenarios: readMultiAssetScenarios(doc) };
  }
  const s = readScenario(doc);
  return { name: s.name, multiAsset: false, scenarios: [s] };
}
