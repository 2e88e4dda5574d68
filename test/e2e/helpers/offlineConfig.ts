/**
 * A valid configuration that reaches nothing: the Relay API and the chain RPCs are loopback ports nothing listens
 * on (a call is refused at once), for commands that must work, or fail cleanly, without a network. Its wallet's key
 * is a key file (mode 0600); chain `beta`'s RPC URL is the reference `${BETA_RPC}`.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';

/** Anvil's first dev key and its address: public test material. */
const KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const ADDRESS = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

/** A loopback port nothing listens on: any call to the API or an RPC is refused at once. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port; // listening on TCP
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Writes the config and its key file into the fresh directory `<parent>/<name>`.
 *
 * @param edit changes to the YAML text before it is written (to break it, or to add settings)
 * @returns the directory and the config file's path
 */
export async function offlineConfig(
  parent: string,
  name: string,
  edit: (yaml: string) => string = (y) => y,
): Promise<{ dir: string; config: string }> {
  const dir = path.join(parent, name);
  const port = await closedPort();
  const keyFile = path.join(dir, 'treasury.key');
  const yaml = `relay:
  baseUrl: http://127.0.0.1:${port}
wallets:
  treasury: {vm: evm, keyFile: ./treasury.key, address: "${ADDRESS}"}
chains:
  alpha: {chainId: 31001, rpcUrl: "http://127.0.0.1:${port}"}
  beta: {chainId: 31002, rpcUrl: "\${BETA_RPC}"}
assets:
  USDC:
    - {chain: alpha, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: treasury, min: "100", target: "200", max: "300", decimals: 6}
    - {chain: beta, currency: "0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1", wallet: treasury, min: "100", target: "200", max: "300", decimals: 6}
policy:
  minTransfer: "10"
  maxTransfer: "1000"
  slippageBps: 50
  maxFees: {totalBps: 30}
store: ./data/ballast.db
`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  writeFileSync(keyFile, `${KEY}\n`);
  chmodSync(keyFile, 0o600);
  const config = path.join(dir, 'ballast.yaml');
  writeFileSync(config, edit(yaml));
  return { dir, config };
}
