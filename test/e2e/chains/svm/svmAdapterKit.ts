/**
 * Helpers for the Solana adapter's end-to-end tests: a fetch that records (and may rewrite) the JSON-RPC calls
 * the adapter makes, an adapter wired to a sandbox node, an address lookup table created on the node, and a
 * Solana-origin quote built as the Relay API builds one (`depositAccounts` + `encodeDepositData`, sender =
 * depositor = our wallet) from the shared Solana test quote (test/fixtures/svmQuote.ts), re-pointed at the
 * node's USDC mint and re-hashed, so `verifyQuote` passes on it; and a funded node with its adapter and lookup
 * table, started before a file's tests and stopped after them.
 */
import { AddressLookupTableProgram, Keypair, PublicKey, type Connection } from '@solana/web3.js';
import type { Hex } from 'viem';
import { afterAll, beforeAll } from 'vitest';
import { createSvmAdapter, type SvmChainAdapter } from '../../../../packages/ballast/src/chains/svm/adapter.ts';
import type { SvmFinality } from '../../../../packages/ballast/src/chains/svm/rpc.ts';
import { svmKeypairSigner } from '../../../../packages/ballast/src/chains/svm/signer.ts';
import { computeOrderId } from '../../../../packages/protocol/src/protocol/orderId.ts';
import {
  ASSOCIATED_TOKEN_PROGRAM_ID,
  associatedTokenAddress,
  SYSTEM_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import { slugVmTypesFromChains } from '../../../../packages/protocol/src/protocol/vmTypes.ts';
import { ChainsResponseSchema, QuoteResponseSchema } from '../../../../packages/protocol/src/relay/schemas.ts';
import { startSolanaNode, type SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';
import type { SvmInstruction } from '../../../../packages/ballast/src/verify/deposit/svmStepData.ts';
import type { VerifyQuoteInput } from '../../../../packages/ballast/src/verify/types.ts';
import {
  computeBudgetInstruction,
  depositInstruction,
  stepData,
  SVM_CHAIN_ID,
  SVM_DEPOSITORY,
  SVM_PDAS,
  SVM_USDC,
  svmQuoteInput,
  type SvmPaymentKind,
} from '../../../fixtures/svmQuote.ts';
import { connect, signedV0, waitFor } from '../../sandbox/svm/svmTestKit.ts';

/** Our wallet: the key behind the shared test quote's `SVM_USER`. */
export const WALLET = Keypair.fromSeed(new Uint8Array(32).fill(1));
/** The wallet's config name. */
export const WALLET_NAME = 'treasury';
/** The depository program the node stands in for: the one the shared test quote's GET /chains names. */
export const DEPOSITORY = SVM_DEPOSITORY;
export { SVM_PDAS };

/** A JSON-RPC response body (what a rewrite receives and returns). */
export type RpcBody = { jsonrpc: string; id: unknown; result?: unknown; error?: unknown };

/** Records the JSON-RPC methods sent through it; a rewrite may change the answer to one method. */
export interface RpcTap {
  fetch: typeof globalThis.fetch;
  /** Methods in call order (a batch adds each of its methods). */
  calls: string[];
  /** The requests in call order: method and params as sent. */
  requests: { method: string; params: unknown }[];
  /** Rewrites answers to `method` until cleared (`undefined`). */
  rewrite(method: string, fn: ((body: RpcBody, params: unknown) => RpcBody) | undefined): void;
}

/** A tap over the global fetch. */
export function rpcTap(): RpcTap {
  const calls: string[] = [];
  const requests: { method: string; params: unknown }[] = [];
  const rewrites = new Map<string, (body: RpcBody, params: unknown) => RpcBody>();
  const tapped: typeof globalThis.fetch = async (input, init) => {
    const request = JSON.parse(String(init?.body)) as { method: string; params?: unknown } | { method: string }[]; // web3.js posts JSON-RPC
    const list = Array.isArray(request) ? request : [request];
    calls.push(...list.map((r) => r.method));
    requests.push(...list.map((r) => ({ method: r.method, params: 'params' in r ? r.params : undefined })));
    const response = await fetch(input, init);
    const single = Array.isArray(request) ? undefined : request;
    const fn = single ? rewrites.get(single.method) : undefined;
    if (!fn || !single) return response;
    const body = (await response.json()) as RpcBody; // a JSON-RPC answer
    return new Response(JSON.stringify(fn(body, 'params' in single ? single.params : undefined)), {
      status: response.status,
      headers: { 'content-type': 'application/json' },
    });
  };
  return {
    fetch: tapped,
    calls,
    requests,
    rewrite: (method, fn) => void (fn ? rewrites.set(method, fn) : rewrites.delete(method)),
  };
}

/** The adapter of the node's chain, holding {@link WALLET} as `treasury`. */
export function adapterFor(
  node: SolanaSandboxNode,
  opts: { tap?: RpcTap; commitment?: SvmFinality; genesisHash?: string; pollIntervalMs?: number } = {},
): SvmChainAdapter {
  return createSvmAdapter({
    name: 'solana',
    chainId: SVM_CHAIN_ID,
    rpcUrl: node.rpcUrl,
    wsUrl: node.wsUrl,
    commitment: opts.commitment ?? 'confirmed',
    maxMicroLamportsPerCu: 1_000_000n,
    maxComputeUnits: 1_400_000,
    signers: new Map([[WALLET_NAME, svmKeypairSigner(WALLET)]]),
    pollIntervalMs: opts.pollIntervalMs ?? 100,
    ...(opts.tap ? { fetch: opts.tap.fetch } : {}),
    ...(opts.genesisHash ? { genesisHash: opts.genesisHash } : {}),
  });
}

/** What the test lookup table holds: the depository's accounts and programs, the node's USDC and the vault's USDC account. */
export function tableContents(node: SolanaSandboxNode): string[] {
  return [
    SVM_PDAS.relayDepository,
    SVM_PDAS.vault,
    SYSTEM_PROGRAM_ID,
    TOKEN_PROGRAM_ID,
    ASSOCIATED_TOKEN_PROGRAM_ID,
    node.usdcMint,
    associatedTokenAddress(SVM_PDAS.vault, node.usdcMint),
  ];
}

/** Creates and extends a lookup table on the node, paid by `payer`; resolves once its addresses are usable. */
export async function createLookupTable(connection: Connection, payer: Keypair, addresses: readonly string[]): Promise<string> {
  const recentSlot = await connection.getSlot();
  const [create, table] = AddressLookupTableProgram.createLookupTable({ authority: payer.publicKey, payer: payer.publicKey, recentSlot });
  const extend = AddressLookupTableProgram.extendLookupTable({
    lookupTable: table,
    authority: payer.publicKey,
    payer: payer.publicKey,
    addresses: addresses.map((a) => new PublicKey(a)),
  });
  const { tx } = await signedV0(connection, [payer], [create, extend]);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const extendedAt = (await connection.getSignatureStatus(signature)).value?.slot ?? Number.MAX_SAFE_INTEGER;
  await waitFor(async () => ((await connection.getSlot()) > extendedAt ? true : undefined));
  return table.toBase58();
}

/** A verifiable Solana-origin quote for the node and what it pays. */
export interface SandboxQuote {
  input: VerifyQuoteInput;
  orderId: Hex;
  currency: string;
  amount: bigint;
  /** The deposit step item, as the executor hands it to the adapter. */
  item: { stepId: string; itemIndex: number; data: Record<string, unknown> };
}

let orders = 0;

/**
 * The shared test quote paying SOL (5 SOL) or the node's USDC (1000 USDC), its single step item carrying the
 * deposit (token: after two compute-budget instructions) compiled against `table`. Each call is a new order
 * (another salt, so another order id).
 */
export function sandboxQuote(node: SolanaSandboxNode, kind: SvmPaymentKind, table: string): SandboxQuote {
  const base = svmQuoteInput(kind);
  // The token case pays the node's USDC mint instead of mainnet USDC: swap the address everywhere, re-hash.
  const swap = <T>(value: T, schema: { parse(v: unknown): T }): T =>
    kind === 'token' ? schema.parse(JSON.parse(JSON.stringify(value).replaceAll(SVM_USDC, node.usdcMint))) : value;
  const quote = swap(base.input.quote, QuoteResponseSchema);
  const chains = swap(base.input.chains, ChainsResponseSchema);
  const v2 = quote.protocol!.v2!; // the shared test quote carries protocol.v2
  orders += 1;
  v2.orderData.salt = `0x${orders.toString(16).padStart(64, '0')}`;
  const orderId = computeOrderId(v2.orderData, slugVmTypesFromChains(chains));
  v2.orderId = orderId;
  const currency = kind === 'native' ? SYSTEM_PROGRAM_ID : node.usdcMint;
  const { amount } = base.facts;
  const deposit = depositInstruction({ kind, amount, id: orderId, ...(kind === 'token' ? { mint: node.usdcMint } : {}) });
  const instructions: SvmInstruction[] =
    kind === 'native' ? [deposit] : [computeBudgetInstruction(2, 200_000n), computeBudgetInstruction(3, 1_000n), deposit];
  const data = stepData(instructions, [table]);
  const step = quote.steps[0]!; // one deposit step
  step.items = [{ status: 'incomplete', data }];
  const input: VerifyQuoteInput = { ...base.input, quote, chains, expect: { ...base.input.expect, originCurrency: currency } };
  return { input, orderId, currency, amount, item: { stepId: step.id, itemIndex: 0, data } };
}

/** The node, adapter and lookup table of {@link adapterNodePerFile}; read its members inside tests only. */
export interface AdapterNode {
  readonly node: SolanaSandboxNode;
  /** {@link adapterFor} the node. */
  readonly adapter: SvmChainAdapter;
  /** A lookup table holding {@link tableContents}, created by {@link WALLET}. */
  readonly table: string;
}

/**
 * Before the calling file's tests: starts a sandbox Solana node standing in for {@link DEPOSITORY}, airdrops
 * `funding.lamports` to {@link WALLET}, mints `funding.usdcBaseUnits` of the node's USDC to it (when given)
 * and creates the lookup table; after them, closes the node. Call once at the top level of a test file.
 *
 * @param funding lamports and USDC base units (6 decimals) for {@link WALLET}
 * @throws Error (from its members) when read before the node has started
 */
export function adapterNodePerFile(funding: { lamports: bigint; usdcBaseUnits?: bigint }): AdapterNode {
  let started: { node: SolanaSandboxNode; adapter: SvmChainAdapter; table: string } | undefined;
  let node: SolanaSandboxNode | undefined;
  beforeAll(async () => {
    node = await startSolanaNode({ depositoryProgramId: DEPOSITORY });
    const connection = connect(node);
    const adapter = adapterFor(node);
    const me = WALLET.publicKey.toBase58();
    await node.airdrop(me, funding.lamports);
    if (funding.usdcBaseUnits !== undefined) await node.mintTo(me, node.usdcMint, funding.usdcBaseUnits);
    const table = await createLookupTable(connection, WALLET, tableContents(node));
    started = { node, adapter, table };
  });
  afterAll(async () => {
    await node?.close();
  });
  const now = () => {
    if (started === undefined) throw new Error('adapterNodePerFile(): the node has not started (read it inside a test)');
    return started;
  };
  return {
    get node() {
      return now().node;
    },
    get adapter() {
      return now().adapter;
    },
    get table() {
      return now().table;
    },
  };
}
