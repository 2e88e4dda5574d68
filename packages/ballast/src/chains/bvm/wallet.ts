/**
 * Bitcoin signer construction: a WIF private key becomes an ecpair key pair (tiny-secp256k1) and a single-key
 * address of the configured type, through bitcoinjs-lib's payment builders:
 * - `p2wpkh` (BIP-84 style, `bc1q…`): witness v0 program = hash160 of the compressed public key; the signer
 *   signs ECDSA over the BIP-143 sighash.
 * - `p2tr` (BIP-86 key path, `bc1p…`): the x-only public key is the internal key; the output key is
 *   internal + H_TapTweak(internal)·G with no script tree (BIP-341). The signer holds the tweaked private key
 *   (negated first when the internal point has odd y, as BIP-341 requires), so its `publicKey` is the output
 *   key and `signSchnorr` produces key-path signatures bitcoinjs `Psbt.signInput` accepts.
 *
 * The WIF's version byte names its network: 0x80 mainnet, 0xef testnet and regtest (which share it). A key for
 * one family refused for the other is reported, never silently re-encoded.
 *
 * Only `src/chains/<vm>/` constructs signers. Results are returned, not thrown, so a caller collecting problems
 * can report each with its YAML path; `problem` texts never contain key material.
 */
import { sha256 } from '@noble/hashes/sha2';
import { createBase58check } from '@scure/base';
import { address as btcAddress, crypto as btcCrypto, initEccLib, networks, payments, toXOnly, type Network } from 'bitcoinjs-lib';
import { ECPairFactory, type ECPairInterface } from 'ecpair';
import * as ecc from 'tiny-secp256k1';

initEccLib(ecc);
const ECPair = ECPairFactory(ecc);
const base58check = createBase58check(sha256);

/** Bitcoin networks Ballast signs on. */
export const BVM_NETWORKS = ['mainnet', 'testnet', 'regtest'] as const;
/** A Bitcoin network name. */
export type BvmNetwork = (typeof BVM_NETWORKS)[number];
/** Address types a Ballast Bitcoin wallet can have (single key, no scripts). */
export const BVM_ADDRESS_TYPES = ['p2wpkh', 'p2tr'] as const;
/** A Bitcoin address type. */
export type BvmAddressType = (typeof BVM_ADDRESS_TYPES)[number];

/** bitcoinjs network parameters of each network name (bech32 prefixes `bc`, `tb`, `bcrt`). */
export const BVM_NETWORK_PARAMS: Readonly<Record<BvmNetwork, Network>> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  regtest: networks.regtest,
};

/**
 * What bitcoinjs `Psbt.signInput` / `signAllInputs` needs (structurally its `Signer`). Holds the key pair in a
 * closure: the object has no property from which the private key can be read.
 */
export interface BvmSigner {
  /**
   * 33-byte compressed public key that signs: for p2wpkh the wallet key, for p2tr the tweaked output key
   * (its x coordinate is the witness program).
   */
  readonly publicKey: Uint8Array;
  /** ECDSA signature (64-byte compact r‖s) of a 32-byte sighash; low-R by default. */
  sign(hash: Uint8Array, lowR?: boolean): Uint8Array;
  /** BIP-340 Schnorr signature (64 bytes) of a 32-byte sighash with the tweaked key; p2tr signers only. */
  signSchnorr?(hash: Uint8Array): Uint8Array;
}

/**
 * What bitcoinjs `Psbt.signInputAsync` needs (structurally its `SignerAsync`): a key service's signer once its
 * public key has been read.
 */
export interface BvmAsyncSigner {
  /** 33-byte compressed public key. */
  readonly publicKey: Uint8Array;
  /** ECDSA signature (64-byte compact r‖s, low s) of a 32-byte sighash, verified against `publicKey`. */
  sign(hash: Uint8Array): Promise<Uint8Array>;
}

/**
 * A signer whose key is in a key service (src/chains/bvm/remoteSigner.ts): its public key is read from the service
 * and checked against the wallet's address before it signs. P2WPKH only.
 */
export interface BvmRemoteSigner {
  readonly kind: 'awsKms' | 'turnkey';
  /**
   * Reads the service's public key (once) and checks that the wallet's address is its P2WPKH address.
   *
   * @throws SignerError (service unavailable or refusing, another key, a key type that cannot sign here)
   */
  connect(): Promise<BvmAsyncSigner>;
}

