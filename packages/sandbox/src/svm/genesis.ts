/**
 * The sandbox Solana node's initial state: a litesvm instance with the builtin and SPL programs (SPL Token,
 * Token-2022, Associated Token, Address Lookup Table — litesvm's bundled builds), a faucet account, and the
 * depository program's accounts as `initialize` would leave them: the program account itself (executable,
 * upgradeable loader), the `relay_depository` PDA (Anchor `RelayDepository { owner, allocator, vault_bump,
 * chain_id }`) and the vault PDA funded with its rent-exempt minimum so the first deposit of any size lands.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { LiteSVM } from 'litesvm';
import { SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { RELAY_DEPOSITORY_ACCOUNT_DISCRIMINATOR } from './depositoryRules.ts';

/**
 * Lamports the faucet starts with (airdrops and helper fees come from it): 5 000 000 SOL, below 2^53 so JSON
 * clients read its balance exactly.
 */
export const FAUCET_LAMPORTS = 5_000_000n * 1_000_000_000n;
/** `chain_id` stored in the sandbox's `relay_depository` account. */
export const SANDBOX_DEPOSITORY_CHAIN_ID = 'solana-sandbox';
const UPGRADEABLE_LOADER_ID = 'BPFLoaderUpgradeab1e11111111111111111111111';

/** The kit-branded address and lamports types litesvm's API takes. */
type KitAddress = Parameters<LiteSVM['getAccount']>[0];
type KitLamports = Parameters<LiteSVM['airdrop']>[1];

/** Writes an account into litesvm state. */
export function setAccount(
  svm: LiteSVM,
  address: string,
  lamports: bigint,
  owner: string,
  data: Uint8Array = new Uint8Array(),
  executable = false,
): void {
  // Kit's `Address` and `Lamports` are brands over a base58 string and a bigint, which is what these are.
  svm.setAccount({
    address: address as KitAddress,
    lamports: lamports as KitLamports,
    data,
    programAddress: owner as KitAddress,
    executable,
    space: BigInt(data.length),
  });
}

/** Accounts created at genesis. */
export interface Genesis {
  svm: LiteSVM;
  faucet: Keypair;
  /** Owner and allocator recorded in the `relay_depository` account (keys the sandbox holds). */
  depositoryOwner: Keypair;
}

/**
 * Creates the litesvm instance and writes the genesis accounts.
 *
 * @param programId the depository program id (base58)
 * @throws Error when `programId` is not a valid public key
 */
export function createGenesis(programId: string): Genesis {
  const svm = new LiteSVM().withSigverify(false).withBlockhashCheck(false).withTransactionHistory(0n);
  const faucet = Keypair.generate();
  setAccount(svm, faucet.publicKey.toBase58(), FAUCET_LAMPORTS, SYSTEM_PROGRAM_ID);

  const program = new PublicKey(programId);
  const [programData] = PublicKey.findProgramAddressSync([program.toBuffer()], new PublicKey(UPGRADEABLE_LOADER_ID));
  const programAccount = new Uint8Array(36);
  programAccount[0] = 2; // UpgradeableLoaderState::Program { programdata_address }
  programAccount.set(programData.toBytes(), 4);
  setAccount(svm, programId, svm.minimumBalanceForRentExemption(36n), UPGRADEABLE_LOADER_ID, programAccount, true);

  const [relayDepository] = PublicKey.findProgramAddressSync([Buffer.from('relay_depository')], program);
  const [vault, vaultBump] = PublicKey.findProgramAddressSync([Buffer.from('vault')], program);
  const depositoryOwner = Keypair.generate();
  const chainId = new TextEncoder().encode(SANDBOX_DEPOSITORY_CHAIN_ID);
  const data = new Uint8Array(8 + 32 + 32 + 1 + 4 + chainId.length);
  data.set(RELAY_DEPOSITORY_ACCOUNT_DISCRIMINATOR, 0);
  data.set(depositoryOwner.publicKey.toBytes(), 8);
  data.set(depositoryOwner.publicKey.toBytes(), 40);
  data[72] = vaultBump;
  new DataView(data.buffer).setUint32(73, chainId.length, true);
  data.set(chainId, 77);
  setAccount(svm, relayDepository.toBase58(), svm.minimumBalanceForRentExemption(BigInt(data.length)), programId, data);
  setAccount(svm, vault.toBase58(), svm.minimumBalanceForRentExemption(0n), SYSTEM_PROGRAM_ID);
  return { svm, faucet, depositoryOwner };
}
