/**
 * The Solana JSON-RPC endpoint of the model, as a `fetch` handed to the real Solana adapter (`createSvmAdapter`'s
 * `fetch` option, through web3.js's `Connection`): it answers exactly the methods the adapter calls
 * (src/chains/svm/*.ts) in the shapes web3.js 1.98 parses, over the in-memory cluster, with the schedule's
 * faults: HTTP 503s, a node that lags (answers as of slots ago and refuses, -32016, a `minContextSlot` above the
 * slot of its bank at the request's commitment), a node that forgets signatures, blockhashes handed out already
 * old, and sends that are lost, dropped or slow. `simulateTransaction` honours `sigVerify`,
 * `replaceRecentBlockhash` and `minContextSlot` as a node does (an unsigned message simulates). A
 * method the model does not know answers -32601 and is noted (the test requires none). A dead process's fetch
 * refuses every call.
 */
import { base64 } from '@scure/base';
import type { ProcessHandle } from '../inMemoryNode.ts';
import type { LandedTransaction } from '../../../packages/sandbox/src/svm/ledger.ts';
import { transactionJson } from '../../../packages/sandbox/src/svm/transactionJson.ts';
import type { TransactionErrorJson } from '../../../packages/sandbox/src/svm/txErrors.ts';
import { TOKEN_PROGRAM_ID } from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { ACCOUNT_SIZE, AccountLayout, MINT_SIZE, MintLayout } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import { SOL } from './solAccounts.ts';
import {
  BLOCKHASH_VALID_BLOCKS,
  decodeSolTx,
  decodeSolTxUnverified,
  FINALIZED_DEPTH,
  GENESIS_SLOT,
  SLOT_MS,
  type Level,
  type LandedSolTx,
} from './solChain.ts';
import type { SolWorld } from './solWorld.ts';
import { START_MS } from '../world.ts';

/** The model cluster's genesis hash. */
export const MODEL_GENESIS_HASH = 'BaLLastModeLGenesis1111111111111111111111111';
const SLOTS_PER_EPOCH = 432_000;

class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Params = unknown[];
const cfgOf = (p: Params, i: number): Record<string, unknown> =>
  typeof p[i] === 'object' && p[i] !== null ? (p[i] as Record<string, unknown>) : {};
const levelOf = (cfg: Record<string, unknown>, fallback: Level = 'finalized'): Level => {
  const c = cfg.commitment;
  return c === 'processed' || c === 'confirmed' || c === 'finalized' ? c : fallback;
};

/** The level a transaction landed at `slot` has for a node at `view`. */
function levelAt(slot: number, view: number): Level {
  return view - slot >= FINALIZED_DEPTH ? 'finalized' : view - slot >= 1 ? 'confirmed' : 'processed';
}

function blockTimeSec(slot: number): number {
  return Math.floor((START_MS + (slot - GENESIS_SLOT) * SLOT_MS) / 1000);
}

function mintData(): string {
  const data = Buffer.alloc(MINT_SIZE);
  MintLayout.encode(
    {
      mintAuthorityOption: 0,
      mintAuthority: PublicKey.default,
      supply: 10n ** 15n,
      decimals: 6,
      isInitialized: true,
      freezeAuthorityOption: 0,
      freezeAuthority: PublicKey.default,
    },
    data,
  );
  return base64.encode(data);
}

function tokenAccountData(owner: string, amount: bigint): string {
  const data = Buffer.alloc(ACCOUNT_SIZE);
  AccountLayout.encode(
    {
      mint: new PublicKey(SOL.usdcMint),
      owner: new PublicKey(owner),
      amount,
      delegateOption: 0,
      delegate: PublicKey.default,
      state: 1,
      isNativeOption: 0,
      isNative: 0n,
      delegatedAmount: 0n,
      closeAuthorityOption: 0,
      closeAuthority: PublicKey.default,
    },
    data,
  );
  return base64.encode(data);
}

/** One account as `getMultipleAccounts` / `getAccountInfo` answer it (base64), or null. */
function accountJson(world: SolWorld, address: string, slot: number): Record<string, unknown> | null {
  const chain = world.solana;
  const account = (owner: string, lamports: bigint, data: string, space: number) => ({
    data: [data, 'base64'],
    executable: false,
    lamports: Number(lamports),
    owner,
    rentEpoch: 0,
    space,
  });
  if (address === SOL.treasury) return account('11111111111111111111111111111111', chain.lamportsAt(address, slot), '', 0);
  if (address === SOL.usdcMint) return account(TOKEN_PROGRAM_ID, 1_461_600n, mintData(), MINT_SIZE);
  const owner = address === SOL.treasuryAta ? SOL.treasury : address === SOL.vaultAta ? SOL.vault : null;
  if (owner) return account(TOKEN_PROGRAM_ID, 2_039_280n, tokenAccountData(owner, chain.tokensAt(address, slot)), ACCOUNT_SIZE);
  return null;
}

