/**
 * Starts the whole local Relay sandbox (docs/design.md "The local Relay sandbox"): anvil chains with the
 * depository, test USDC, USDT and WBTC and the router contracts (`src/sandbox/chains`), optionally the Solana
 * node (litesvm) and the Bitcoin Esplora node (`vmNodes.ts`), the Relay-compatible HTTP API and the solver.
 */
import { pino, type Logger } from 'pino';
import { createWalletClient, http, type LocalAccount } from 'viem';
import { startVmNodes, type BitcoinNodePolicy, type SandboxBitcoin, type SandboxSolana, type VmNodes } from './vmNodes.ts';
import {
  startLocalChains,
  type BalancePreset,
  type LocalChainDef,
  type LocalEvmChain,
  type SandboxAccounts,
} from './chains/localChains.ts';
import { bitcoinFaultRoutes } from './api/bitcoinFaultRoutes.ts';
import { createViemChainIo } from './api/chainIo.ts';
import { FaultState } from './api/faultState.ts';
import { RequestStore } from './api/requestStore.ts';
import { createSandboxApi } from './api/server.ts';
import type { SandboxState } from './api/state.ts';
import type { SandboxFaults } from './faults.ts';
import { sandboxChainInfo } from './quote/chainTable.ts';
import { DEFAULT_SANDBOX_PRICING } from './quote/fees.ts';
import { DEFAULT_PRICES_USD, parsePrices } from './quote/prices.ts';
import { startSolver } from './solver/solver.ts';
import { depositoryExecuteAbi } from '@ballast/protocol/protocol/depositoryExecute.ts';
import { withdrawalRoutes } from './withdrawals/routes.ts';
import { createWithdrawalService, type WithdrawalOptions } from './withdrawals/service.ts';
import { SandboxWebhookError, WebhookSender, type SandboxWebhookOptions, type WebhookAttempt } from './webhooks/sender.ts';

/** Options of {@link startSandbox}. */
export interface SandboxOptions {
  /** Chains to start (default alpha 31001 and beta 31002). */
  chains?: LocalChainDef[];
  /** Initial balances (default the chains module's DEMO_BALANCES). */
  balances?: BalancePreset;
  /** ETH price in USD, decimal string (default "3000"); USDC and USDT are 1 USD. */
  ethUsd?: string;
  /** API port on 127.0.0.1 (default 0: a free port). */
  port?: number;
  /** Initial fault knobs (default: none). */
  faults?: Partial<SandboxFaults>;
  /** When set, POST /quote/v2 requires this `x-api-key`. */
  apiKey?: string;
  /** Parent logger (default silent). */
  logger?: Logger;
  /** Serve Solana: start the Solana node, fund a Solana treasury (default false). */
  solana?: boolean;
  /** Serve Bitcoin: start the Esplora node, fund a Bitcoin treasury, list WBTC on the EVM chains (default false). */
  bitcoin?: boolean;
  /** Bitcoin: milliseconds between automatically mined blocks (default 1000; 0 = only `bitcoin.node.mine()`). */
  bitcoinBlockMs?: number;
  /** Bitcoin: deposits of at least this many satoshis wait for 2 confirmations, smaller ones 1 (default 1 BTC). */
  bitcoinHighValueSats?: bigint;
  /**
   * Bitcoin node mempool policy: minimum relay fee rate (sat/vB, default 1n), incremental relay fee rate
   * (sat/vB, default 1n), full replace-by-fee (default true). See `StartEsploraNodeOptions`.
   */
  bitcoinNode?: BitcoinNodePolicy;
  /**
   * Withdrawal endpoints timing, ms: `stepMs` per job step (default 1000), `minPollMs` between status polls of
   * one job before 429 (default 5000), `readyTtlMs` a ready transaction stays executable (default 10 min).
   */
  withdrawals?: WithdrawalOptions;
  /**
   * Deliver signed `request.status.updated` webhooks to `url` on each status change (docs/relay-contract.md "Events" →
   * "Webhooks"); `secret` defaults to `apiKey`. See src/sandbox/webhooks/sender.ts.
   */
  webhook?: SandboxWebhookOptions;
}

/** A running sandbox. */
export interface Sandbox {
  /** Base URL of the API, e.g. `http://127.0.0.1:41234`. */
  apiUrl: string;
  /**
   * The started chains with their contract addresses: `depository`, `usdc`, `usdt`, `multicall3`,
   * `erc20Router`, `approvalProxy`, `v3.erc20Router`, `v3.approvalProxy` (as GET /chains lists them).
   */
  chains: LocalEvmChain[];
  accounts: SandboxAccounts;
  /** The Solana chain, when `solana` was set: URLs, the node, the test USDC mint and a funded treasury. */
  solana?: SandboxSolana;
  /** The Bitcoin chain, when `bitcoin` was set: Esplora URL, the node, a funded treasury and the depository. */
  bitcoin?: SandboxBitcoin;
  /** Applies a partial faults patch (top-level keys replace). */
  setFaults(f: Partial<SandboxFaults>): void;
  /** Back to no faults. */
  resetFaults(): void;
  /** Webhook delivery, when `webhook` was set: every attempt so far, and a wait for the queue to drain. */
  webhooks?: { attempts(): readonly WebhookAttempt[]; idle(): Promise<void> };
  /** Stops the solver, the API, block production, the Solana and Bitcoin nodes and every anvil node. Idempotent. */
  stop(): Promise<void>;
}

