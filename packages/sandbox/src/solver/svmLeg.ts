/**
 * The solver's {@link SolverLeg} on Solana: fills are real signed transfers from the node's solver wallet (SOL,
 * or tokens to the recipient's associated account, created when missing) through `node.fill`, which lands the
 * transaction before it returns. Refunds: the sandbox's stand-in depository program has no withdraw
 * instruction, so the solver returns the deposited amount from its own wallet (the deposit stays in the vault,
 * the solver's to claim as on the live network after a refund).
 */
import type { SolanaSandboxNode } from '../svm/startSolanaNode.ts';
import { SYSTEM_PROGRAM_ID } from '@ballast/protocol/protocol/svmDepository.ts';
import type { OutTx } from '../api/requestStore.ts';
import type { SolverLeg } from './legs.ts';
import type { SerialQueue } from './serialQueue.ts';

/** Network fee of one Solana signature, lamports. */
const SIGNATURE_FEE_LAMPORTS = 5_000n;

/**
 * Creates the Solana leg.
 *
 * @param chainId the sandbox's Solana chain id
 * @param nowSec clock, unix seconds (the landed slot's time is not exposed by the node)
 * @throws (on use) SolanaNodeError `SOLANA_NODE_TX_FAILED` when a transfer fails (nothing moved)
 */
export function createSvmLeg(node: SolanaSandboxNode, chainId: number, queue: SerialQueue, nowSec: () => number): SolverLeg {
  const send = async (to: string, mint: string | null, amount: bigint, kind: OutTx['kind']): Promise<OutTx> => {
    const landed = await queue.run(chainId, () => node.fill({ recipient: to, mint, amount }));
    return {
      txHash: landed.signature,
      chainId,
      kind,
      amount,
      block: landed.slot,
      timestampSec: nowSec(),
      feeWei: SIGNATURE_FEE_LAMPORTS,
      status: 'success',
    };
  };
  return {
    pay: (to, currency, amount) => send(to, currency.isNative ? null : currency.address, amount, 'fill'),
    refund: (deposit, to) => send(to, deposit.currency === SYSTEM_PROGRAM_ID ? null : deposit.currency, deposit.amount, 'refund'),
    // node.fill returns only once the transaction landed and succeeded.
    settle: async (sent) => sent,
  };
}
