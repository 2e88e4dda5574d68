/**
 * Transaction JSON-RPC methods of the sandbox Solana node: sendTransaction (base58 or base64 wire, legacy or
 * v0, preflight unless `skipPreflight`), simulateTransaction, getSignatureStatuses, getTransaction,
 * getSignaturesForAddress and getFeeForMessage.
 *
 * Node-level refusals (bad signature, AlreadyProcessed, BlockhashNotFound, lookup-table and fee-payer errors)
 * answer an error whatever `skipPreflight` says: the sandbox is its own leader, so a transaction that cannot
 * land is refused at once instead of being forwarded and silently dropped. Only execution failures depend on
 * `skipPreflight`: with preflight they answer -32002 and nothing lands; without, they land with the fee
 * charged and `err` set.
 */
import { VersionedMessage } from '@solana/web3.js';
import { base64 } from '@scure/base';
import { z } from 'zod';
import { transactionFee } from './fees.ts';
import { withContext, type RpcContext, type RpcMethodTable } from './rpcContext.ts';
import { RPC_ERROR, RpcError, invalidParams } from './rpcError.ts';
import { commitmentSchema, normalizeCommitment, parseParams, pubkeySchema, readConfigShape } from './rpcParams.ts';
import { signatureInfoJson, signatureStatusJson, transactionJson } from './transactionJson.ts';
import { decodeWireTransaction } from './wireTransaction.ts';

const MAX_SIGNATURE_STATUSES = 256;
/** Without `searchTransactionHistory`, only this many recent slots are searched (the status cache). */
const STATUS_CACHE_SLOTS = 300;

const signatureSchema = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/, 'Invalid param: not a base58 signature');

const sendConfigSchema = z.object({
  encoding: z.enum(['base58', 'base64']).nullish(),
  skipPreflight: z.boolean().nullish(),
  preflightCommitment: commitmentSchema.nullish(),
  maxRetries: z.number().int().nonnegative().nullish(),
  minContextSlot: z.number().int().nonnegative().nullish(),
});

const simulateConfigSchema = z.object({
  ...readConfigShape,
  encoding: z.enum(['base58', 'base64']).nullish(),
  sigVerify: z.boolean().nullish(),
  replaceRecentBlockhash: z.boolean().nullish(),
  accounts: z.unknown().optional(),
  innerInstructions: z.boolean().nullish(),
});

const getTransactionConfigSchema = z.union([
  z.enum(['json', 'jsonParsed', 'base64', 'base58']),
  z.object({
    ...readConfigShape,
    encoding: z.enum(['json', 'jsonParsed', 'base64', 'base58']).nullish(),
    maxSupportedTransactionVersion: z.number().int().nonnegative().nullish(),
  }),
]);