/**
 * Starts chains, solver and API. On any failure everything already started is stopped before rethrowing.
 *
 * @throws LocalChainsError / AnvilError from the chains module; SandboxPriceError on a bad `ethUsd`;
 *   a listen error when `port` is taken
 * @example
 * const sandbox = await startSandbox();
 * const chains = await fetch(`${sandbox.apiUrl}/chains`).then((r) => r.json());
 * await sandbox.stop();
 */
export async function startSandbox(opts: SandboxOptions = {}): Promise<Sandbox> {
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'sandbox' });
  const webhookSecret = opts.webhook?.secret ?? opts.apiKey;
  if (opts.webhook && !webhookSecret)
    throw new SandboxWebhookError('webhook delivery needs a secret: pass webhook.secret or apiKey (the key Ballast has as relay.apiKey)');
  const prices = parsePrices({ ...DEFAULT_PRICES_USD, ...(opts.ethUsd !== undefined ? { ETH: opts.ethUsd } : {}) });
  const local = await startLocalChains({
    ...(opts.chains !== undefined ? { chains: opts.chains } : {}),
    ...(opts.balances !== undefined ? { balances: opts.balances } : {}),
  });
  const solverAccount: LocalAccount = local.accounts.solver;
  let nodes: VmNodes;
  try {
    nodes = await startVmNodes({
      solana: opts.solana === true,
      bitcoin: opts.bitcoin === true,
      bitcoinBlockMs: opts.bitcoinBlockMs ?? 1000,
      ...(opts.bitcoinNode !== undefined ? { bitcoinNode: opts.bitcoinNode } : {}),
      logger,
    });
  } catch (error) {
    await local.stop();
    throw error;
  }
  const state: SandboxState = {
    chains: local.chains.map((c) => sandboxChainInfo(c.def, c.rpcUrl, c, { wbtc: opts.bitcoin === true })),
    prices,
    pricing: DEFAULT_SANDBOX_PRICING,
    solver: solverAccount,
    apiKey: opts.apiKey,
    faults: new FaultState(opts.faults ?? {}),
    requests: new RequestStore(),
    io: createViemChainIo(new Map(local.chains.map((c) => [c.def.chainId, c.publicClient]))),
    indexer: null,
    logger,
    nowMs: () => Date.now(),
    ...(nodes.state ? { vm: nodes.state } : {}),
  };
  state.requests.onChange((r) =>
    logger.debug({ requestId: r.requestId, status: r.status, txHashes: r.txHashes }, 'request status changed'),
  );
  const sender = opts.webhook
    ? new WebhookSender(
        { ...opts.webhook, secret: webhookSecret },
        {
          logger: logger.child({ component: 'sandbox-webhooks' }),
          faults: () => state.faults.get(),
          nowMs: () => Date.now(),
        },
      )
    : null;
  if (sender) state.requests.onChange((r) => sender.enqueue(r));

  const publicClients = new Map(local.chains.map((c) => [c.def.chainId, c.publicClient]));
  const withdrawals = createWithdrawalService({
    state,
    ...(opts.withdrawals !== undefined ? { options: opts.withdrawals } : {}),
    readCallRequest: async (chainId, depository, id) => {
      const client = publicClients.get(chainId);
      if (!client) throw new Error(`no client for chain ${chainId}`); // jobs are only built for chains of this table
      return client.readContract({ address: depository, abi: depositoryExecuteAbi, functionName: 'callRequests', args: [id] });
    },
  });
  const withdrawalApi = withdrawalRoutes(withdrawals);
  const bitcoinApi = nodes.bitcoin ? bitcoinFaultRoutes(nodes.bitcoin.node) : {};
  const api = createSandboxApi(state, { public: { ...withdrawalApi.public }, admin: { ...withdrawalApi.admin, ...bitcoinApi.admin } });
  let solver: Awaited<ReturnType<typeof startSolver>> | null = null;
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> =>
    (stopping ??= (async () => {
      await solver?.stop();
      await sender?.stop();
      await api.close();
      await nodes.stop();
      await local.stop();
    })());

  try {
    solver = await startSolver({
      state,
      chains: local.chains.map((c) => ({
        chainId: c.def.chainId,
        depository: c.depository,
        publicClient: c.publicClient,
        walletClient: createWalletClient({ account: solverAccount, chain: c.chain, transport: http(c.rpcUrl) }),
        wsUrl: c.rpcUrl.replace(/^http/, 'ws'), // anvil serves WebSocket on its HTTP port
      })),
      ...(nodes.solana ? { solana: { node: nodes.solana.node } } : {}),
      ...(nodes.solver.bitcoin ? { bitcoin: { ...nodes.solver.bitcoin, highValueSats: opts.bitcoinHighValueSats ?? 100_000_000n } } : {}),
    });
    state.indexer = solver;
    const apiUrl = await api.listen(opts.port ?? 0);
    logger.info({ apiUrl, chains: state.chains.map((c) => c.slug) }, 'sandbox started');
    return {
      apiUrl,
      chains: local.chains,
      accounts: local.accounts,
      ...(nodes.solana ? { solana: nodes.solana } : {}),
      ...(nodes.bitcoin ? { bitcoin: nodes.bitcoin } : {}),
      ...(sender ? { webhooks: { attempts: () => sender.attempts(), idle: () => sender.idle() } } : {}),
      setFaults: (f) => void state.faults.set(f),
      resetFaults: () => void state.faults.reset(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
