/**
 * Cluster and clock JSON-RPC methods of the sandbox Solana node: slots, block heights, epochs, blockhashes,
 * version / genesis / health / identity, prioritization fees (always none) and requestAirdrop (a real
 * transfer from the node's faucet).
 */
import { z } from 'zod';
import { airdrop } from './nodeWallets.ts';
import { RPC_API_VERSION, withContext, type RpcContext, type RpcMethodTable } from './rpcContext.ts';
import { RPC_ERROR, RpcError, invalidParams } from './rpcError.ts';
import { normalizeCommitment, parseParams, pubkeySchema, readConfigSchema } from './rpcParams.ts';

const optionalConfig = z.tuple([readConfigSchema.nullish()]);

/** The cluster methods. */
export function clusterMethods(ctx: RpcContext): RpcMethodTable {
  const { engine } = ctx;
  const slotAt = (params: unknown): number => engine.clock.slotAt(normalizeCommitment(parseParams(optionalConfig, params)[0]?.commitment));
  return {
    getSlot: (params) => slotAt(params),
    getBlockHeight: (params) => slotAt(params),
    getTransactionCount: () => engine.transactionCount,
    getEpochInfo: (params) => {
      const slot = slotAt(params);
      const slotsPerEpoch = Number(engine.svm.getEpochSchedule().slotsPerEpoch);
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: Math.floor(slot / slotsPerEpoch),
        slotIndex: slot % slotsPerEpoch,
        slotsInEpoch: slotsPerEpoch,
        transactionCount: engine.transactionCount,
      };
    },
    getEpochSchedule: () => {
      const s = engine.svm.getEpochSchedule();
      return {
        firstNormalEpoch: s.firstNormalEpoch,
        firstNormalSlot: s.firstNormalSlot,
        leaderScheduleSlotOffset: s.leaderScheduleSlotOffset,
        slotsPerEpoch: s.slotsPerEpoch,
        warmup: s.warmup,
      };
    },
    getVersion: () => ({ 'solana-core': RPC_API_VERSION, 'feature-set': 0 }),
    getGenesisHash: () => engine.clock.genesisHash,
    getHealth: () => 'ok',
    getIdentity: () => ({ identity: ctx.faucet.publicKey.toBase58() }),
    getFirstAvailableBlock: () => 0,
    minimumLedgerSlot: () => 0,
    getLatestBlockhash: (params) => {
      const latest = engine.clock.latestBlockhash(normalizeCommitment(parseParams(optionalConfig, params)[0]?.commitment));
      return withContext(ctx, { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight });
    },
    isBlockhashValid: (params) => {
      const [blockhash] = parseParams(z.tuple([z.string(), readConfigSchema.nullish()]), params);
      return withContext(ctx, engine.clock.isBlockhashValid(blockhash));
    },
    getBlockTime: (params) => {
      const [slot] = parseParams(z.tuple([z.number().int().nonnegative()]), params);
      const info = engine.clock.slotInfo(slot);
      if (info === undefined) throw new RpcError(-32004, `Block not available for slot ${slot}`);
      return info.blockTimeSec;
    },
    getRecentPrioritizationFees: (params) => {
      parseParams(z.tuple([z.array(pubkeySchema).max(128).nullish()]), params);
      return [];
    },
    requestAirdrop: (params) => {
      const [address, lamports] = parseParams(z.tuple([pubkeySchema, z.number().int().positive(), readConfigSchema.nullish()]), params);
      if (!Number.isSafeInteger(lamports)) throw invalidParams('lamports must be a safe integer');
      try {
        return airdrop(engine, ctx.faucet, address, BigInt(lamports)).signature;
      } catch (error) {
        throw new RpcError(RPC_ERROR.INTERNAL_ERROR, `airdrop request failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  };
}
