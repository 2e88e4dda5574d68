/**
 * The sandbox's non-EVM nodes: the Solana node (litesvm, `svm/startSolanaNode.ts`) and the Bitcoin Esplora node
 * (`bvm/startEsploraNode.ts`, regtest), each with a funded treasury for the operator and what the API and the
 * solver need: the chain entries, the chain reads, the solver's wallets and the Bitcoin depository key. The
 * Bitcoin node mines a block every `bitcoinBlockMs` (0: only on demand).
 */
import { Keypair } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { networks } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import type { Logger } from 'pino';
import * as ecc from 'tiny-secp256k1';
import { createVmChainIo, esploraCoins, esploraFeeRate } from './api/vmIo.ts';
import type { SandboxVmState } from './api/state.ts';
import { startEsploraNode, type BitcoinSandboxNode, type StartEsploraNodeOptions } from './bvm/startEsploraNode.ts';
import { sandboxBitcoinChain, sandboxSolanaChain, type SandboxNonEvmChain } from './quote/vmChains.ts';
import { p2wpkhKeyWallet, type BtcKeyWallet } from './solver/btcWallet.ts';
import type { SolverBitcoin } from './solver/solver.ts';
import { startSolanaNode, type SolanaSandboxNode } from './svm/startSolanaNode.ts';

const ECPair = ECPairFactory(ecc);

/** SOL the Solana treasury starts with, lamports: 100 SOL. */
export const SOLANA_TREASURY_LAMPORTS = 100n * 1_000_000_000n;
/** Test USDC the Solana treasury starts with, base units: 100 000 USDC. */
export const SOLANA_TREASURY_USDC = 100_000n * 1_000_000n;
/** The Bitcoin treasury's starting coins, satoshis: 2 + 1 + 1 + 1 BTC in four outputs. */
export const BITCOIN_TREASURY_COINS_SATS: readonly bigint[] = [200_000_000n, 100_000_000n, 100_000_000n, 100_000_000n];
/** The solver's Bitcoin wallet, satoshis: 100 BTC. */
export const BITCOIN_SOLVER_SATS = 10_000_000_000n;

/** The Solana side of a running sandbox. */
export interface SandboxSolana {
  rpcUrl: string;
  wsUrl: string;
  node: SolanaSandboxNode;
  /** The test USDC mint (6 decimals), base58. */
  usdcMint: string;
  /** The depository program id GET /chains lists. */
  depositoryProgramId: string;
  /** A funded wallet for the operator ({@link SOLANA_TREASURY_LAMPORTS}, {@link SOLANA_TREASURY_USDC}). */
  treasury: { keypair: Keypair; address: string; /** 64-byte secret key, base58 (sandbox only). */ secretKeyBase58: string };
}

/** The Bitcoin side of a running sandbox (regtest). */
export interface SandboxBitcoin {
  esploraUrl: string;
  node: BitcoinSandboxNode;
  /** A funded P2WPKH wallet for the operator ({@link BITCOIN_TREASURY_COINS_SATS}); WIF is regtest (sandbox only). */
  treasury: { wif: string; address: string };
  /** The depository address GET /chains lists (its key is the sandbox's). */
  depository: string;
  /** The solver's own wallet, which pays Bitcoin fills. */
  solverAddress: string;
}

/** Mempool policy knobs of the sandbox's Bitcoin node (see `StartEsploraNodeOptions`). */
export type BitcoinNodePolicy = Pick<StartEsploraNodeOptions, 'minFeeRateSatPerVb' | 'incrementalRelayFeeSatPerVb' | 'fullRbf'>;

/** Options of {@link startVmNodes}. */
export interface StartVmNodesOptions {
  solana: boolean;
  bitcoin: boolean;
  /** Milliseconds between mined Bitcoin blocks; 0 = only on demand. */
  bitcoinBlockMs: number;
  /** Mempool policy of the Bitcoin node (defaults: Bitcoin Core 28's). */
  bitcoinNode?: BitcoinNodePolicy;
  logger: Logger;
}

/** The started nodes and what the API and solver need of them. */
export interface VmNodes {
  /** For `SandboxState.vm`; absent when neither chain is served. */
  state?: SandboxVmState;
  solana?: SandboxSolana;
  bitcoin?: SandboxBitcoin;
  solver: { bitcoin?: Omit<SolverBitcoin, 'highValueSats'> };
  /** Stops block production and closes the nodes. Idempotent. */
  stop(): Promise<void>;
}

