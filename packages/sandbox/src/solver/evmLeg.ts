/**
 * The solver's {@link SolverLeg} on an EVM chain: fills are ERC-20 `transfer`s or native sends from the solver
 * wallet, refunds go through the sandbox depository's owner-only `withdrawNative` / `withdrawErc20`, and
 * outcomes come from mined receipts only (`waitMined`). Sends are serialized per chain (one nonce sequence).
 */
import { erc20Abi, type Hex } from 'viem';
import type { Logger } from 'pino';
import { sandboxDepositoryAbi } from '../contracts/abis.ts';
import { EVM_NATIVE_ADDRESS, lower } from '../quote/chainTable.ts';
import { waitMined } from './confirm.ts';
import type { SolverLeg } from './legs.ts';
import { minedOutTx, sentOutTx } from './outTx.ts';
import type { SerialQueue } from './serialQueue.ts';
import type { SolverChain } from './solver.ts';

/** Shared machinery of the legs: the send queue, the stop signal, receipt timeout (ms) and a logger. */
export interface LegContext {
  queue: SerialQueue;
  signal: AbortSignal;
  receiptTimeoutMs?: number;
  log: Logger;
}

/**
 * Creates the leg of one EVM chain.
 *
 * @throws (on use) viem errors when a send fails; an Error when an address is not 0x hex
 */
export function createEvmLeg(c: SolverChain, ctx: LegContext): SolverLeg {
  return {
    async pay(to, currency, amount) {
      const recipient = lower(to);
      const hash = await ctx.queue.run(c.chainId, (): Promise<Hex> =>
        currency.isNative
          ? c.walletClient.sendTransaction({ to: recipient, value: amount })
          : c.walletClient.writeContract({
              address: lower(currency.address),
              abi: erc20Abi,
              functionName: 'transfer',
              args: [recipient, amount],
            }),
      );
      return sentOutTx(hash, c.chainId, 'fill', amount);
    },
    async refund(deposit, to) {
      const recipient = lower(to);
      const id = deposit.id;
      const native = deposit.currency.toLowerCase() === EVM_NATIVE_ADDRESS;
      const hash = await ctx.queue.run(c.chainId, (): Promise<Hex> =>
        native
          ? c.walletClient.writeContract({
              address: c.depository,
              abi: sandboxDepositoryAbi,
              functionName: 'withdrawNative',
              args: [recipient, deposit.amount, id],
            })
          : c.walletClient.writeContract({
              address: c.depository,
              abi: sandboxDepositoryAbi,
              functionName: 'withdrawErc20',
              args: [lower(deposit.currency), recipient, deposit.amount, id],
            }),
      );
      return sentOutTx(hash, c.chainId, 'refund', deposit.amount);
    },
    async settle(sent) {
      const hash = sent.txHash as Hex; // this leg only settles what it sent: viem transaction hashes
      const receipt = await waitMined(c.publicClient, hash, {
        signal: ctx.signal,
        ...(ctx.receiptTimeoutMs !== undefined ? { timeoutMs: ctx.receiptTimeoutMs } : {}),
        onError: (error, attempt) =>
          ctx.log.warn({ err: error, chainId: c.chainId, txHash: hash, attempt }, 'receipt not available yet; retrying'),
      });
      return receipt ? minedOutTx(c.publicClient, sent, receipt) : null;
    },
  };
}
