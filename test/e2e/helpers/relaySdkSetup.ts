/**
 * Setup shared by the end-to-end tests that drive the sandbox with the published Relay client
 * `@relayprotocol/relay-sdk`: the loopback guard installed before the SDK is imported (so requests made at
 * import time are watched too), and the SDK's client pointed at the sandbox API with websockets off and fast
 * polling. Each test adds its own axios interceptors.
 */
import type { RelayChain } from '@relayprotocol/relay-sdk';
import { installLoopbackGuard, type LoopbackGuard } from './loopbackGuard.ts';

/** The SDK's module. */
export type RelaySdk = typeof import('@relayprotocol/relay-sdk');
/** The SDK's GET /chains reader (`@relayprotocol/relay-sdk/chain-utils`). */
export type FetchChainConfigs = typeof import('@relayprotocol/relay-sdk/chain-utils').fetchChainConfigs;

/** Result of {@link importGuardedRelaySdk}. */
export interface GuardedRelaySdk {
  /** The installed guard; uninstall it in `afterAll`. */
  guard: LoopbackGuard;
  sdk: RelaySdk;
  fetchChainConfigs: FetchChainConfigs;
}

/**
 * Installs the loopback guard, then imports the SDK and its chain utilities.
 *
 * @throws the import's error, after uninstalling the guard
 */
export async function importGuardedRelaySdk(): Promise<GuardedRelaySdk> {
  const guard = installLoopbackGuard();
  try {
    const sdk = await import('@relayprotocol/relay-sdk');
    const { fetchChainConfigs } = await import('@relayprotocol/relay-sdk/chain-utils');
    return { guard, sdk, fetchChainConfigs };
  } catch (err) {
    guard.uninstall();
    throw err;
  }
}

/**
 * Creates the SDK's global client against the sandbox: `chains` as its GET /chains gave them, source
 * `ballast-e2e`, websockets off, polling every 200 ms (confirmations every 100 ms, at most 100 attempts),
 * no SDK logs.
 *
 * @param sdk the imported SDK
 * @param apiUrl the sandbox API base URL
 * @param chains the sandbox's chains, from `fetchChainConfigs(apiUrl)`
 */
export function createSandboxRelayClient(sdk: RelaySdk, apiUrl: string, chains: RelayChain[]): void {
  sdk.createClient({
    baseApiUrl: apiUrl,
    source: 'ballast-e2e',
    chains,
    websocket: { enabled: false },
    pollingInterval: 200,
    confirmationPollingInterval: 100,
    maxPollingAttemptsBeforeTimeout: 100,
    logLevel: sdk.LogLevel.None,
  });
}