async function startSolana(logger: Logger): Promise<SandboxSolana> {
  const node = await startSolanaNode({ logger });
  try {
    const keypair = Keypair.generate();
    const address = keypair.publicKey.toBase58();
    await node.airdrop(address, SOLANA_TREASURY_LAMPORTS);
    await node.mintTo(address, node.usdcMint, SOLANA_TREASURY_USDC);
    return {
      rpcUrl: node.rpcUrl,
      wsUrl: node.wsUrl,
      node,
      usdcMint: node.usdcMint,
      depositoryProgramId: node.depositoryProgramId,
      treasury: { keypair, address, secretKeyBase58: base58.encode(keypair.secretKey) },
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

async function startBitcoin(
  logger: Logger,
  policy: BitcoinNodePolicy = {},
): Promise<{ side: SandboxBitcoin; solver: BtcKeyWallet; depository: BtcKeyWallet }> {
  const node = await startEsploraNode({ ...policy, network: 'regtest', logger });
  try {
    const treasuryKey = ECPair.makeRandom({ network: networks.regtest });
    const treasury = p2wpkhKeyWallet(treasuryKey);
    const solver = p2wpkhKeyWallet();
    const depository = p2wpkhKeyWallet();
    for (const sats of BITCOIN_TREASURY_COINS_SATS) node.faucet(treasury.address, sats);
    node.faucet(solver.address, BITCOIN_SOLVER_SATS);
    return {
      side: {
        esploraUrl: node.url,
        node,
        treasury: { wif: treasuryKey.toWIF(), address: treasury.address },
        depository: depository.address,
        solverAddress: solver.address,
      },
      solver,
      depository,
    };
  } catch (error) {
    await node.close();
    throw error;
  }
}

/**
 * Starts the requested nodes and funds their treasuries. On a failure every node already started is closed.
 *
 * @throws SolanaNodeError / a listen error from the nodes
 */
export async function startVmNodes(opts: StartVmNodesOptions): Promise<VmNodes> {
  const solana = opts.solana ? await startSolana(opts.logger) : undefined;
  let bitcoin: Awaited<ReturnType<typeof startBitcoin>> | undefined;
  try {
    bitcoin = opts.bitcoin ? await startBitcoin(opts.logger, opts.bitcoinNode) : undefined;
  } catch (error) {
    await solana?.node.close();
    throw error;
  }
  const btc = bitcoin;
  const timer =
    btc && opts.bitcoinBlockMs > 0
      ? setInterval(() => {
          try {
            btc.side.node.mine(1);
          } catch (error) {
            opts.logger.error({ err: error }, 'mining a Bitcoin block failed');
          }
        }, opts.bitcoinBlockMs)
      : null;
  timer?.unref();
  const chains: SandboxNonEvmChain[] = [];
  if (solana) chains.push(sandboxSolanaChain(solana.node));
  if (btc) chains.push(sandboxBitcoinChain(btc.side.esploraUrl, btc.side.depository));
  let stopping: Promise<void> | undefined;
  return {
    ...(chains.length > 0
      ? {
          state: {
            chains,
            io: createVmChainIo({ ...(solana ? { solana: solana.node } : {}), ...(btc ? { bitcoin: btc.side.node } : {}) }),
            solverWallets: {
              ...(solana ? { svm: solana.node.solver.publicKey.toBase58() } : {}),
              ...(btc ? { bvm: btc.solver.address } : {}),
            },
            solanaQuoteLog: [],
          },
        }
      : {}),
    ...(solana ? { solana } : {}),
    ...(btc ? { bitcoin: btc.side } : {}),
    solver: btc
      ? {
          bitcoin: {
            node: btc.side.node,
            wallet: btc.solver,
            depository: btc.depository,
            coins: (address) => esploraCoins(btc.side.esploraUrl, address, { confirmedOnly: false }),
            feeRate: () => esploraFeeRate(btc.side.esploraUrl),
          },
        }
      : {},
    stop: () =>
      (stopping ??= (async () => {
        if (timer) clearInterval(timer);
        await Promise.all([solana?.node.close(), btc?.side.node.close()]);
      })()),
  };
}
