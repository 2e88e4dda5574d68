/**
 * {@link VmChainIo} over the sandbox's Solana node (in-process balances) and Bitcoin node: balances in-process,
 * the user's coins and the fee rate read over its Esplora API (`/address/:a/utxo`, `/fee-estimates`), as the
 * live service reads a block explorer (docs/relay-contract.md "POST /quote/v2", Bitcoin paragraph). Esplora JSON is parsed
 * with zod.
 */
import { z } from 'zod';
import type { BitcoinSandboxNode } from '../bvm/startEsploraNode.ts';
import type { BitcoinCoin } from '../quote/bvmSteps.ts';
import { BITCOIN_CHAIN_ID, SOLANA_CHAIN_ID } from '../quote/vmChains.ts';
import type { SolanaSandboxNode } from '../svm/startSolanaNode.ts';
import type { VmChainIo } from './state.ts';

const EsploraUtxosSchema = z.array(
  z.looseObject({
    txid: z.string().regex(/^[0-9a-f]{64}$/),
    vout: z.number().int().nonnegative(),
    value: z.number().int().nonnegative(),
    status: z.looseObject({ confirmed: z.boolean() }),
  }),
);
const FeeEstimatesSchema = z.record(z.string(), z.number().nonnegative());

/** Confirmation target whose estimate the sandbox uses, blocks. */
export const FEE_TARGET_BLOCKS = '2';

async function getJson(url: string): Promise<unknown> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as unknown; // widening only: the callers parse it with zod
}

/**
 * Reads the outputs of `address` that no confirmed or mempool transaction spends.
 *
 * @param esploraUrl base URL of an Esplora API
 * @param opts.confirmedOnly leave out outputs still in the mempool (default true)
 * @throws Error when the API answers anything but 200 with the expected JSON
 */
export async function esploraCoins(esploraUrl: string, address: string, opts: { confirmedOnly?: boolean } = {}): Promise<BitcoinCoin[]> {
  const utxos = EsploraUtxosSchema.parse(await getJson(`${esploraUrl}/address/${address}/utxo`));
  const confirmedOnly = opts.confirmedOnly ?? true;
  return utxos.filter((u) => u.status.confirmed || !confirmedOnly).map((u) => ({ txid: u.txid, vout: u.vout, value: BigInt(u.value) }));
}

/**
 * Reads the fee rate for {@link FEE_TARGET_BLOCKS} blocks (the nearest target above it when absent), rounded up
 * to whole sat/vB, at least 1.
 *
 * @throws Error when the API answers anything but 200 with an estimates object
 */
export async function esploraFeeRate(esploraUrl: string): Promise<bigint> {
  const estimates = FeeEstimatesSchema.parse(await getJson(`${esploraUrl}/fee-estimates`));
  const targets = Object.keys(estimates)
    .map(Number)
    .filter((t) => Number.isInteger(t) && t >= Number(FEE_TARGET_BLOCKS))
    .sort((a, b) => a - b);
  const rate = estimates[String(targets[0] ?? FEE_TARGET_BLOCKS)] ?? 1;
  return BigInt(Math.max(1, Math.ceil(rate)));
}

/**
 * Creates the non-EVM chain reads.
 *
 * @param nodes the running nodes (either may be absent when the sandbox does not serve that chain)
 * @throws Error (on use) naming the chain when its node is absent
 */
export function createVmChainIo(nodes: { solana?: SolanaSandboxNode; bitcoin?: BitcoinSandboxNode }): VmChainIo {
  const bitcoin = () => {
    if (!nodes.bitcoin) throw new Error('the sandbox does not serve Bitcoin');
    return nodes.bitcoin;
  };
  return {
    async balanceOf(chainId, currency, owner, opts = {}) {
      if (chainId === SOLANA_CHAIN_ID && nodes.solana) {
        return currency.isNative ? nodes.solana.balance(owner) : nodes.solana.tokenBalance(owner, currency.address);
      }
      if (chainId === BITCOIN_CHAIN_ID && nodes.bitcoin) {
        return opts.pendingIncoming ? nodes.bitcoin.balance(owner) : nodes.bitcoin.specBalance(owner);
      }
      throw new Error(`no node for sandbox chain ${chainId}`);
    },
    bitcoinCoins: (address) => esploraCoins(bitcoin().url, address),
    bitcoinFeeRate: () => esploraFeeRate(bitcoin().url),
  };
}
