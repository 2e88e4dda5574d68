/**
 * The Solana {@link ChainAdapter} (API `vmType` `svm`): one @solana/web3.js `Connection` and the wallets' ed25519
 * signers (a key on the host or in a key service: src/chains/svm/signer.ts) behind the chain-adapter seam. Balances of SOL and SPL / Token-2022 tokens in one `getMultipleAccounts`
 * round trip at one slot; lookup tables read on chain for the verifier and again for signing; step items
 * signed as v0 transactions of exactly their instructions with a fresh blockhash, once their unsigned message
 * passed a simulation, written ahead with that blockhash's last valid block height; sent without a preflight,
 * never refused once signed; a lost transaction proven unable to land once that height has passed;
 * forks seen by signature status; deposits found by the depository's `DepositEvent` logs.
 *
 * A *block* is a slot here; a transaction counts as mined once `confirmed` and as final at
 * `chains.<name>.commitment`.
 */
import { base58, base64 } from '@scure/base';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { ChainAdapter, DepositSearch, Inclusion, PlannedItem, Recheck, SignedOriginTx, TxLookup } from '../adapter.ts';
import type { ChainCapabilities } from '../capabilities.ts';
import { SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { SvmAdapterError } from './errors.ts';
import { findSvmDeposit } from './findDeposit.ts';
import { svmNetworkCost } from './networkCost.ts';
import { quoteLookupTableAddresses, readLookupTables } from './lookupTables.ts';
import { readSvmBalances, readSvmDecimals } from './readBalances.ts';
import { createSvmRpc, nodeWords, type SvmFinality, type SvmRpc } from './rpc.ts';
import { readSignatureStatus } from './signatureStatus.ts';
import type { SvmSigner } from './signer.ts';
import { signSvmStepItem } from './signStepItem.ts';
import { lookupSvmTx, recheckSvmTx, waitForSvmInclusion } from './txState.ts';
import { validateSvmAddress } from './validateAddress.ts';
import { signSvmWithdrawalDigest } from './withdrawalSigning.ts';
import { chainLeadSec, defaultLastItemLeadSec } from '../../executor/deadlines.ts';

/** Relay's chain id of Solana mainnet (docs/relay-contract.md "What the service does" 4). */
export const SOLANA_CHAIN_ID = 792703809;
/** Default time between status reads while waiting for a transaction, ms (a slot is about 400 ms). */
export const DEFAULT_SVM_POLL_INTERVAL_MS = 500;
/** Least time between two blockhash-expiry checks while waiting for an unknown transaction, ms. */
export const SVM_EXPIRY_CHECK_MS = 5_000;

/** The roles a Solana adapter always plays beyond the seam: native balance and fee reads, withdrawal digests. */
export type SvmCapabilities = Required<Pick<ChainCapabilities, 'nativeBalanceReader' | 'gasMeter' | 'withdrawalSigner'>>;

/** The Solana adapter: the seam plus its finality commitment and the roles Solana plays. */
export interface SvmChainAdapter extends ChainAdapter {
  readonly vm: 'svm';
  /** Commitment at which a transaction is final (`chains.<name>.commitment`). */
  readonly commitment: SvmFinality;
  readonly capabilities: SvmCapabilities;
}

/** Options of {@link createSvmAdapter}, as `chains.<name>` and the wallets supply them. */
export interface SvmAdapterOptions {
  /** Config name (`chains.<name>`). */
  name: string;
  /** Relay chain id ({@link SOLANA_CHAIN_ID} on mainnet). */
  chainId: number;
  /** HTTP JSON-RPC endpoint (may embed a provider key; it never appears in messages). */
  rpcUrl: string;
  /** Websocket endpoint (web3.js `wsEndpoint`). */
  wsUrl: string;
  /** When a transaction counts as final: `confirmed` or `finalized`. */
  commitment: SvmFinality;
  /** Highest `SetComputeUnitPrice` a quote may carry, micro-lamports per compute unit. */
  maxMicroLamportsPerCu: bigint;
  /** Highest `SetComputeUnitLimit` a quote may carry, compute units. */
  maxComputeUnits: number;
  /** Signers by wallet name (Solana wallets only; src/chains/svm/signer.ts, remoteSigner.ts). */
  signers: ReadonlyMap<string, SvmSigner>;
  /**
   * The cluster's genesis hash, base58 (mainnet-beta: `5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d`). When
   * set, the first balance read checks the node serves that cluster (one `getGenesisHash`, then remembered);
   * Solana has no chain id to ask, and a devnet URL would otherwise read plausible balances.
   */
  genesisHash?: string;
  /** The fetch to use (default the global fetch). */
  fetch?: typeof globalThis.fetch;
  /** Time one JSON-RPC request may take, ms. */
  timeoutMs?: number;
  /** Time between status reads in `waitForInclusion`, ms (default {@link DEFAULT_SVM_POLL_INTERVAL_MS}). */
  pollIntervalMs?: number;
  /** `chains.<name>.minDeadlineLeadSec`: lead of the deposit, seconds (default 90; see `ChainAdapter.minDeadlineLeadSec`). */
  minDeadlineLeadSec?: number;
}

/**
 * Creates the adapter of one Solana chain. Nothing is sent to the node until a method is called.
 *
 * @throws TypeError when `rpcUrl` is not an http(s) URL
 * @example
 * const solana = createSvmAdapter({ name: 'solana', chainId: 792703809, rpcUrl, wsUrl, commitment: 'confirmed',
 *   maxMicroLamportsPerCu: 1_000_000n, maxComputeUnits: 1_400_000, signers: new Map([['treasury', svmKeypairSigner(keypair)]]) });
 * const read = await solana.readBalances([{ address: keypair.publicKey.toBase58(), currency: solana.nativeCurrency }]);
 */
export function createSvmAdapter(opts: SvmAdapterOptions): SvmChainAdapter {
  const { name, chainId, commitment, signers } = opts;
  const rpc: SvmRpc = createSvmRpc({
    name,
    rpcUrl: opts.rpcUrl,
    wsUrl: opts.wsUrl,
    commitment,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
  });
  const pollIntervalMs = opts.pollIntervalMs ?? DEFAULT_SVM_POLL_INTERVAL_MS;
  let clusterChecked = opts.genesisHash === undefined;

  const signerOf = (wallet: string): SvmSigner => {
    const found = signers.get(wallet);
    if (!found) throw new SvmAdapterError(`wallet ${wallet} is not a Solana wallet; it cannot sign on chain ${name}`);
    return found;
  };

  /** Null when the node serves the configured cluster (checked once), else why not. */
  async function clusterProblem(): Promise<string | null> {
    if (clusterChecked) return null;
    let served: string;
    try {
      served = await rpc.call('getGenesisHash', (c) => c.getGenesisHash());
    } catch (error) {
      return nodeWords(error);
    }
    if (served !== opts.genesisHash) {
      return `${rpc.at} serves the cluster with genesis hash ${served}, but chains.${name} expects ${opts.genesisHash}; point rpcUrl at that cluster`;
    }
    clusterChecked = true;
    return null;
  }

  return {
    name,
    chainId,
    vm: 'svm',
    commitment,
    minDeadlineLeadSec: (_amountIn, itemsLeft) => chainLeadSec(opts.minDeadlineLeadSec ?? defaultLastItemLeadSec('svm'), itemsLeft),
    nativeCurrency: SYSTEM_PROGRAM_ID,
    nativeDecimals: 9,
    currencyKey: (currency) => currency, // base58 is case-sensitive
    validateAddress: validateSvmAddress,
    async readBalances(holdings) {
      const problem = await clusterProblem();
      if (problem !== null) return { ok: false, error: problem };
      return readSvmBalances(rpc, holdings, commitment);
    },
    readDecimals: (mints) => readSvmDecimals(rpc, mints, commitment),
    async originFacts(quote) {
      return { lookupTables: await readLookupTables(rpc, quoteLookupTableAddresses(quote), commitment) };
    },
    depositLimits: { svmMaxMicroLamportsPerCu: opts.maxMicroLamportsPerCu, svmMaxComputeUnits: opts.maxComputeUnits },
    async planItem(item: PlannedItem) {
      return [item]; // Solana deposits need no approval: the item is signed as verified
    },
    async sign(wallet, item): Promise<SignedOriginTx> {
      const signed = await signSvmStepItem(rpc, { item, signer: signerOf(wallet), commitment, chainName: name });
      return { chainId, txHash: signed.signature, rawTx: signed.rawTx, request: signed.request };
    },
    async broadcast(rawTx) {
      // Sent as is: never simulated here. The message was simulated unsigned before it was signed
      // (src/chains/svm/simulate.ts); signed bytes handed to any node, for a simulation too, may land until their
      // blockhash expires, so no answer here proves "not sent" and this never throws a BroadcastRefusal. Every
      // error leaves the outcome unknown: the transfer stays in flight until `lookup` proves the blockhash
      // expired (`dropped`) or finds the transaction. skipPreflight: the node's own preflight would simulate the
      // signed bytes again, and on a backend that lags refuse them with "Blockhash not found" while another
      // backend may already have them. maxRetries 0: the node forwards it once and does not keep re-sending in the
      // background; Ballast re-sends the recorded bytes itself through reconciliation (src/cycle/reconcile.ts),
      // within the order's deadline, and proves a lost one dropped by its blockhash's expiry.
      const { bytes, signature: expected } = decodeRaw(rawTx);
      const answer = await rpc.call('sendTransaction', (c) => c.sendRawTransaction(bytes, { skipPreflight: true, maxRetries: 0 }));
      if (answer !== expected)
        throw new SvmAdapterError(`${rpc.at} answered sendTransaction with ${answer.slice(0, 90)}, not the signature ${expected}`);
    },
    async knows(txHash) {
      try {
        return (await readSignatureStatus(rpc, txHash)).status !== null;
      } catch {
        return false;
      }
    },
    waitForInclusion: (tx, timeoutMs): Promise<Inclusion> =>
      waitForSvmInclusion(rpc, tx, timeoutMs, { commitment, pollIntervalMs, expiryCheckMs: SVM_EXPIRY_CHECK_MS }),
    head: async () => BigInt(await rpc.call('getSlot', (c) => c.getSlot({ commitment }))),
    lookup: (tx): Promise<TxLookup> => lookupSvmTx(rpc, tx, commitment),
    recheck: (tx, head): Promise<Recheck> => recheckSvmTx(rpc, tx, head, commitment),
    findDeposit: (query): Promise<DepositSearch> => findSvmDeposit(rpc, query),
    async txBlock(txHash) {
      const { status } = await readSignatureStatus(rpc, txHash);
      return status && status.level !== 'processed' ? status.slot : null;
    },
    capabilities: {
      nativeBalanceReader: {
        readNativeBalance: async (address) => BigInt(await rpc.call('getBalance', (c) => c.getBalance(new PublicKey(address), commitment))),
      },
      gasMeter: {
        async gasPaid(txHash) {
          const tx = await rpc.call('getTransaction', (c) =>
            c.getTransaction(txHash, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 }),
          );
          return tx ? (svmNetworkCost(tx)?.totalLamports ?? null) : null;
        },
      },
      withdrawalSigner: { signWithdrawalDigest: async (wallet, digestHex) => signSvmWithdrawalDigest(signerOf(wallet), digestHex) },
    },
  };
}

/**
 * The wire bytes of a base64 transaction and its first signature, base58 (the transaction id).
 *
 * @throws SvmAdapterError when `rawTx` is not a signed Solana transaction (nothing is sent)
 */
function decodeRaw(rawTx: string): { bytes: Uint8Array; signature: string } {
  try {
    const bytes = base64.decode(rawTx);
    const tx = VersionedTransaction.deserialize(bytes);
    const first = tx.signatures[0];
    if (first === undefined) throw new Error('it carries no signature');
    return { bytes, signature: base58.encode(first) };
  } catch (error) {
    throw new SvmAdapterError(`not a signed Solana transaction in base64: ${nodeWords(error)}; nothing was sent`, { cause: error });
  }
}
