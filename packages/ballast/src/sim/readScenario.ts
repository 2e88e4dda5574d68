/**
 * Reads a parsed scenario document in either format: Hyperlane's rebalancer-sim (it has `transfers` and
 * `defaultInitialCollateral`) or Ballast's own (docs/simulate.md). Pure.
 */
import { readBallastScenario } from './ballastScenario.ts';
import { isHyperlaneScenario, readHyperlaneScenario } from './hyperlane.ts';
import type { SimScenario } from './scenario.ts';

/**
 * Reads a scenario document.
 *
 * @throws Error or ZodError as the format's reader does
 */
export function readScenario(doc: unknown): SimScenario {
  return isHyperlaneScenario(doc) ? readHyperlaneScenario(doc) : readBallastScenario(doc);
}
