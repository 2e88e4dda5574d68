/**
 * Address ↔ output-script conversion for the sandbox's Bitcoin node, independent of the network the address
 * is written for: the node keys everything by output script, so `bcrt1q…`, `tb1q…` and `bc1q…` forms of the
 * same program reach the same coins. Uses bitcoinjs-lib's bech32/bech32m and base58check codecs (no
 * elliptic-curve library is needed for this). Pure: no I/O.
 */
import { address as btcAddress, networks, type Network } from 'bitcoinjs-lib';
import { BitcoinNodeError } from './errors.ts';
import { classifyScript } from './script.ts';

/** Networks the node can render addresses for. */
export type BitcoinNetworkName = 'bitcoin' | 'testnet' | 'regtest';

/** bitcoinjs parameters of each {@link BitcoinNetworkName}. */
export const BITCOIN_NETWORKS: Record<BitcoinNetworkName, Network> = {
  bitcoin: networks.bitcoin,
  testnet: networks.testnet,
  regtest: networks.regtest,
};

/** bech32 human-readable parts accepted on input (mainnet, testnet, regtest). */
const BECH32_PREFIXES = new Set(['bc', 'tb', 'bcrt']);
/** base58 version bytes accepted on input: P2PKH mainnet/test, P2SH mainnet/test. */
const BASE58_P2PKH = new Set([0x00, 0x6f]);
const BASE58_P2SH = new Set([0x05, 0xc4]);

const OP_DUP = 0x76;
const OP_HASH160 = 0xa9;
const OP_EQUALVERIFY = 0x88;
const OP_CHECKSIG = 0xac;
const OP_EQUAL = 0x87;

function witnessScript(version: number, program: Uint8Array): Uint8Array {
  // OP_0 for v0, OP_1..OP_16 (0x51..0x60) for v1..v16, then one direct push of the program.
  return Uint8Array.from([version === 0 ? 0x00 : 0x50 + version, program.length, ...program]);
}

/**
 * The output script that pays `address`. Accepts P2PKH / P2SH (base58, mainnet or testnet/regtest
 * version bytes) and segwit v0 (20 or 32 bytes) and v1+ programs (bech32/bech32m with `bc`, `tb` or `bcrt`),
 * whatever the node's own network.
 *
 * @param address a Bitcoin address
 * @returns the scriptPubKey bytes
 * @throws BitcoinNodeError `BTC_NODE_BAD_ADDRESS` when the text is not a valid Bitcoin address
 * @example
 * addressToScript('bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080'); // 0014751e76e8199196d454941c45d1b3a323f1433bd6
 */
export function addressToScript(address: string): Uint8Array {
  let base58: { version: number; hash: Uint8Array } | undefined;
  try {
    base58 = btcAddress.fromBase58Check(address);
  } catch {
    base58 = undefined;
  }
  if (base58 !== undefined) {
    const hash = base58.hash;
    if (BASE58_P2PKH.has(base58.version)) return Uint8Array.from([OP_DUP, OP_HASH160, 20, ...hash, OP_EQUALVERIFY, OP_CHECKSIG]);
    if (BASE58_P2SH.has(base58.version)) return Uint8Array.from([OP_HASH160, 20, ...hash, OP_EQUAL]);
    throw new BitcoinNodeError('BTC_NODE_BAD_ADDRESS', `${address} has unknown base58 version byte ${base58.version}`);
  }
  let decoded: { version: number; prefix: string; data: Uint8Array };
  try {
    decoded = btcAddress.fromBech32(address);
  } catch (error) {
    throw new BitcoinNodeError('BTC_NODE_BAD_ADDRESS', `${address} is not a valid Bitcoin address (base58check or bech32/bech32m)`, {
      cause: error,
    });
  }
  if (!BECH32_PREFIXES.has(decoded.prefix)) {
    throw new BitcoinNodeError('BTC_NODE_BAD_ADDRESS', `${address} has prefix ${decoded.prefix}; use bc, tb or bcrt`);
  }
  const { version, data } = decoded;
  const validV0 = version === 0 && (data.length === 20 || data.length === 32);
  const validV1Plus = version >= 1 && version <= 16 && data.length >= 2 && data.length <= 40;
  if (!validV0 && !validV1Plus) {
    throw new BitcoinNodeError(
      'BTC_NODE_BAD_ADDRESS',
      `${address} has an invalid witness program (version ${version}, ${data.length} bytes)`,
    );
  }
  return witnessScript(version, data);
}

/**
 * The address an output script pays, written for `network`.
 *
 * @param script scriptPubKey bytes
 * @param network network whose prefixes to use
 * @returns the address, or null for scripts without one (OP_RETURN, bare public keys, unknown scripts)
 */
export function scriptToAddress(script: Uint8Array, network: BitcoinNetworkName): string | null {
  const net = BITCOIN_NETWORKS[network];
  switch (classifyScript(script)) {
    case 'p2pkh':
      return btcAddress.toBase58Check(script.subarray(3, 23), net.pubKeyHash);
    case 'p2sh':
      return btcAddress.toBase58Check(script.subarray(2, 22), net.scriptHash);
    case 'v0_p2wpkh':
    case 'v0_p2wsh':
      return btcAddress.toBech32(script.subarray(2), 0, net.bech32);
    case 'v1_p2tr':
      return btcAddress.toBech32(script.subarray(2), 1, net.bech32);
    default:
      return null;
  }
}
