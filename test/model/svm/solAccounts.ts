/**
 * The Solana model's accounts: the treasury's key pair (fixed seed), the USDC mint, the Relay depository program
 * with its vault PDA and the associated token accounts of both for USDC (SPL Token), and alpha's addresses (the
 * sandbox's accounts and contracts, USDC 6 decimals).
 */
import { Keypair } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { getAddress, type Address } from 'viem';
import {
  associatedTokenAddress,
  depositoryPdas,
  RELAY_DEPOSITORY_PROGRAM_ID,
} from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { DEFAULT_LOCAL_CHAINS, sandboxContractAddresses } from '../../../packages/sandbox/src/chains/localChains.ts';
import { ACCOUNTS } from '../world.ts';

const treasury = Keypair.fromSeed(new Uint8Array(32).fill(0x61));
const mint = Keypair.fromSeed(new Uint8Array(32).fill(0x62)).publicKey.toBase58();
const vault = depositoryPdas(RELAY_DEPOSITORY_PROGRAM_ID).vault;

/** Solana addresses (base58) of the model. */
export const SOL = {
  keypair: treasury,
  /** The treasury wallet's 64-byte secret key in base58 (the config's `privateKey`). */
  secretKeyBase58: base58.encode(treasury.secretKey),
  treasury: treasury.publicKey.toBase58(),
  usdcMint: mint,
  depository: RELAY_DEPOSITORY_PROGRAM_ID,
  vault,
  treasuryAta: associatedTokenAddress(treasury.publicKey.toBase58(), mint),
  vaultAta: associatedTokenAddress(vault, mint),
};

const CONTRACTS = sandboxContractAddresses(ACCOUNTS.deployer.address);
const lower = (a: string) => getAddress(a).toLowerCase() as Address; // checked, then lower-cased
/** Alpha's addresses: treasury, solver, depository and USDC (6 decimals). */
export const ALPHA = {
  chainId: DEFAULT_LOCAL_CHAINS[0]!.chainId,
  treasury: lower(ACCOUNTS.treasury.address),
  solver: lower(ACCOUNTS.solver.address),
  depository: lower(CONTRACTS.depository),
  usdc: lower(CONTRACTS.usdc),
};
