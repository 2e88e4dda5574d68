/**
 * The Bitcoin model's accounts: the treasury's regtest P2WPKH wallet and the Relay's Bitcoin depository (keys
 * from fixed bytes), and alpha's addresses (the sandbox's accounts and contracts, WBTC 8 decimals).
 */
import { ECPairFactory } from 'ecpair';
import { networks, payments } from 'bitcoinjs-lib';
import * as ecc from 'tiny-secp256k1';
import { getAddress, type Address } from 'viem';
import { sandboxContractAddresses, DEFAULT_LOCAL_CHAINS } from '../../../packages/sandbox/src/chains/localChains.ts';
import { ACCOUNTS } from '../world.ts';

const ECPair = ECPairFactory(ecc);
const keyPair = (byte: number) => ECPair.fromPrivateKey(Buffer.alloc(32, byte), { network: networks.regtest });
const p2wpkh = (byte: number) => payments.p2wpkh({ pubkey: Buffer.from(keyPair(byte).publicKey), network: networks.regtest });

/** The treasury's Bitcoin wallet (regtest WIF, P2WPKH) and the Relay's Bitcoin depository. */
export const BTC_KEYS = {
  treasuryWif: keyPair(0x42).toWIF(),
  treasury: p2wpkh(0x42).address!, // a P2WPKH of a valid key always has an address
  treasuryScript: Buffer.from(p2wpkh(0x42).output!).toString('hex'),
  depository: p2wpkh(0x43).address!,
  depositoryScript: Buffer.from(p2wpkh(0x43).output!).toString('hex'),
};

const CONTRACTS = sandboxContractAddresses(ACCOUNTS.deployer.address);
const lower = (a: string) => getAddress(a).toLowerCase() as Address; // checked, then lower-cased
/** Alpha's addresses: treasury, solver, depository and WBTC (8 decimals). */
export const ALPHA = {
  chainId: DEFAULT_LOCAL_CHAINS[0]!.chainId,
  treasury: lower(ACCOUNTS.treasury.address),
  solver: lower(ACCOUNTS.solver.address),
  depository: lower(CONTRACTS.depository),
  wbtc: lower(CONTRACTS.wbtc),
};
