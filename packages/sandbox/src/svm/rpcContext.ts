/**
 * What every JSON-RPC method handler of the sandbox Solana node gets, the handler type, and the
 * `{context, value}` envelope validators wrap most results in.
 */
import type { Keypair } from '@solana/web3.js';
import type { Logger } from 'pino';
import type { NodeFaults } from './nodeFaults.ts';
import type { SvmEngine } from './svmEngine.ts';

/** The Solana RPC API version the node reports (`context.apiVersion`, getVersion). */
export const RPC_API_VERSION = '2.2.0';

/** State shared by the method handlers. */
export interface RpcContext {
  engine: SvmEngine;
  /** Funds requestAirdrop. */
  faucet: Keypair;
  faults: NodeFaults;
  logger: Logger;
}

/** A method handler: positional params in, JSON-able result out; throws RpcError to answer an error. */
export type RpcHandler = (params: unknown) => unknown;

/** Method name → handler. */
export type RpcMethodTable = Record<string, RpcHandler>;

/** `{context: {apiVersion, slot}, value}` at the node's latest slot. */
export function withContext<T>(ctx: RpcContext, value: T): { context: { apiVersion: string; slot: number }; value: T } {
  return { context: { apiVersion: RPC_API_VERSION, slot: ctx.engine.clock.slot }, value };
}
