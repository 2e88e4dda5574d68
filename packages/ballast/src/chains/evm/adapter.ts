/**
 * The EVM {@link ChainAdapter}: viem public client and local accounts behind the chain-adapter seam. Behaviour is
 * the EVM money path as it was before the seam: balances in one multicall at one block, allowance-aware approvals
 * (skip when covered, reset to zero before a change), locally signed EIP-1559 transactions written ahead,
 * nonce-based proof that a transaction can never land, block-hash based reorg re-checks, deposits found by
 * depository events.
 */
import { getAddress, isAddress, isAddressEqual, zeroAddress, type Address, type Hex, type LocalAccount, type PublicClient } from 'viem';
import type {
  BalancesRead,
  ChainAdapter,
  DepositQuery,
  DepositSearch,
  Holding,
  Inclusion,
  PlannedItem,
  Recheck,
  RecordedTx,
  TxLookup,
} from '../adapter.ts';
import type { ChainCapabilities } from '../capabilities.ts';
import { EvmTxDataSchema, type EvmTxData } from '@ballast/protocol/relay/schemas.ts';
import { shortErrorMessage } from '../../core/errorMessage.ts';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { planAllowance, readApproval, resetApprovalItem } from './allowance.ts';
import { findDepositsForOrder } from './findDeposits.ts';
import { orNullIfNotFound } from './orNullIfNotFound.ts';
import { readAllowance } from './readAllowance.ts';
import { readEvmAllowances } from './readAllowances.ts';
import { readEvmBalances, readEvmDecimals } from './readBalances.ts';
import { signEvmStepItem, signedTxRecord } from './signTransaction.ts';
import { signEvmWithdrawalDigest, signEvmWithdrawalTx } from './withdrawalSigning.ts';
import { chainLeadSec, defaultLastItemLeadSec } from '../../executor/deadlines.ts';

/** How far back deposit events are searched for an order, in blocks. */
export const DEPOSIT_LOOKBACK_BLOCKS = 100_000n;

/** Raised when an EVM adapter is asked for a wallet it does not hold. `code` is stable. */
export class EvmAdapterError extends BallastError {
  readonly code = 'EVM_ADAPTER_REFUSED';
}

/** Whether a transaction mined at `blockNumber` is still short of `confirmations` blocks under `head`. */
export function belowFinality(blockNumber: bigint, head: bigint, confirmations: number): boolean {
  return head - blockNumber + 1n < BigInt(confirmations);
}

/** The roles an EVM adapter always plays beyond the seam: every optional one but the Bitcoin-only ones. */
export type EvmCapabilities = Required<
  Pick<ChainCapabilities, 'nativeBalanceReader' | 'gasMeter' | 'allowanceReader' | 'withdrawalSigner' | 'withdrawalTxSigner' | 'nonceOrder'>
>;

/** The EVM adapter: the seam plus its confirmations and the roles only EVM plays (allowance audit, ready withdrawals). */
export interface EvmChainAdapter extends ChainAdapter {
  readonly vm: 'evm';
  /** Blocks (the including one counted) at which a mined transaction is final. */
  readonly confirmations: number;
  readonly capabilities: EvmCapabilities;
}

/** The nonce the write-ahead record of a transaction holds (signedTxRecord stores it), or undefined. */
function nonceOf(tx: RecordedTx): number | undefined {
  const raw = (tx.request as { nonce?: unknown } | null)?.nonce;
  if (typeof raw !== 'number' && typeof raw !== 'string') return undefined;
  const nonce = Number(raw);
  return Number.isSafeInteger(nonce) && nonce >= 0 ? nonce : undefined;
}

/**
 * Creates the adapter of one EVM chain.
 *
 * @param opts.client the chain's public client (its `chain.contracts.multicall3` is used for balances)
 * @param opts.accounts signing accounts by wallet name (EVM wallets only)
 * @param opts.confirmations `chains.<name>.confirmations`
 * @param opts.minDeadlineLeadSec `chains.<name>.minDeadlineLeadSec`, seconds (unset: 90)
 */