/** A loaded Bitcoin key on this host (from a WIF) with its address. */
export interface BvmKey {
  /** bech32 (p2wpkh) or bech32m (p2tr) address, lower case. */
  address: string;
  network: BvmNetwork;
  addressType: BvmAddressType;
  /** 33-byte compressed public key of the WIF (untweaked). */
  publicKey: Uint8Array;
  /** p2tr only: 32-byte x-only internal key (a PSBT input's `tapInternalKey`). */
  internalPubkey?: Uint8Array;
  signer: BvmSigner;
}

/** A P2WPKH wallet whose key is in a key service (src/chains/bvm/remoteSigner.ts); its public key is read when it signs. */
export interface BvmRemoteKey {
  /** bech32 P2WPKH address, lower case. */
  address: string;
  network: BvmNetwork;
  addressType: 'p2wpkh';
  /** Never set: a key service's key spends P2WPKH only. */
  internalPubkey?: undefined;
  signer: BvmRemoteSigner;
}

/** A Bitcoin wallet's key: on this host, or in a key service. Both sign through src/chains/bvm/signPsbt.ts. */
export type BvmWalletKey = BvmKey | BvmRemoteKey;

/**
 * Why a WIF was refused: `malformed` (not base58check, or not a private-key payload), `network` (a mainnet key
 * for testnet/regtest or the reverse), `uncompressed` (segwit needs compressed keys), `out-of-range` (zero or
 * not below the curve order).
 */
export type BvmKeyProblem = 'malformed' | 'network' | 'uncompressed' | 'out-of-range';

/** Outcome of {@link bvmKeyFromWif}. */
export type BvmKeyResult =
  { ok: true; key: BvmKey } | { ok: false; reason: BvmKeyProblem; /** human text without key material */ problem: string };

/** Options of {@link bvmKeyFromWif}. */
export interface BvmKeyOptions {
  network: BvmNetwork;
  addressType: BvmAddressType;
}

const WIF_MAINNET = 0x80;
const WIF_TEST = 0xef;

/**
 * Builds a Bitcoin key, signer and address from a WIF private key.
 *
 * @param wif WIF text (base58check: version ‖ 32-byte key ‖ 0x01 when compressed)
 * @param opts network the key must belong to, and the address type to derive
 * @returns `{ ok: true, key }` or `{ ok: false, reason, problem }`; never throws for bad key material
 * @example
 * const r = bvmKeyFromWif('KyZpNDKnfs94vbrwhJneDi77V6jF64PWPF8x5cdJb8ifgg2DUc9d', { network: 'mainnet', addressType: 'p2wpkh' });
 * if (r.ok) r.key.address; // 'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu' (BIP-84 test vector)
 */
export function bvmKeyFromWif(wif: string, opts: BvmKeyOptions): BvmKeyResult {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(wif);
  } catch {
    return fail(
      'malformed',
      'not a WIF private key (base58check text; mainnet keys start with K, L or 5, testnet/regtest keys with c or 9)',
    );
  }
  const version = payload[0];
  const shapeOk = payload.length === 33 || (payload.length === 34 && payload[33] === 0x01);
  if ((version !== WIF_MAINNET && version !== WIF_TEST) || !shapeOk) {
    return fail(
      'malformed',
      'not a WIF private key: the text decodes, but not to a version byte and a 32-byte key (an address or an extended key?)',
    );
  }
  const keyIsMainnet = version === WIF_MAINNET;
  if (keyIsMainnet !== (opts.network === 'mainnet')) {
    return fail(
      'network',
      `the WIF is a ${keyIsMainnet ? 'mainnet' : 'testnet/regtest'} key but network is ${opts.network}; use a ${opts.network === 'mainnet' ? 'mainnet' : 'testnet/regtest'} key or set network: ${keyIsMainnet ? 'mainnet' : 'testnet (or regtest)'}`,
    );
  }
  if (payload.length === 33) {
    return fail(
      'uncompressed',
      'the WIF encodes an uncompressed public key, which segwit and taproot addresses cannot use; export the key in compressed form',
    );
  }
  const network = BVM_NETWORK_PARAMS[opts.network];
  let pair: ECPairInterface;
  try {
    pair = ECPair.fromWIF(wif, network);
  } catch {
    return fail('out-of-range', 'not a valid secp256k1 private key (zero or above the curve order)');
  }
  return { ok: true, key: opts.addressType === 'p2tr' ? p2trKey(pair, opts.network) : p2wpkhKey(pair, opts.network) };
}

