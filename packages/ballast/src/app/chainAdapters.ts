/**
 * Builds one chain adapter per configured chain (src/chains/adapter.ts), handing each the signers of the
 * wallets of its VM family. Part of the wiring (src/app/createBallast.ts); nothing else constructs adapters.
 */
import { hexToBytes, type Hex, type LocalAccount } from 'viem';
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { ChainAdapter } from '../chains/adapter.ts';
import { createEvmAdapter } from '../chains/evm/adapter.ts';
import { createEvmPublicClient } from '../chains/evm/client.ts';
import { createBvmAdapter } from '../chains/bvm/adapter.ts';
import { createSvmAdapter } from '../chains/svm/adapter.ts';
import type { BvmWalletKey } from '../chains/bvm/wallet.ts';
import type { SvmSigner } from '../chains/svm/signer.ts';

/** Options for {@link createChainAdapters}. */
export interface ChainAdapterOptions {
  /** Polling interval for receipts and statuses, ms (default: each adapter's own). */
  chainPollingIntervalMs?: number;
}

/** Signers of the configured wallets, grouped by VM family. */
function signersByVm(config: LoadedConfig) {
  const evm = new Map<string, LocalAccount>();
  const svm = new Map<string, SvmSigner>();
  const bvm = new Map<string, BvmWalletKey>();
  for (const [name, w] of Object.entries(config.wallets)) {
    if (w.vm === 'evm') evm.set(name, w.account);
    if (w.vm === 'svm') svm.set(name, w.signer);
    if (w.vm === 'bvm') {
      const { address, network, addressType, signer } = w;
      if ('connect' in signer) {
        bvm.set(name, { address, network, addressType: 'p2wpkh', signer }); // a key service's: p2wpkh (the loader refuses p2tr)
      } else {
        if (w.publicKey === undefined) throw new Error(`wallets.${name}: a key on the host always has its public key`); // set by loadBvm
        bvm.set(name, {
          address,
          network,
          addressType,
          publicKey: hexToBytes(`0x${w.publicKey}` as Hex), // the loader wrote lower-case hex without 0x
          ...(w.internalPubkey !== undefined ? { internalPubkey: hexToBytes(`0x${w.internalPubkey}` as Hex) } : {}),
          signer,
        });
      }
    }
  }
  return { evm, svm, bvm };
}

/**
 * One adapter per `chains.<name>`, keyed by name.
 *
 * @throws Error for a chain whose VM family has no adapter (config loading refuses those first)
 */
export function createChainAdapters(config: LoadedConfig, opts: ChainAdapterOptions = {}): Map<string, ChainAdapter> {
  const signers = signersByVm(config);
  const adapters = new Map<string, ChainAdapter>();
  for (const [name, c] of Object.entries(config.chains)) {
    switch (c.vm) {
      case 'evm': {
        const client = createEvmPublicClient({
          name,
          chainId: c.chainId,
          rpcUrl: c.rpcUrl,
          pollingIntervalMs: opts.chainPollingIntervalMs,
        });
        adapters.set(
          name,
          createEvmAdapter({
            name,
            chainId: c.chainId,
            client,
            accounts: signers.evm,
            confirmations: c.confirmations,
            ...(c.minDeadlineLeadSec !== undefined ? { minDeadlineLeadSec: c.minDeadlineLeadSec } : {}),
          }),
        );
        break;
      }
      case 'svm':
        adapters.set(
          name,
          createSvmAdapter({
            name,
            chainId: c.chainId,
            rpcUrl: c.rpcUrl,
            wsUrl: c.wsUrl,
            commitment: c.commitment,
            maxMicroLamportsPerCu: c.maxMicroLamportsPerCu,
            maxComputeUnits: c.maxComputeUnits,
            signers: signers.svm,
            ...(c.minDeadlineLeadSec !== undefined ? { minDeadlineLeadSec: c.minDeadlineLeadSec } : {}),
            ...(opts.chainPollingIntervalMs !== undefined ? { pollIntervalMs: opts.chainPollingIntervalMs } : {}),
          }),
        );
        break;
      case 'bvm':
        adapters.set(
          name,
          createBvmAdapter({
            name,
            chainId: c.chainId,
            esploraUrl: c.esploraUrl,
            network: c.network,
            confirmations: c.confirmations,
            highValueConfirmations: c.highValueConfirmations,
            highValueSats: c.highValueSats,
            reorgDepth: c.reorgDepth,
            minerFeeReserveSats: c.minerFeeReserveSats,
            maxFeeRateSatPerVb: c.maxFeeRateSatPerVb,
            minFeeRateSatPerVb: c.minFeeRateSatPerVb,
            maxMinerFeeSats: c.maxMinerFeeSats,
            maxMinerFeeBps: c.maxMinerFeeBps,
            requireReplaceable: c.requireReplaceable,
            maxCancelFeeSats: c.maxCancelFeeSats,
            cancelRepriceAfterBlocks: c.cancelRepriceAfterBlocks,
            allowOwnUnconfirmedInputs: c.allowOwnUnconfirmedInputs,
            maxInclusionWaitMs: c.inclusionWaitSec * 1000,
            signers: signers.bvm,
            ...(c.minDeadlineLeadSec !== undefined ? { minDeadlineLeadSec: c.minDeadlineLeadSec } : {}),
            ...(opts.chainPollingIntervalMs !== undefined ? { pollIntervalMs: opts.chainPollingIntervalMs } : {}),
          }),
        );
        break;
      default: {
        const unknown: { vm: string } = c; // every VM the config accepts has a case above
        throw new Error(`chains.${name}: vm ${unknown.vm} has no chain adapter`);
      }
    }
  }
  return adapters;
}
