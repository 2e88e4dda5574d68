import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/loadConfig.ts';
import { API_KEY, KEY, KEY_ADDRESS } from './helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../../config/ballast.example.yaml', import.meta.url));
const ENV = {
  RELAY_API_KEY: API_KEY,
  TREASURY_EVM_KEY: KEY,
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