function fail(reason: BvmKeyProblem, problem: string): BvmKeyResult {
  return { ok: false, reason, problem };
}

function p2wpkhKey(pair: ECPairInterface, network: BvmNetwork): BvmKey {
  const publicKey = Uint8Array.from(pair.publicKey);
  const { address } = payments.p2wpkh({ pubkey: publicKey, network: BVM_NETWORK_PARAMS[network] });
  if (address === undefined) throw new Error('unreachable: p2wpkh of a valid public key has an address');
  const signer: BvmSigner = {
    publicKey,
    sign: (hash, lowR = true) => pair.sign(hash, lowR),
  };
  return { address, network, addressType: 'p2wpkh', publicKey, signer };
}

function p2trKey(pair: ECPairInterface, network: BvmNetwork): BvmKey {
  const publicKey = Uint8Array.from(pair.publicKey);
  const internalPubkey = Uint8Array.from(toXOnly(publicKey));
  const { address } = payments.p2tr({ internalPubkey, network: BVM_NETWORK_PARAMS[network] });
  if (address === undefined) throw new Error('unreachable: p2tr of a valid internal key has an address');
  // BIP-86: key-path only, so the tweak commits to the internal key alone (no script tree merkle root)
  const tweaked = pair.tweak(btcCrypto.taggedHash('TapTweak', internalPubkey));
  const signer: BvmSigner = {
    publicKey: Uint8Array.from(tweaked.publicKey),
    sign: (hash, lowR = true) => tweaked.sign(hash, lowR),
    signSchnorr: (hash) => tweaked.signSchnorr(hash),
  };
  return { address, network, addressType: 'p2tr', publicKey, internalPubkey, signer };
}

/** What a Bitcoin address text is, as far as its encoding tells. */
export interface BvmAddressInfo {
  /** Networks whose encoding it uses (testnet and regtest share the legacy base58 versions). */
  networks: BvmNetwork[];
  /** Script type: the two Ballast derives, the legacy ones, or another witness program. */
  kind: BvmAddressType | 'p2pkh' | 'p2sh' | 'other-segwit';
  /** True when a bech32 address is written in lower case, the canonical form. Always true for base58. */
  canonicalCase: boolean;
}

const BECH32_PREFIXES: Readonly<Record<string, BvmNetwork>> = { bc: 'mainnet', tb: 'testnet', bcrt: 'regtest' };

/**
 * Classifies a Bitcoin address by its encoding (bech32/bech32m per BIP-173/350, or base58check P2PKH/P2SH),
 * for messages that say what is wrong with a configured address. Checksums are verified.
 *
 * @param text candidate address
 * @returns what the address is, or undefined when it is not a Bitcoin address of a known network
 */
export function describeBvmAddress(text: string): BvmAddressInfo | undefined {
  try {
    const { version, prefix, data } = btcAddress.fromBech32(text);
    const network = BECH32_PREFIXES[prefix.toLowerCase()];
    if (network === undefined) return undefined;
    const kind = version === 0 && data.length === 20 ? 'p2wpkh' : version === 1 && data.length === 32 ? 'p2tr' : 'other-segwit';
    return { networks: [network], kind, canonicalCase: text === text.toLowerCase() };
  } catch {
    // not bech32: try base58check below
  }
  try {
    const { version } = btcAddress.fromBase58Check(text);
    const main = version === networks.bitcoin.pubKeyHash || version === networks.bitcoin.scriptHash;
    const test = version === networks.testnet.pubKeyHash || version === networks.testnet.scriptHash;
    if (!main && !test) return undefined;
    const kind = version === networks.bitcoin.pubKeyHash || version === networks.testnet.pubKeyHash ? 'p2pkh' : 'p2sh';
    return { networks: main ? ['mainnet'] : ['testnet', 'regtest'], kind, canonicalCase: true };
  } catch {
    return undefined;
  }
}
