/**
 * The model's nodes: the in-memory node of src/sim/node.ts with the model's operator (the treasury, anvil dev key 0,
 * which speeds up or cancels) and fees.
 */
import type { PublicClient } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { InMemoryChain } from '../../packages/ballast/src/sim/chain.ts';
import { inMemoryNode as nodeOver, type NodeWorld, type ProcessHandle } from '../../packages/ballast/src/sim/node.ts';
import { MODEL_FEES } from './inMemoryRelay.ts';
import { ACCOUNTS } from './world.ts';

export type { NodeWorld, ProcessHandle } from '../../packages/ballast/src/sim/node.ts';

/** The operator's wallet: same key as the treasury (anvil dev key 0), used to speed up or cancel. */
const OPERATOR = privateKeyToAccount(ACCOUNTS.treasury.privateKey);

/** A model process's view of an in-memory chain (see src/sim/node.ts). */
export function inMemoryNode(world: NodeWorld, chain: InMemoryChain, proc: ProcessHandle): PublicClient {
  return nodeOver(world, chain, proc, { operator: OPERATOR, fees: MODEL_FEES });
}
