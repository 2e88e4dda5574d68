import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../packages/ballast/src/config/loadConfig.ts';
import { API_KEY, BTC_P2WPKH, BTC_WIF, KEY, KEY_ADDRESS, SOL_ADDRESS, SOL_KEY, tempDir, vmOf, type TempDir } from './helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../../packages/ballast/config/ballast.example.yaml', import.meta.url));
// The example reads the EVM key from ${CREDENTIALS_DIRECTORY}/treasury-evm.key (systemd LoadCredential=).
const CREDENTIALS = mkdtempSync(join(tmpdir(), 'ballast-example-credentials-'));
writeFileSync(join(CREDENTIALS, 'treasury-evm.key'), `${KEY}\n`, { mode: 0o600 });
afterAll(() => rmSync(CREDENTIALS, { recursive: true, force: true }));
const ENV = {
  RELAY_API_KEY: API_KEY,
  CREDENTIALS_DIRECTORY: CREDENTIALS,
  TREASURY_EVM_ADDRESS: KEY_ADDRESS,
  ETH_RPC: 'https://eth.example/rpc',
  BASE_RPC: 'https://base.example/rpc',
  ARB_RPC: 'https://arb.example/rpc',
  OP_RPC: 'https://op.example/rpc',
};

describe('config/ballast.example.yaml', () => {
  it('loads with its environment variables set', () => {
    const config = loadConfig(EXAMPLE, ENV);
    expect(Object.keys(config.chains)).toEqual(['ethereum', 'base', 'arbitrum', 'optimism']);
    expect(config.assets.USDC?.map((a) => a.chainId)).toEqual([8453, 42161, 10, 1]);
    expect(config.wallets.treasury?.address).toBe(KEY_ADDRESS);
    expect(config.warnings).toEqual([]);
  });

  it('names every variable it needs when none is set', () => {
    let message = '';
    try {
      loadConfig(EXAMPLE, {});
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of Object.keys(ENV)) expect(message).toContain(`environment variable ${name} is not set`);
  });
});

/**
 * Uncomments the blocks introduced by a `# --- … (uncomment to use…) ---` line: each following comment line
 * loses one "# " after its indentation, up to the first line that is not a comment.
 */
function uncommentOptionalBlocks(text: string): string {
  const out: string[] = [];
  let inBlock = false;
  for (const line of text.split('\n')) {
    if (/^\s*# --- .*\(uncomment to use.*\) ---\s*$/.test(line)) {
      inBlock = true;
      continue;
    }
    const m = /^(\s*)# ?(.*)$/.exec(line);
    if (inBlock && m) out.push(`${m[1]}${m[2]}`);
    else {
      inBlock = false;
      out.push(line);
    }
  }
  return out.join('\n');
}

describe('config/ballast.example.yaml: the Solana and Bitcoin blocks', () => {
  let tmp: TempDir | undefined;
  afterEach(() => tmp?.cleanup());

  it('load once uncommented, with their variables set', () => {
    tmp = tempDir();
    const file = tmp.write(uncommentOptionalBlocks(readFileSync(EXAMPLE, 'utf8')));
    const config = loadConfig(file, {
      ...ENV,
      TREASURY_SOL_KEY: SOL_KEY,
      TREASURY_SOL_ADDRESS: SOL_ADDRESS,
      TREASURY_BTC_WIF: BTC_WIF,
      TREASURY_BTC_ADDRESS: BTC_P2WPKH,
      SOL_RPC: 'https://sol.example/rpc',
    });
    expect(Object.keys(config.chains)).toEqual(['ethereum', 'base', 'arbitrum', 'optimism', 'solana', 'bitcoin']);
    expect(vmOf(config.chains.solana, 'svm')).toMatchObject({
      chainId: 792703809,
      wsUrl: 'wss://sol.example/rpc',
      commitment: 'finalized',
    });
    expect(vmOf(config.chains.bitcoin, 'bvm')).toMatchObject({
      chainId: 8253038,
      esploraUrl: 'https://blockstream.info/api',
      highValueSats: 100_000_000n,
    });
    expect(config.wallets.treasury_sol?.address).toBe(SOL_ADDRESS);
    expect(config.wallets.treasury_btc?.address).toBe(BTC_P2WPKH);
    expect(config.assets.USDC?.map((a) => a.chainId)).toEqual([8453, 42161, 10, 1, 792703809]);
    expect(config.assets.BTC?.[0]?.address).toBe(BTC_P2WPKH);
    expect(config.policy.transferLimits).toEqual({
      SOL: { minTransfer: '1', maxTransfer: '500' },
      BTC: { minTransfer: '0.01', maxTransfer: '1' },
    });
  });
});
