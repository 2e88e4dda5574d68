/**
 * Small helpers for the sandbox Solana node's end-to-end tests: a web3.js Connection to the node, v0
 * transaction building and signing, raw JSON-RPC calls, and polling.
 */
import {
  Connection,
  type Keypair,
  PublicKey,
  TransactionInstruction,
  TransactionMessage,
  VersionedTransaction,
  type AddressLookupTableAccount,
  type Commitment,
} from '@solana/web3.js';
import type { SvmAccountMeta } from '../../../../packages/protocol/src/protocol/svmDepository.ts';
import type { SolanaSandboxNode } from '../../../../packages/sandbox/src/svm/startSolanaNode.ts';

/** A plain web3.js connection to the node (HTTP + websocket). */
export function connect(node: SolanaSandboxNode, commitment: Commitment = 'confirmed'): Connection {
  return new Connection(node.rpcUrl, { wsEndpoint: node.wsUrl, commitment });
}

/** A signed v0 transaction (payer = first signer) with a fresh blockhash from the node. */
export async function signedV0(
  connection: Connection,
  signers: Keypair[],
  instructions: TransactionInstruction[],
  tables: AddressLookupTableAccount[] = [],
): Promise<{ tx: VersionedTransaction; blockhash: string; lastValidBlockHeight: number }> {
  const payer = signers[0];
  if (payer === undefined) throw new Error('signedV0 needs a payer');
  const { blockhash, lastValidBlockHeight } = await connection.getLatestBlockhash();
  const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions }).compileToV0Message(
    tables,
  );
  const tx = new VersionedTransaction(message);
  tx.sign(signers);
  return { tx, blockhash, lastValidBlockHeight };
}

/** An instruction from text account metas (the Relay step-data shape). */
export function instruction(programId: string, keys: SvmAccountMeta[], data: Uint8Array): TransactionInstruction {
  return new TransactionInstruction({
    programId: new PublicKey(programId),
    keys: keys.map((k) => ({ pubkey: new PublicKey(k.pubkey), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(data),
  });
}

/** One JSON-RPC call over plain fetch; returns the whole response body. */
export async function rawRpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } }; // a JSON-RPC response
}

/** Polls `check` every 50 ms until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function waitFor<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A 32-byte order id for deposits, hex. */
export function orderId(byte: number): `0x${string}` {
  return `0x${byte.toString(16).padStart(2, '0').repeat(32)}`;
}
