/**
 * Starts the sandbox's Solana node (docs/design.md "The local Relay sandbox"): litesvm behind a JSON-RPC HTTP
 * server and a websocket server that an unmodified `@solana/web3.js` `Connection(rpcUrl, { wsEndpoint:
 * wsUrl })` and the Relay SDK's Solana adapter can use, with a test USDC mint, a funded solver wallet and a
 * stand-in for the Relay depository program (see svmEngine.ts and depositoryRules.ts).
 *
 * Slots: one per landed transaction, and one every `slotIntervalMs` (default 400 ms) on a timer.
 */
import { Keypair, PublicKey } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { pino, type Logger } from 'pino';
import { RELAY_DEPOSITORY_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import { SolanaNodeError } from './errors.ts';
import { createGenesis } from './genesis.ts';
import type { SvmLandedDeposit } from './ledger.ts';
import { NodeFaults } from './nodeFaults.ts';
import { airdrop, createMint, lamportsOf, mintTo, tokenBalanceOf, transferFrom } from './nodeWallets.ts';
import { accountMethods } from './rpcAccountMethods.ts';
import { clusterMethods } from './rpcClusterMethods.ts';
import type { RpcContext } from './rpcContext.ts';
import { createDispatcher, startRpcHttpServer, type RpcHttpServer } from './rpcHttp.ts';
import { transactionMethods } from './rpcTransactionMethods.ts';
import { startRpcWebSocketServer, type RpcWebSocketServer } from './rpcWebSocket.ts';
import { BLOCKHASH_VALIDITY_HEIGHTS, SlotClock } from './slotClock.ts';
import { SvmEngine, type DepositFault } from './svmEngine.ts';

/** Decimals of the test USDC mint. */
export const SANDBOX_USDC_DECIMALS = 6;
/** Lamports the solver starts with: 1 000 SOL. */
export const SOLVER_START_LAMPORTS = 1_000n * 1_000_000_000n;
/** Test USDC the solver starts with, base units: 1 000 000 USDC. */
export const SOLVER_START_USDC = 1_000_000n * 1_000_000n;
const DEFAULT_SLOT_INTERVAL_MS = 400;
const START_SLOT = 1;

/** Options of {@link startSolanaNode}. */
export interface StartSolanaNodeOptions {
  /** Interface to listen on; loopback only. */
  host?: '127.0.0.1';
  /** JSON-RPC HTTP port (default 0: a free port). The websocket always takes a free port of its own. */
  port?: number;
  /** Parent logger (default silent); the node logs as `{component: 'svm-node'}`. */
  logger?: Logger;
  /** Program id the node stands in for (default {@link RELAY_DEPOSITORY_PROGRAM_ID}). */
  depositoryProgramId?: string;
  /** Period of the slot timer in milliseconds (default 400, at least 10). */
  slotIntervalMs?: number;
}

/** A running sandbox Solana node. Amounts are bigint base units (lamports, token units). */
export interface SolanaSandboxNode {
  /** JSON-RPC HTTP endpoint, e.g. `http://127.0.0.1:41234`. */
  rpcUrl: string;
  /** Websocket endpoint, e.g. `ws://127.0.0.1:41235` (pass as `wsEndpoint`). */
  wsUrl: string;
  /** The depository program id the node stands in for. */
  depositoryProgramId: string;
  /** PDAs of the depository program: `relayDepository` and `vault` (base58). */
  depository: { relayDepository: string; vault: string };
  /** The test USDC mint (SPL Token program, 6 decimals). */
  usdcMint: string;
  /** The solver's wallet, funded with {@link SOLVER_START_LAMPORTS} and {@link SOLVER_START_USDC}. */
  solver: Keypair;
  /** Latest slot. */
  slot(): number;
  /** Sends `lamports` from the faucet to `address`; returns the signature. */
  airdrop(address: string, lamports: bigint): Promise<string>;
  /** Mints `amount` of `mint` (a mint made by the node) to `owner`'s ATA, creating it if missing; returns the signature. */
  mintTo(owner: string, mint: string, amount: bigint): Promise<string>;
  /** Creates a mint with the node as mint authority; returns its address. */
  createMint(decimals: number, opts?: { tokenProgram?: string }): Promise<string>;
  /** Lamports of `address` (0 when it does not exist). */
  balance(address: string): bigint;
  /** Base units of `mint` in `owner`'s associated token account (0 when it does not exist). */
  tokenBalance(owner: string, mint: string): bigint;
  /** Depository deposits landed at or after `fromSlot` (default all), in landing order. */
  listDeposits(fromSlot?: number): SvmLandedDeposit[];
  /**
   * Pays `amount` from the solver to `recipient`: lamports when `mint` is null, else `mint` tokens to the
   * recipient's ATA (created if missing, paid by the solver). A real signed transaction.
   *
   * @throws SolanaNodeError `SOLANA_NODE_TX_FAILED` when it fails (e.g. the solver lacks the funds)
   */
  fill(args: { recipient: string; mint: string | null; amount: bigint }): Promise<{ signature: string; slot: number }>;
  /** Fault: the next `n` sendTransaction calls answer with the signature but never land. */
  dropNextSends(n: number): void;
  /** Fault: the next `n` calls of `method` (HTTP or websocket) answer -32603 Internal error. */
  failNextRpc(method: string, n: number): void;
  /** Fault: jumps the block height past the last valid height of every blockhash issued so far. */
  expireBlockhashes(): void;
  /**
   * Fault, until set back to `off`: depository deposits fail with the token program's insufficient funds, in
   * every execution (`simulated`: simulation and preflight refuse them) or only when they land (`landing`:
   * simulations pass, the transaction lands failed with its fee charged).
   */
  failDeposits(mode: DepositFault): void;
  /** Stops the slot timer and both servers, closing every connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the node: genesis state, test USDC, funded solver, HTTP and websocket servers, slot timer.
 *
 * @throws SolanaNodeError `SOLANA_NODE_BAD_ARGUMENT` on a bad program id or host, `SOLANA_NODE_LISTEN_FAILED`
 *   when a server cannot listen
 * @example
 * const node = await startSolanaNode();
 * const connection = new Connection(node.rpcUrl, { wsEndpoint: node.wsUrl, commitment: 'confirmed' });
 * await node.close();
 */
export async function startSolanaNode(opts: StartSolanaNodeOptions = {}): Promise<SolanaSandboxNode> {
  const host = opts.host ?? '127.0.0.1';
  if (host !== '127.0.0.1') throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `host must be 127.0.0.1, got ${String(host)}`);
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'svm-node' });
  const slotIntervalMs = opts.slotIntervalMs ?? DEFAULT_SLOT_INTERVAL_MS;
  if (!Number.isFinite(slotIntervalMs) || slotIntervalMs < 10) {
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `slotIntervalMs must be a number of milliseconds ≥ 10, got ${slotIntervalMs}`);
  }
  const programId = opts.depositoryProgramId ?? RELAY_DEPOSITORY_PROGRAM_ID;
  try {
    new PublicKey(programId);
  } catch (error) {
    throw new SolanaNodeError('SOLANA_NODE_BAD_ARGUMENT', `depositoryProgramId ${programId} is not a base58 public key`, { cause: error });
  }
  const genesis = createGenesis(programId);
  const clock = new SlotClock(base58.encode(Keypair.generate().publicKey.toBytes()), START_SLOT, () => Math.floor(Date.now() / 1000));
  const engine = new SvmEngine({ svm: genesis.svm, clock, programId, logger });
  const faucet = genesis.faucet;
  const mintAuthority = Keypair.generate();
  const usdcMint = createMint(engine, faucet, mintAuthority.publicKey, SANDBOX_USDC_DECIMALS, TOKEN_PROGRAM_ID);
  const solver = Keypair.generate();
  airdrop(engine, faucet, solver.publicKey.toBase58(), SOLVER_START_LAMPORTS);
  mintTo(engine, faucet, mintAuthority, solver.publicKey.toBase58(), usdcMint, SOLVER_START_USDC);

  const faults = new NodeFaults();
  const ctx: RpcContext = { engine, faucet, faults, logger };
  const dispatch = createDispatcher({ ...clusterMethods(ctx), ...accountMethods(ctx), ...transactionMethods(ctx) }, faults, logger);
  let http: RpcHttpServer | undefined;
  let ws: RpcWebSocketServer | undefined;
  try {
    http = await startRpcHttpServer(host, opts.port ?? 0, dispatch, logger);
    ws = await startRpcWebSocketServer(host, 0, engine, faults, logger);
  } catch (error) {
    await http?.close();
    const why = error instanceof Error ? error.message : String(error);
    throw new SolanaNodeError(
      'SOLANA_NODE_LISTEN_FAILED',
      `the Solana node could not listen on ${host}:${opts.port ?? 0}: ${why}; pick another port`,
      { cause: error },
    );
  }
  const timer = setInterval(() => {
    try {
      engine.advanceSlot();
    } catch (error) {
      logger.error({ err: error }, 'producing a slot failed');
    }
  }, slotIntervalMs);
  timer.unref();
  const { rpcUrl, wsUrl } = { rpcUrl: http.url, wsUrl: ws.url };
  logger.info({ rpcUrl, wsUrl, depositoryProgramId: programId, usdcMint, solver: solver.publicKey.toBase58() }, 'Solana node started');

  const servers = { http, ws };
  let closing: Promise<void> | undefined;
  return {
    rpcUrl,
    wsUrl,
    depositoryProgramId: programId,
    depository: { ...engine.pdas },
    usdcMint,
    solver,
    slot: () => clock.slot,
    airdrop: async (address, lamports) => airdrop(engine, faucet, address, lamports).signature,
    mintTo: async (owner, mint, amount) => mintTo(engine, faucet, mintAuthority, owner, mint, amount).signature,
    createMint: async (decimals, o) => createMint(engine, faucet, mintAuthority.publicKey, decimals, o?.tokenProgram ?? TOKEN_PROGRAM_ID),
    balance: (address) => lamportsOf(engine, address),
    tokenBalance: (owner, mint) => tokenBalanceOf(engine, owner, mint),
    listDeposits: (fromSlot) => engine.deposits(fromSlot),
    fill: async (args) => {
      const landed = transferFrom(engine, solver, args);
      return { signature: landed.signature, slot: landed.slot };
    },
    dropNextSends: (n) => faults.dropNextSends(n),
    failNextRpc: (method, n) => faults.failNextRpc(method, n),
    expireBlockhashes: () => void engine.advanceSlot(BLOCKHASH_VALIDITY_HEIGHTS + 1),
    failDeposits: (mode) => void (engine.depositFault = mode),
    close: () =>
      (closing ??= (async () => {
        clearInterval(timer);
        await servers.ws.close();
        await servers.http.close();
        logger.info({ rpcUrl }, 'Solana node stopped');
      })()),
  };
}
