/**
 * Helpers for the sandbox's Solana and Bitcoin end-to-end tests, with plain clients only (web3.js, bitcoinjs +
 * ecpair, viem, fetch): request a quote, verify it with Ballast's verifier (origin facts read from the nodes),
 * sign and send the deposit the quote describes, and follow the request status.
 */
import { Connection, Keypair, PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { initEccLib, networks, Psbt } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { expect } from 'vitest';
import {
  ChainsResponseSchema,
  EvmTxDataSchema,
  IntentStatusSchema,
  QuoteResponseSchema,
  type ChainsResponse,
  type IntentStatus,
  type QuoteResponse,
} from '../../../packages/protocol/src/relay/schemas.ts';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import type { OriginChainFacts } from '../../../packages/ballast/src/verify/deposit/types.ts';
import { verifyQuote, type QuoteExpectations, type Verdict } from '../../../packages/ballast/src/verify/verifyQuote.ts';

initEccLib(ecc);
export const ECPair = ECPairFactory(ecc);

export const SOLANA_ID = 792703809;
export const BITCOIN_ID = 8253038;
export const SOL = '11111111111111111111111111111111';
export const BTC = 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8';
export const ZERO: Address = '0x0000000000000000000000000000000000000000';

/** A POST /quote/v2 body (EXACT_INPUT, protocol data on) merged with `over`. */
export function quoteBody(over: Record<string, unknown>): Record<string, unknown> {
  return { tradeType: 'EXACT_INPUT', includeProtocolData: true, ...over };
}

/** POSTs a quote request; returns the HTTP status and the JSON body. */
export async function postQuote(s: Sandbox, body: Record<string, unknown>): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${s.apiUrl}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> }; // the sandbox answers JSON objects
}

/** Requests a quote that must succeed; returns it parsed by Ballast's schema. */
export async function quote(s: Sandbox, body: Record<string, unknown>): Promise<QuoteResponse> {
  const { status, json } = await postQuote(s, quoteBody(body));
  expect(status, JSON.stringify(json)).toBe(200);
  return QuoteResponseSchema.parse(json);
}

/** GET /chains, parsed. */
export async function chains(s: Sandbox): Promise<ChainsResponse> {
  return ChainsResponseSchema.parse(await (await fetch(`${s.apiUrl}/chains`)).json());
}

/** Our unspent outputs on the sandbox's Bitcoin node (Esplora), as the verifier's origin facts. */
export async function bitcoinUtxos(s: Sandbox, address: string): Promise<OriginChainFacts> {
  const list = (await (await fetch(`${s.bitcoin!.esploraUrl}/address/${address}/utxo`)).json()) as {
    txid: string;
    vout: number;
    value: number;
    status: { confirmed: boolean };
  }[]; // Esplora utxo JSON
  return { utxos: list.map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value), confirmed: u.status.confirmed })) };
}

/** Verifies a quote against our own expectations and GET /chains. */
export async function verify(s: Sandbox, q: QuoteResponse, expect: QuoteExpectations, origin: OriginChainFacts): Promise<Verdict> {
  return verifyQuote({ quote: q, chains: await chains(s), expect, nowSec: Math.floor(Date.now() / 1000), origin });
}

/** Ids of the rules a verdict failed. */
export const failed = (v: Verdict): string[] => v.rules.filter((r) => !r.ok).map((r) => r.rule);

/** Signs and sends a Solana-origin quote's single step item with `payer`; returns the confirmed signature. */
export async function sendSolanaDeposit(s: Sandbox, q: QuoteResponse, payer: Keypair): Promise<string> {
  const data = q.steps[0]!.items[0]!.data as {
    instructions: { keys: { pubkey: string; isSigner: boolean; isWritable: boolean }[]; programId: string; data: string }[];
  }; // Solana step data; the verifier parsed it before
  const connection = new Connection(s.solana!.rpcUrl, { wsEndpoint: s.solana!.wsUrl, commitment: 'confirmed' });
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const instructions = data.instructions.map(
    (ix) =>
      new TransactionInstruction({
        programId: new PublicKey(ix.programId),
        keys: ix.keys.map((k) => ({ pubkey: new PublicKey(k.pubkey), isSigner: k.isSigner, isWritable: k.isWritable })),
        data: Buffer.from(ix.data, 'hex'),
      }),
  );
  const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  const signature = await connection.sendRawTransaction(tx.serialize());
  const result = await connection.confirmTransaction({ signature, blockhash, lastValidBlockHeight }, 'confirmed');
  expect(result.value.err).toBeNull();
  return signature;
}

