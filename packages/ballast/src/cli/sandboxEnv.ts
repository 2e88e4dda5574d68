/**
 * The environment variables a config can read, derived from a running sandbox. `ballast sandbox` prints them;
 * `ballast demo` passes them to the config loader directly. config/demo.yaml reads the EVM ones; a config that
 * adds the sandbox's Solana or Bitcoin chain reads the others (present only when the sandbox serves that chain):
 * - Solana: `SANDBOX_SOLANA_RPC`, `SANDBOX_SOLANA_WS`, `SANDBOX_SOLANA_USDC` (mint), `SANDBOX_SOLANA_TREASURY_KEY`
 *   (base58 of the 64-byte secret key), `SANDBOX_SOLANA_TREASURY_ADDRESS`;
 * - Bitcoin (regtest): `SANDBOX_ESPLORA_URL`, `SANDBOX_BITCOIN_TREASURY_WIF`, `SANDBOX_BITCOIN_TREASURY_ADDRESS`
 *   (P2WPKH), `SANDBOX_WBTC` (the EVM chains' WBTC).
 */
import type { SandboxHandle } from './sandboxHandle.ts';

/** Variable name → value. Contains the sandbox's dev keys (sandbox-only funds; never use them on a real chain). */
export function sandboxEnv(sandbox: SandboxHandle, store: string): Record<string, string> {
  const env: Record<string, string> = {
    SANDBOX_API_URL: sandbox.apiUrl,
    SANDBOX_TREASURY_KEY: sandbox.accounts.treasury.privateKey,
    BALLAST_DEMO_STORE: store,
  };
  for (const chain of sandbox.chains) {
    env[`SANDBOX_${chain.def.slug.toUpperCase()}_RPC`] = chain.rpcUrl;
    env.SANDBOX_USDC = chain.usdc;
    env.SANDBOX_USDT = chain.usdt;
  }
  const solana = sandbox.solana;
  if (solana) {
    env.SANDBOX_SOLANA_RPC = solana.rpcUrl;
    env.SANDBOX_SOLANA_WS = solana.wsUrl;
    env.SANDBOX_SOLANA_USDC = solana.usdcMint;
    env.SANDBOX_SOLANA_TREASURY_KEY = solana.treasury.secretKeyBase58;
    env.SANDBOX_SOLANA_TREASURY_ADDRESS = solana.treasury.address;
  }
  const bitcoin = sandbox.bitcoin;
  if (bitcoin) {
    env.SANDBOX_ESPLORA_URL = bitcoin.esploraUrl;
    env.SANDBOX_BITCOIN_TREASURY_WIF = bitcoin.treasury.wif;
    env.SANDBOX_BITCOIN_TREASURY_ADDRESS = bitcoin.treasury.address;
    for (const chain of sandbox.chains) env.SANDBOX_WBTC = chain.wbtc;
  }
  return env;
}