export function createEvmAdapter(opts: {
  name: string;
  chainId: number;
  client: PublicClient;
  accounts: ReadonlyMap<string, LocalAccount>;
  confirmations: number;
  /** `chains.<name>.minDeadlineLeadSec`: lead of the deposit, seconds (default 90; see `ChainAdapter.minDeadlineLeadSec`). */
  minDeadlineLeadSec?: number;
}): EvmChainAdapter {
  const { name, chainId, client, accounts, confirmations } = opts;
  const at = `chains.${name}.rpcUrl`;
  const account = (wallet: string): LocalAccount => {
    const found = accounts.get(wallet);
    if (!found) throw new EvmAdapterError(`wallet ${wallet} is not an evm wallet; it cannot sign on chain ${name}`);
    return found;
  };
  const parse = (item: PlannedItem): EvmTxData => EvmTxDataSchema.parse(item.data);

  async function readBalances(holdings: readonly Holding[]): Promise<BalancesRead> {
    let served: number;
    try {
      served = await client.getChainId();
    } catch (error) {
      return { ok: false, error: `${at} did not answer eth_chainId: ${shortErrorMessage(error)}` };
    }
    if (served !== chainId) {
      return {
        ok: false,
        error: `${at} serves chain id ${served}, but chains.${name}.chainId is ${chainId}; point rpcUrl at chain ${chainId}`,
      };
    }
    let head: bigint;
    try {
      head = await client.getBlockNumber({ cacheTime: 0 });
    } catch (error) {
      return { ok: false, error: `${at} did not answer eth_blockNumber: ${shortErrorMessage(error)}` };
    }
    // Config validated every address and currency as EVM hex.
    const queries = holdings.map((h) => ({ address: h.address as Address, currency: getAddress(h.currency) }));
    const results = await readEvmBalances(client, queries, head);
    return {
      ok: true,
      atBlock: head,
      amounts: results.map((r) => (r.amount === null ? { amount: null, error: r.error ?? 'balance read failed' } : { amount: r.amount })),
    };
  }

  async function lookup(tx: RecordedTx, user: string): Promise<TxLookup> {
    const hash = tx.txHash as Hex; // written by the executor from keccak256 of the signed bytes
    const receipt = await orNullIfNotFound(client.getTransactionReceipt({ hash }));
    if (receipt) {
      return {
        state: 'mined',
        status: receipt.status === 'success' ? 'confirmed' : 'reverted',
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
      };
    }
    const pending = await orNullIfNotFound(client.getTransaction({ hash }));
    if (pending) return { state: 'pending' };
    const nonce = nonceOf(tx);
    const latest = await client.getTransactionCount({ address: user as Address, blockTag: 'latest' });
    return { state: nonce !== undefined && latest > nonce ? 'dropped' : 'unknown' };
  }

  async function gapBelow(tx: RecordedTx, user: string) {
    const nonce = nonceOf(tx);
    if (nonce === undefined) return null;
    const mined = await client.getTransactionCount({ address: user as Address, blockTag: 'latest' });
    return mined < nonce ? { mined, nonce } : null;
  }

  return {
    name,
    chainId,
    vm: 'evm',
    confirmations,
    minDeadlineLeadSec: (_amountIn, itemsLeft) => chainLeadSec(opts.minDeadlineLeadSec ?? defaultLastItemLeadSec('evm'), itemsLeft),
    nativeCurrency: zeroAddress,
    nativeDecimals: 18,
    currencyKey: (currency) => currency.toLowerCase(),
    validateAddress: (address) => (isAddress(address) ? null : `not an EVM address: ${address}`),
    readBalances,
    async readDecimals(currencies) {
      return readEvmDecimals(
        client,
        currencies.map((c) => getAddress(c)),
      );
    },
    async originFacts() {
      return {};
    },
    depositLimits: {},
    async planItem(item, ctx) {
      const data = parse(item);
      const approval = readApproval(data);
      if (!approval) return [item];
      let current: bigint;
      try {
        current = await readAllowance(client, approval.token, ctx.user as Address, approval.spender); // our EVM wallet
      } catch (error) {
        throw new Error(`reading the allowance before ${item.stepId} failed: ${shortErrorMessage(error)}`, { cause: error });
      }
      // The deposit pulls the payment amount (verified: input-payment, deposit-kind); the approval is at most that.
      const action = planAllowance(current, ctx.amountIn);
      if (action === 'sufficient') return [];
      if (action === 'approve') return [item];
      const reset = resetApprovalItem(data, approval);
      return [{ stepId: `${item.stepId}:reset`, itemIndex: item.itemIndex, data: reset }, item];
    },
    async sign(wallet, item, previous) {
      const nonce = previous ? Number(previous.request.nonce) + 1 : undefined; // our own record of the nonce
      const signed = await signEvmStepItem(client, account(wallet), parse(item), nonce);
      return { chainId: signed.chainId, txHash: signed.txHash, rawTx: signed.rawTx, request: signedTxRecord(signed) };
    },
    async broadcast(rawTx) {
      await client.sendRawTransaction({ serializedTransaction: rawTx as Hex }); // produced by sign() as hex
    },
    async knows(txHash) {
      try {
        await client.getTransaction({ hash: txHash as Hex });
        return true;
      } catch {
        return false;
      }
    },
    async waitForInclusion(tx, timeoutMs): Promise<Inclusion> {
      const receipt = await client.waitForTransactionReceipt({ hash: tx.txHash as Hex, timeout: timeoutMs });
      // viem hands back the receipt of a transaction that replaced ours (same sender and nonce).
      if (receipt.transactionHash.toLowerCase() !== tx.txHash.toLowerCase()) return { kind: 'replaced', by: receipt.transactionHash };
      return {
        kind: 'mined',
        status: receipt.status === 'success' ? 'confirmed' : 'reverted',
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
      };
    },
    head: () => client.getBlockNumber({ cacheTime: 0 }),
    lookup,
    async recheck(tx, head): Promise<Recheck> {
      const receipt = await orNullIfNotFound(client.getTransactionReceipt({ hash: tx.txHash as Hex }));
      if (receipt) {
        const status = receipt.status === 'success' ? 'confirmed' : 'reverted';
        const same =
          receipt.blockNumber === tx.blockNumber && status === tx.status && (tx.blockHash === null || receipt.blockHash === tx.blockHash);
        if (same) return { kind: 'same', final: !belowFinality(receipt.blockNumber, head, confirmations) };
        return { kind: 'moved', status, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash };
      }
      if (head < tx.blockNumber) return { kind: 'unknown', why: `the node's head ${head} is below the recorded block ${tx.blockNumber}` };
      const block = await orNullIfNotFound(client.getBlock({ blockNumber: tx.blockNumber }));
      if (!block) return { kind: 'unknown', why: `the node does not have block ${tx.blockNumber} yet` };
      if (tx.blockHash !== null && block.hash === tx.blockHash) {
        return { kind: 'unknown', why: `block ${tx.blockNumber} is still canonical; the node lags on receipts` };
      }
      return { kind: 'removed' };
    },
    async findDeposit(query: DepositQuery): Promise<DepositSearch> {
      const latest = await client.getBlockNumber({ cacheTime: 0 });
      const from = latest > DEPOSIT_LOOKBACK_BLOCKS ? latest - DEPOSIT_LOOKBACK_BLOCKS : 0n;
      // Depository and order id come from a verified quote (EVM hex).
      const deposits = await findDepositsForOrder(client, query.depository as Hex, query.orderId as Hex, from, latest);
      const ours = deposits.find((d) => isAddress(query.user) && isAddressEqual(d.from, query.user) && d.amount === query.amount);
      return ours
        ? { kind: 'found', deposit: { txHash: ours.txHash, blockNumber: ours.blockNumber, blockHash: ours.blockHash } }
        : { kind: 'none', atBlock: latest };
    },
    async txBlock(txHash) {
      const receipt = await orNullIfNotFound(client.getTransactionReceipt({ hash: txHash as Hex })); // a malformed hash fails the lookup
      return receipt ? receipt.blockNumber : null;
    },
    capabilities: {
      nativeBalanceReader: { readNativeBalance: (address) => client.getBalance({ address: address as Address, blockTag: 'latest' }) },
      gasMeter: {
        async gasPaid(txHash) {
          const receipt = await orNullIfNotFound(client.getTransactionReceipt({ hash: txHash as Hex })); // a malformed hash fails the lookup
          return receipt ? receipt.gasUsed * receipt.effectiveGasPrice : null;
        },
      },
      allowanceReader: { readAllowances: (queries) => readEvmAllowances(client, queries) },
      nonceOrder: { nonceOf, gapBelow },
      withdrawalSigner: { signWithdrawalDigest: async (wallet, digestHex) => signEvmWithdrawalDigest(account(wallet), digestHex) },
      withdrawalTxSigner: { signWithdrawalTransaction: async (wallet, tx) => signEvmWithdrawalTx(client, account(wallet), tx) },
    },
  };
}
