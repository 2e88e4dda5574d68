/**
 * What the CLI needs of a running local Relay sandbox, and how it loads one. The sandbox ships as its own
 * workspace package, `@ballast/sandbox` (packages/sandbox), which a production install (`npm ci --omit=dev`,
 * the container image) does not carry: only `ballast demo` and `ballast sandbox` load it, by a dynamic import,
 * and print how to get it when it is missing. The interfaces below are the structural subset of the sandbox's
 * own `Sandbox` those commands read; the package's `startSandbox` result must stay assignable to them.
 */
import { CliError, EXIT_USAGE } from './exitCodes.ts';

/** One started EVM chain of the sandbox: slug and id, JSON-RPC URL, contract addresses (0x-prefixed hex). */
export interface SandboxEvmChainHandle {
  def: { slug: string; chainId: number };
  rpcUrl: string;
  depository: string;
  usdc: string;
  usdt: string;
  /** The chain's WBTC token (listed when the sandbox serves Bitcoin). */
  wbtc: string;
}

/** A running sandbox as the CLI sees it: API URL, chains, dev accounts (sandbox-only keys), stop. */
export interface SandboxHandle {
  /** Base URL of the sandbox's Relay API, e.g. `http://127.0.0.1:41234`. */
  apiUrl: string;
  chains: readonly SandboxEvmChainHandle[];
  /** Funded anvil dev accounts (0x-prefixed address and 32-byte private key, hex). */
  accounts: { treasury: { address: `0x${string}`; privateKey: string }; solver: { address: string; privateKey: string } };
  /** The Solana chain, when started: URLs, base58 mint and program ids, a funded treasury (base58 64-byte secret key). */
  solana?: {
    rpcUrl: string;
    wsUrl: string;
    usdcMint: string;
    depositoryProgramId: string;
    treasury: { address: string; secretKeyBase58: string };
  };
  /** The Bitcoin (regtest) chain, when started: Esplora URL, depository address, a funded treasury (WIF, P2WPKH address). */
  bitcoin?: { esploraUrl: string; depository: string; treasury: { wif: string; address: string } };
  /** Stops the API, the nodes and the anvil processes. */
  stop(): Promise<void>;
}

/** Options the CLI passes when starting the sandbox (a subset of the package's `SandboxOptions`). */
export interface SandboxStartOptions {
  /** API port on 127.0.0.1 (0: a free port). */
  port?: number;
  solana?: boolean;
  bitcoin?: boolean;
  /** Milliseconds between mined Bitcoin blocks (0: never). */
  bitcoinBlockMs?: number;
  /** Deliver signed status webhooks to `url` with HMAC key `secret`. */
  webhook?: { url: string; secret?: string | undefined };
}

/** The sandbox package's entry point as the CLI calls it. */
export type StartSandbox = (options: SandboxStartOptions) => Promise<SandboxHandle>;

/**
 * Runs `load` (the command's `import('@ballast/sandbox/startSandbox.ts')`) and returns its `startSandbox`.
 *
 * @throws CliError (exit 2, one line naming the command, the package and how to install it) when `@ballast/sandbox` is not
 *   installed; any other load failure unchanged
 */
export async function loadSandbox(command: string, load: () => Promise<{ startSandbox: StartSandbox }>): Promise<StartSandbox> {
  return (await loadSandboxModule(command, load)).startSandbox;
}

/**
 * Runs `load`, a dynamic import of a module of `@ballast/sandbox` (e.g. its local KMS endpoint), and returns the module.
 *
 * @throws CliError (exit 2) when `@ballast/sandbox` is not installed, as {@link loadSandbox}; any other load failure unchanged
 */
export async function loadSandboxModule<T>(command: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if ((e.code === 'ERR_MODULE_NOT_FOUND' || e.code === 'MODULE_NOT_FOUND') && String(e.message).includes('@ballast/sandbox')) {
      throw new CliError(
        `${command} needs the @ballast/sandbox package: run npm install from a checkout (a production install omits it)`,
        EXIT_USAGE,
      );
    }
    throw err;
  }
}
