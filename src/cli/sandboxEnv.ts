/**
 * The environment variables config/demo.yaml reads, derived from a running sandbox. `ballast sandbox` prints
 * them; `ballast demo` passes them to the config loader directly.
 */
import type { Sandbox } from '../sandbox/startSandbox.ts';

/** Variable name → value for config/demo.yaml. Contains the sandbox's (public, well-known) dev key. */
export function sandboxEnv(sandbox: Sandbox, store: string): Record<string, string> {
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
  return env;
}