/** getTransaction's answer for a landed transaction (the sandbox node's renderer). */
function transactionAnswer(t: LandedSolTx): Record<string, unknown> | null {
  if (!t.wire) return null;
  const zeros = t.accountKeys.map(() => 0n);
  const landed: LandedTransaction = {
    signature: t.signature,
    slot: t.slot,
    blockTimeSec: blockTimeSec(t.slot),
    wire: t.wire,
    version: 0,
    err: t.err as TransactionErrorJson | null,
    fee: t.fee,
    logs: t.logs,
    accountKeys: t.accountKeys,
    loaded: { writable: [], readonly: [] },
    preBalances: zeros,
    postBalances: zeros,
    preTokenBalances: [],
    postTokenBalances: [],
    innerInstructions: [],
    computeUnitsConsumed: 5_000n,
    deposits: [],
  };
  return transactionJson(landed, 'json', true);
}

/** Answers one JSON-RPC call. @throws RpcFailure (a JSON-RPC error) or 'http503' */
function answer(world: SolWorld, method: string, p: Params): unknown {
  const chain = world.solana;
  if (method === 'sendTransaction') return send(world, p);
  const fault = world.nextRpcFault(method);
  if (fault?.kind === 'error') throw 'http503';
  if (fault?.kind === 'forget') world.forgetReads = Math.max(world.forgetReads, fault.reads);
  const view = Math.max(GENESIS_SLOT, chain.tip - (fault?.kind === 'lag' ? fault.slots : 0));
  const context = { apiVersion: '2.2.0', slot: view };
  // A node compares `minContextSlot` with the slot of the bank it answers from: the one at the request's
  // commitment (default finalized), not its processed tip.
  const minContext = (cfg: Record<string, unknown>) => {
    const bank = chain.levelSlot(view, levelOf(cfg));
    if (typeof cfg.minContextSlot === 'number' && bank < cfg.minContextSlot)
      throw new RpcFailure(-32016, 'Minimum context slot has not been reached', { contextSlot: bank });
  };
  switch (method) {
    case 'getGenesisHash':
      return MODEL_GENESIS_HASH;
    case 'getVersion':
      return { 'solana-core': '2.2.0', 'feature-set': 0 };
    case 'getSlot':
    case 'getBlockHeight': {
      const cfg = cfgOf(p, 0);
      minContext(cfg);
      return chain.levelSlot(view, levelOf(cfg));
    }
    case 'getEpochInfo': {
      const cfg = cfgOf(p, 0);
      minContext(cfg);
      const slot = chain.levelSlot(view, levelOf(cfg));
      return {
        absoluteSlot: slot,
        blockHeight: slot,
        epoch: Math.floor(slot / SLOTS_PER_EPOCH),
        slotIndex: slot % SLOTS_PER_EPOCH,
        slotsInEpoch: SLOTS_PER_EPOCH,
        transactionCount: chain.ledger.length,
      };
    }
    case 'getLatestBlockhash': {
      const cfg = cfgOf(p, 0);
      minContext(cfg);
      const bank = chain.levelSlot(view, levelOf(cfg)); // the answer's context slot, as a node's
      const slot = bank - (fault?.kind === 'staleBlockhash' ? fault.ageSlots : 0);
      return { context: { ...context, slot: bank }, value: { blockhash: chain.blockhashOf(slot), lastValidBlockHeight: slot + 150 } };
    }
    case 'isBlockhashValid': {
      const cfg = cfgOf(p, 1);
      minContext(cfg);
      const bank = chain.levelSlot(view, levelOf(cfg));
      return { context: { ...context, slot: bank }, value: chain.blockhashValid(String(p[0]), bank) };
    }
    case 'getSignatureStatuses': {
      const forget = world.forgetReads > 0;
      if (forget) world.forgetReads -= 1;
      const value = (p[0] as string[]).map((sig) => {
        const t = forget ? undefined : chain.landedAt(sig, view);
        if (!t) return null;
        const level = levelAt(t.slot, view);
        return {
          slot: t.slot,
          confirmations: level === 'finalized' ? null : view - t.slot,
          err: t.err,
          status: t.err === null ? { Ok: null } : { Err: t.err },
          confirmationStatus: level,
        };
      });
      return { context, value };
    }
    case 'getMultipleAccounts':
    case 'getAccountInfo': {
      const cfg = cfgOf(p, 1);
      minContext(cfg);
      const slot = chain.levelSlot(view, levelOf(cfg));
      const value =
        method === 'getAccountInfo' ? accountJson(world, String(p[0]), slot) : (p[0] as string[]).map((a) => accountJson(world, a, slot));
      return { context: { ...context, slot }, value };
    }
    case 'getBalance': {
      const cfg = cfgOf(p, 1);
      minContext(cfg);
      const slot = chain.levelSlot(view, levelOf(cfg));
      return { context: { ...context, slot }, value: Number(chain.lamportsAt(String(p[0]), slot)) };
    }
    case 'simulateTransaction':
      return simulate(world, p, view, minContext);
    case 'getSignaturesForAddress': {
      const cfg = cfgOf(p, 1);
      minContext(cfg);
      const slot = chain.levelSlot(view, levelOf(cfg));
      const limit = typeof cfg.limit === 'number' ? cfg.limit : 1000;
      const all = chain.ledger.filter((t) => t.slot <= slot && t.accountKeys.includes(String(p[0]))).reverse();
      const from = typeof cfg.before === 'string' ? all.findIndex((t) => t.signature === cfg.before) + 1 : 0;
      return all.slice(from, from + limit).map((t) => ({
        signature: t.signature,
        slot: t.slot,
        err: t.err,
        memo: null,
        blockTime: blockTimeSec(t.slot),
        confirmationStatus: levelAt(t.slot, view),
      }));
    }
    case 'getTransaction': {
      const cfg = cfgOf(p, 1);
      minContext(cfg);
      const t = chain.landedAt(String(p[0]), chain.levelSlot(view, levelOf(cfg)));
      return t ? transactionAnswer(t) : null;
    }
    default:
      world.unknownMethods.add(method);
      throw new RpcFailure(-32601, `Method not found: ${method}`);
  }
}

