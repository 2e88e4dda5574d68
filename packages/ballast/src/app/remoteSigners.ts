/**
 * Wallets whose key is in a key service (docs/keys.md), at start: each service's public key must be the configured
 * address before anything runs (EVM: its Keccak address, or for a JSON-RPC signer an account in `eth_accounts`;
 * Solana: its base58; Bitcoin: its P2WPKH address), and each request a signer makes is counted and timed
 * (`ballast_signer_requests_total`, `ballast_signer_latency_seconds`).
 */
import { checkBvmRemoteAddress } from '../chains/bvm/remoteSigner.ts';
import { checkEvmJsonRpcAddress } from '../chains/evm/jsonRpcSigner.ts';
import { checkEvmRemoteAddress } from '../chains/evm/remoteAccount.ts';
import { checkSvmRemoteAddress } from '../chains/svm/remoteSigner.ts';
import { SignerError } from '../chains/remote/signerError.ts';
import { ConfigError } from '../config/errors.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import type { BallastMetrics } from '../metrics/metrics.ts';

/**
 * Asks each key service for its public key and compares it with the wallet's configured address.
 *
 * @throws ConfigError (`CONFIG_INVALID`, exit 2, one line per wallet) when a key is not the configured address or
 *   cannot sign for its wallet's VM; SignerError (`SIGNER_UNAVAILABLE`, `SIGNER_REFUSED`) when a service cannot be
 *   asked: nothing has run
 */
export async function checkRemoteSigners(config: LoadedConfig): Promise<void> {
  const issues: { path: string; message: string }[] = [];
  for (const wallet of Object.values(config.wallets)) {
    if (!wallet.remote) continue;
    try {
      if (wallet.vm === 'evm') {
        if (wallet.remote.kind === 'remote') await checkEvmJsonRpcAddress(wallet.name, wallet.address, wallet.remote);
        else await checkEvmRemoteAddress(wallet.name, wallet.address, wallet.remote);
      } else if (wallet.vm === 'svm') await checkSvmRemoteAddress(wallet.name, wallet.address, wallet.remote);
      else if (wallet.vm === 'bvm') await checkBvmRemoteAddress(wallet.name, wallet.address, wallet.network, wallet.remote);
    } catch (error) {
      if (!(error instanceof SignerError) || (error.code !== 'SIGNER_KEY_MISMATCH' && error.code !== 'SIGNER_UNSUPPORTED')) throw error;
      issues.push({ path: `wallets.${wallet.name}`, message: error.detail });
    }
  }
  if (issues.length > 0) throw new ConfigError(config.configFile, issues);
}

/** Feeds every key service's requests into the signer metrics. */
export function observeRemoteSigners(config: LoadedConfig, metrics: BallastMetrics): void {
  for (const wallet of Object.values(config.wallets)) {
    if (!wallet.remote) continue;
    wallet.remote.observer = (e) => {
      metrics.signerRequestsTotal.inc({ wallet: e.wallet, kind: e.kind, outcome: e.outcome });
      metrics.signerLatencySeconds.observe({ wallet: e.wallet, kind: e.kind }, e.seconds);
    };
  }
}