/** The transaction methods. */
export function transactionMethods(ctx: RpcContext): RpcMethodTable {
  const { engine } = ctx;
  /** True when a transaction landed in `slot` is visible at `commitment`. */
  const visible = (slot: number, commitment: z.infer<typeof commitmentSchema> | null | undefined): boolean =>
    slot <= engine.clock.slotAt(normalizeCommitment(commitment));
  return {
    sendTransaction: (params) => {
      const [encoded, config] = parseParams(z.tuple([z.string(), sendConfigSchema.nullish()]), params);
      const decoded = decodeWireTransaction(encoded, config?.encoding ?? 'base58');
      if (ctx.faults.takeDrop()) {
        ctx.logger.info({ signature: decoded.signature }, 'sendTransaction dropped (fault)');
        return decoded.signature;
      }
      return engine.submit(decoded, { skipPreflight: config?.skipPreflight === true }).signature;
    },
    simulateTransaction: (params) => {
      const [encoded, config] = parseParams(z.tuple([z.string(), simulateConfigSchema.nullish()]), params);
      const replace = config?.replaceRecentBlockhash === true;
      if (replace && config?.sigVerify === true) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash');
      const decoded = decodeWireTransaction(encoded, config?.encoding ?? 'base58');
      const sim = engine.simulate(decoded, { sigVerify: config?.sigVerify === true, replaceRecentBlockhash: replace });
      const latest = engine.clock.latestBlockhash('confirmed');
      return withContext(ctx, {
        err: sim.err,
        logs: sim.logs,
        accounts: null,
        unitsConsumed: sim.unitsConsumed,
        returnData: null,
        innerInstructions: null,
        replacementBlockhash: replace ? { blockhash: latest.blockhash, lastValidBlockHeight: latest.lastValidBlockHeight } : null,
      });
    },
    getSignatureStatuses: (params) => {
      const config = z.object({ searchTransactionHistory: z.boolean().nullish() });
      const [signatures, cfg] = parseParams(z.tuple([z.array(signatureSchema), config.nullish()]), params);
      if (signatures.length > MAX_SIGNATURE_STATUSES) throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`);
      const slot = engine.clock.slot;
      return withContext(
        ctx,
        signatures.map((s) => {
          const tx = engine.ledger.get(s);
          if (tx === undefined) return null;
          if (cfg?.searchTransactionHistory !== true && slot - tx.slot > STATUS_CACHE_SLOTS) return null;
          return signatureStatusJson(tx, slot);
        }),
      );
    },
    getTransaction: (params) => {
      const [signature, config] = parseParams(z.tuple([signatureSchema, getTransactionConfigSchema.nullish()]), params);
      const cfg = typeof config === 'string' ? { encoding: config } : config;
      const encoding = cfg?.encoding ?? 'json';
      if (encoding === 'jsonParsed' || encoding === 'base58')
        throw invalidParams(`encoding ${encoding} is not supported by the sandbox node; use json or base64`);
      const tx = engine.ledger.get(signature);
      if (tx === undefined || !visible(tx.slot, typeof config === 'string' ? undefined : config?.commitment)) return null;
      const maxVersion =
        typeof cfg === 'object' && cfg !== null && 'maxSupportedTransactionVersion' in cfg ? cfg.maxSupportedTransactionVersion : undefined;
      if (tx.version === 0 && (maxVersion === undefined || maxVersion === null)) {
        throw new RpcError(
          RPC_ERROR.UNSUPPORTED_TRANSACTION_VERSION,
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
        );
      }
      return transactionJson(tx, encoding, maxVersion !== undefined && maxVersion !== null);
    },
    getSignaturesForAddress: (params) => {
      const config = z.object({
        ...readConfigShape,
        limit: z.number().int().min(1).max(1000).nullish(),
        before: signatureSchema.nullish(),
        until: signatureSchema.nullish(),
      });
      const [address, cfg] = parseParams(z.tuple([pubkeySchema, config.nullish()]), params);
      const slot = engine.clock.slot;
      return engine.ledger
        .signaturesFor(address, {
          ...(cfg?.limit ? { limit: cfg.limit } : {}),
          ...(cfg?.before ? { before: cfg.before } : {}),
          ...(cfg?.until ? { until: cfg.until } : {}),
        })
        .filter((tx) => visible(tx.slot, cfg?.commitment))
        .map((tx) => signatureInfoJson(tx, slot));
    },
    getFeeForMessage: (params) => {
      const [encoded] = parseParams(z.tuple([z.string(), z.object(readConfigShape).nullish()]), params);
      let message: VersionedMessage;
      try {
        message = VersionedMessage.deserialize(base64.decode(encoded));
      } catch (error) {
        throw invalidParams(`failed to deserialize message: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!engine.clock.isBlockhashValid(message.recentBlockhash)) return withContext(ctx, null);
      const keys = message.staticAccountKeys.map((k) => k.toBase58());
      const fee = transactionFee({
        numRequiredSignatures: message.header.numRequiredSignatures,
        instructions: message.compiledInstructions.map((ix) => ({ programId: keys[ix.programIdIndex] ?? '', data: ix.data })),
      });
      return withContext(ctx, fee);
    },
  };
}
