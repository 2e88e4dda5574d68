/**
 * Shared pieces of the Bitcoin adapter's end-to-end tests: regtest keys loaded from WIF through the production
 * loader (`bvmKeyFromWif`), an adapter pointed at a sandbox Esplora node, and deposit PSBTs built the way the
 * Relay API builds them (our unspent outputs with `witnessUtxo` in; depository payment, order-id OP_RETURN and
 * change out), wrapped in a POST /quote/v2 response by the Bitcoin quote fixtures.
 */
import { address as btcAddress, networks } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { createBvmAdapter, type BvmAdapterOptions, type BvmChainAdapter } from '../../../../packages/ballast/src/chains/bvm/adapter.ts';
import { bvmKeyFromWif, type BvmAddressType, type BvmKey } from '../../../../packages/ballast/src/chains/bvm/wallet.ts';
import type { QuoteResponse } from '../../../../packages/protocol/src/relay/schemas.ts';
import type { BitcoinSandboxNode } from '../../../../packages/sandbox/src/bvm/startEsploraNode.ts';
import type { BitcoinUtxo } from '../../../../packages/ballast/src/verify/deposit/types.ts';
import {
  AMOUNT,
  bvmCase,
  bvmQuote,
  buildPsbt,
  memoScript,
  type BvmCase,
  type PsbtSpec,
  type TestWallet,
} from '../../../fixtures/bvmQuote.ts';

const ECPair = ECPairFactory(ecc);

/** Config name of the chain in these tests. */
export const CHAIN = 'btc';
/** Bitcoin's Relay chain id. */
export const BITCOIN_CHAIN_ID = 8253038;
/** Default fee of a test deposit, sat (a few sat/vB for one or two inputs). */
export const DEPOSIT_FEE = 2_000n;

/** A regtest key of `type` from the fixed private key `byte` repeated, loaded from its WIF. */
export function regtestKey(type: BvmAddressType, byte: number): BvmKey {
  const wif = ECPair.fromPrivateKey(new Uint8Array(32).fill(byte), { network: networks.regtest }).toWIF();
  const loaded = bvmKeyFromWif(wif, { network: 'regtest', addressType: type });
  if (!loaded.ok) throw new Error(`test key ${byte}: ${loaded.problem}`);
  return loaded.key;
}

/** The quote fixtures' view of a wallet. */
export function asTestWallet(key: BvmKey): TestWallet {
  return {
    name: `${key.addressType} regtest`,
    kind: key.addressType,
    network: networks.regtest,
    address: key.address,
    script: btcAddress.toOutputScript(key.address, networks.regtest),
    signer: key.signer,
    ...(key.internalPubkey ? { internalKey: key.internalPubkey } : {}),
  };
}

/** An adapter for chain {@link CHAIN} on `node`, signing with `signers` (wallet name → key). */
export function adapterFor(
  node: BitcoinSandboxNode,
  signers: Record<string, BvmKey>,
  over: Partial<BvmAdapterOptions> = {},
): BvmChainAdapter {
  return createBvmAdapter({
    name: CHAIN,
    chainId: BITCOIN_CHAIN_ID,
    esploraUrl: node.url,
    network: 'regtest',
    highValueSats: 100_000_000n,
    minerFeeReserveSats: 0n,
    maxFeeRateSatPerVb: 200,
    signers: new Map(Object.entries(signers)),
    pollIntervalMs: 20,
    timeoutMs: 5_000,
    ...over,
  });
}

/** Funds `key` with one faucet output per value and returns the quote case whose inputs are those outputs. */
export function fundedCase(node: BitcoinSandboxNode, key: BvmKey, values: readonly bigint[]): BvmCase {
  const utxos: BitcoinUtxo[] = values.map((value) => ({ ...node.faucet(key.address, value), value, confirmed: true }));
  return { ...bvmCase(asTestWallet(key)), utxos };
}

/** How a test deposit differs from the honest one. */
export interface DepositVariant {
  /** Sats paid to the depository (default the order's amount). */
  amount?: bigint;
  fee?: bigint;
  /** Memo text (default the case's order id). */
  memo?: string;
  /** Whether P2TR inputs carry `tapInternalKey` (default true). */
  tapInternalKey?: boolean;
  /** Outputs spent (default all of the case's). */
  utxos?: readonly BitcoinUtxo[];
}

/** The deposit PSBT spec: inputs = our outputs (witnessUtxo), outputs = depository, memo OP_RETURN, change. */
export function depositSpec(c: BvmCase, v: DepositVariant = {}): PsbtSpec {
  const utxos = v.utxos ?? c.utxos;
  const amount = v.amount ?? AMOUNT;
  const total = utxos.reduce((sum, u) => sum + u.value, 0n);
  const withKey = v.tapInternalKey ?? true;
  return {
    inputs: utxos.map((u) => ({
      txid: u.txid,
      vout: u.vout,
      value: u.value,
      ...(c.wallet.internalKey && withKey ? { tapInternalKey: c.wallet.internalKey } : {}),
    })),
    outputs: [
      { script: c.depository.script, value: amount },
      { script: memoScript(v.memo ?? c.orderId), value: 0n },
      { script: c.wallet.script, value: total - amount - (v.fee ?? DEPOSIT_FEE) },
    ],
  };
}

/** The POST /quote/v2 response carrying the deposit PSBT of `spec`. */
export function depositQuote(c: BvmCase, spec: PsbtSpec): QuoteResponse {
  return bvmQuote(c, buildPsbt(c, spec).toHex());
}

/** The quote's deposit item as the executor hands it to `sign`. */
export function depositItem(quote: QuoteResponse): { stepId: string; itemIndex: number; data: Record<string, unknown> } {
  const step = quote.steps[0]!; // bvmQuote builds one deposit step with one item
  return { stepId: step.id, itemIndex: 0, data: step.items[0]!.data };
}