/**
 * `simulateTransaction` as a node answers it (https://solana.com/docs/rpc/http/simulatetransaction), from the bank
 * at the request's commitment: `sigVerify` (default false) checks the signatures first (-32003 when one fails);
 * `replaceRecentBlockhash` (default false) runs the message under the bank's latest blockhash, answered as
 * `replacementBlockhash`, and may not be combined with `sigVerify` (-32602); without it a blockhash the bank does
 * not accept fails the run with `BlockhashNotFound`; a `minContextSlot` above the bank's slot is refused (-32016).
 */
function simulate(world: SolWorld, p: Params, view: number, minContext: (cfg: Record<string, unknown>) => void): unknown {
  const chain = world.solana;
  const cfg = cfgOf(p, 1);
  const sigVerify = cfg.sigVerify === true;
  const replace = cfg.replaceRecentBlockhash === true;
  if (sigVerify && replace) throw new RpcFailure(-32602, 'Invalid params: sigVerify may not be used with replaceRecentBlockhash');
  minContext(cfg);
  const slot = chain.levelSlot(view, levelOf(cfg));
  const context = { apiVersion: '2.2.0', slot };
  let d;
  try {
    d = sigVerify ? decodeSolTx(String(p[0])) : decodeSolTxUnverified(String(p[0]));
  } catch (error) {
    if (sigVerify) throw new RpcFailure(-32003, `Transaction signature verification failure: ${(error as Error).message}`); // decode throws Error
    throw new RpcFailure(-32602, `invalid transaction: ${(error as Error).message}`); // decode throws Error
  }
  const replacementBlockhash = replace ? { blockhash: chain.blockhashOf(slot), lastValidBlockHeight: slot + BLOCKHASH_VALID_BLOCKS } : null;
  const value = (err: unknown, logs: string[], unitsConsumed: number) => ({
    context,
    value: { err, logs, accounts: null, unitsConsumed, returnData: null, replacementBlockhash },
  });
  if (!replace && !chain.blockhashValid(d.blockhash, slot)) return value('BlockhashNotFound', [], 0);
  if (!replace && chain.landedAt(d.signature, slot)) return value('AlreadyProcessed', [], 0);
  if (chain.lamportsAt(d.payer, slot) < d.fee) return value('InsufficientFundsForFee', [], 0);
  const run = chain.execute(d, slot);
  return value(run.err, run.logs, 5_000);
}

function send(world: SolWorld, p: Params): string {
  const raw = String(p[0]);
  let d;
  try {
    d = decodeSolTx(raw);
  } catch (error) {
    throw new RpcFailure(-32003, `Transaction signature verification failure: ${(error as Error).message}`);
  }
  const fault = world.nextSolSendFault();
  if (fault?.kind === 'lost') throw 'http503';
  world.posted.set(d.signature, raw);
  const tip = world.solana.tip;
  world.solana.queue(d, base64.decode(raw), fault?.kind === 'drop' ? null : tip + (fault?.kind === 'slow' ? fault.slots : 1));
  return d.signature;
}

const stringify = (v: unknown) => JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? Number(x) : x));

/** One process's JSON-RPC `fetch` over the world's cluster. */
export function inMemorySolanaRpc(world: SolWorld, proc: ProcessHandle): typeof globalThis.fetch {
  return async (_input, init) => {
    if (!proc.alive) throw new Error(`process ${proc.id} has ended; no more JSON-RPC calls`);
    const body: unknown = JSON.parse(String(init?.body));
    const one = (req: { id: unknown; method: string; params?: Params }) => {
      try {
        return { jsonrpc: '2.0', id: req.id, result: answer(world, req.method, req.params ?? []) };
      } catch (error) {
        if (error === 'http503') throw error;
        if (error instanceof RpcFailure)
          return {
            jsonrpc: '2.0',
            id: req.id,
            error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
          };
        throw error;
      }
    };
    try {
      const out = Array.isArray(body) ? body.map(one) : one(body as { id: unknown; method: string; params?: Params });
      return new Response(stringify(out), { status: 200, headers: { 'content-type': 'application/json' } });
    } catch (error) {
      if (error === 'http503') return new Response('service unavailable (model fault)', { status: 503, statusText: 'Service Unavailable' });
      throw error;
    }
  };
}
