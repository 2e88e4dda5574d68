/**
 * Validation of request addresses per VM of the chain they live on (docs/relay-contract.md "POST /quote/v2": Solana
 * addresses are base58 public keys, case-sensitive, never an EVM address; Bitcoin addresses are case-sensitive and must
 * belong to the sandbox's network, regtest). Uses @solana/web3.js `PublicKey` and bitcoinjs-lib's address
 * codec. Pure.
 */
import { PublicKey } from '@solana/web3.js';
import { address as btcAddress, networks } from 'bitcoinjs-lib';
import { isAddress } from 'viem';
import { lower } from './chainTable.ts';
import { SandboxApiError } from './errors.ts';
import type { SandboxVmType } from './vmChains.ts';

/** Output script kinds a Bitcoin-origin user may hold: the PSBT carries `witnessUtxo`, which needs segwit. */
export type BitcoinSpendKind = 'p2wpkh' | 'p2tr';

/** True when `value` is the canonical base58 text of a 32-byte Solana public key. */
export function isSolanaAddress(value: string): boolean {
  if (value.startsWith('0x')) return false;
  try {
    return new PublicKey(value).toBase58() === value;
  } catch {
    return false;
  }
}

/** The output script of a regtest address (bech32 `bcrt1…` or base58 with testnet/regtest version bytes), or null. */
export function regtestOutputScript(value: string): Uint8Array | null {
  try {
    return btcAddress.toOutputScript(value, networks.regtest);
  } catch {
    return null;
  }
}

/** P2WPKH (OP_0 <20>) or P2TR (OP_1 <32>) of an output script, or null for any other kind. */
export function bitcoinSpendKind(script: Uint8Array): BitcoinSpendKind | null {
  if (script.length === 22 && script[0] === 0x00 && script[1] === 0x14) return 'p2wpkh';
  if (script.length === 34 && script[0] === 0x51 && script[1] === 0x20) return 'p2tr';
  return null;
}

/**
 * Checks one address of a request against the VM of its chain.
 *
 * @param value the address as sent
 * @param vm API vmType of the chain it belongs to
 * @param field request field, named in the error (`user`, `recipient`, `refundTo`)
 * @param opts.spender Bitcoin: the address spends in the deposit PSBT, so it must be P2WPKH or P2TR
 * @returns the address to use: EVM lower-case, Solana and Bitcoin exactly as sent
 * @throws SandboxApiError 400 `INVALID_ADDRESS` (errorData: the field) naming the field and the expected form
 */
export function checkVmAddress(value: string, vm: SandboxVmType, field: string, opts: { spender?: boolean } = {}): string {
  const invalid = (expected: string) =>
    new SandboxApiError(400, 'INVALID_ADDRESS', `${field} ${JSON.stringify(value)} is not ${expected}`, field);
  switch (vm) {
    case 'evm':
      if (!isAddress(value, { strict: false })) throw invalid('a 0x EVM address on the sandbox chains');
      return lower(value);
    case 'svm':
      if (!isSolanaAddress(value)) {
        throw invalid('a Solana address (base58 32-byte public key, case-sensitive; never a 0x EVM address)');
      }
      return value;
    case 'bvm': {
      const script = regtestOutputScript(value);
      if (script === null) throw invalid('a Bitcoin address of the sandbox network (regtest: bcrt1…, case-sensitive)');
      if (opts.spender && bitcoinSpendKind(script) === null) {
        throw invalid('a P2WPKH (bcrt1q…) or P2TR (bcrt1p…) regtest address, which the deposit PSBT can spend');
      }
      return value;
    }
  }
}
