/**
 * vitest global setup of the tiers that start sandboxes: compiles the sandbox contracts once, before any worker
 * starts, when the on-disk cache has no entry (a fresh clone). Otherwise the first sandbox of each worker compiles
 * them at once: solc-js takes seconds of CPU and blocks its worker's event loop, three times over on two cores.
 */
import { getArtifacts } from '../../packages/sandbox/src/contracts/compile.ts';

/** Fills `node_modules/.cache/ballast-sandbox/` (a cache hit reads one small file). */
export default async function setup(): Promise<void> {
  await getArtifacts();
}