/** Signs a Bitcoin-origin quote's PSBT with `wif` (every input, SIGHASH_ALL), finalizes and extracts it. */
export function signPsbt(q: QuoteResponse, wif: string): { hex: string; txid: string } {
  const psbt = Psbt.fromHex((q.steps[0]!.items[0]!.data as { psbt: string }).psbt, { network: networks.regtest }); // Bitcoin step data
  psbt.signAllInputs(ECPair.fromWIF(wif, networks.regtest));
  psbt.finalizeAllInputs();
  const tx = psbt.extractTransaction();
  return { hex: tx.toHex(), txid: tx.getId() };
}

/** POSTs a raw transaction to the sandbox's Esplora; returns the txid it answers. */
export async function broadcastBitcoin(s: Sandbox, hex: string): Promise<string> {
  const res = await fetch(`${s.bitcoin!.esploraUrl}/tx`, { method: 'POST', body: hex });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return text;
}

/** Sends every step item of an EVM-origin quote from `account` on the chain the items name; returns the last hash. */
export async function sendEvmSteps(s: Sandbox, q: QuoteResponse, account = s.accounts.treasury): Promise<Hex> {
  let last: Hex | undefined;
  for (const step of q.steps) {
    for (const item of step.items) {
      const d = EvmTxDataSchema.parse(item.data);
      const chain = s.chains.find((c) => c.def.chainId === d.chainId)!;
      const wallet = createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) });
      const hash = await wallet.sendTransaction({ to: d.to as Address, data: d.data as Hex, value: BigInt(d.value) }); // schema checked both
      expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe('success');
      last = hash;
    }
  }
  if (!last) throw new Error('the quote has no step items');
  return last;
}

/** GET /intents/status/v3 of a request. */
export async function status(s: Sandbox, requestId: string): Promise<IntentStatus> {
  return IntentStatusSchema.parse(await (await fetch(`${s.apiUrl}/intents/status/v3?requestId=${requestId}`)).json());
}

/** Polls the status every 50 ms until `done` holds; fails after `timeoutMs`. */
export async function statusUntil(
  s: Sandbox,
  requestId: string,
  done: (st: IntentStatus) => boolean,
  timeoutMs = 15_000,
): Promise<IntentStatus> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const st = await status(s, requestId);
    if (done(st)) return st;
    if (Date.now() > deadline) throw new Error(`request ${requestId}: still ${JSON.stringify(st)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Waits for a final status (success, failure, refund). */
export const terminal = (s: Sandbox, requestId: string): Promise<IntentStatus> =>
  statusUntil(s, requestId, (st) => ['success', 'failure', 'refund'].includes(st.status));

/** The orderData output payment's expected amount of a quote, base units. */
export function expectedOut(q: QuoteResponse): bigint {
  return BigInt(q.protocol!.v2!.orderData.output.payments[0]!.expectedAmount);
}

/** A fresh Solana wallet funded by the node: `lamports` SOL and, when given, `usdc` base units of test USDC. */
export async function fundedSolanaWallet(s: Sandbox, lamports: bigint, usdc?: bigint): Promise<Keypair> {
  const kp = Keypair.generate();
  await s.solana!.node.airdrop(kp.publicKey.toBase58(), lamports);
  if (usdc !== undefined) await s.solana!.node.mintTo(kp.publicKey.toBase58(), s.solana!.usdcMint, usdc);
  return kp;
}
