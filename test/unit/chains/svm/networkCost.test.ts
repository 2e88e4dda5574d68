/**
 * A Solana transaction's network cost from its `getTransaction` answer: the payer's balance fall less a
 * successful native deposit into the depository's vault, split into the fee and the rest (account rent); a failed
 * transaction deposited nothing; a fall below the fee is not explained, so nothing is reported.
 */
import { Keypair, PublicKey, TransactionInstruction, TransactionMessage, type VersionedTransactionResponse } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { svmNetworkCost } from '../../../../packages/ballast/src/chains/svm/networkCost.ts';
import { depositAccounts, encodeDepositData } from '../../../../packages/protocol/src/protocol/svmDepository.ts';

const key = (seed: number) => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();
const USER = key(1);
const DEPOSITORY = key(9);
const SOL = 1_000_000_000n;

const deposit = new TransactionInstruction({
  programId: new PublicKey(DEPOSITORY),
  keys: depositAccounts({ programId: DEPOSITORY, sender: USER, depositor: USER }).map((m) => ({ ...m, pubkey: new PublicKey(m.pubkey) })),
  data: Buffer.from(encodeDepositData('native', 2n * SOL, `0x${'11'.repeat(32)}`)),
});
const message = new TransactionMessage({
  payerKey: new PublicKey(USER),
  recentBlockhash: key(4),
  instructions: [deposit],
}).compileToV0Message();

/** A getTransaction answer for the deposit: the payer's balance before and after, the fee, and whether it failed. */
function answer(fallLamports: bigint, fee: number, failed = false): Pick<VersionedTransactionResponse, 'transaction' | 'meta'> {
  const pre = 10n * SOL;
  const others = message.staticAccountKeys.slice(1).map(() => 0);
  return {
    transaction: { message, signatures: [] },
    meta: {
      fee,
      err: failed ? { InstructionError: [0, 'Custom'] } : null,
      preBalances: [Number(pre), ...others],
      postBalances: [Number(pre - fallLamports), ...others],
      loadedAddresses: { writable: [], readonly: [] },
    } as VersionedTransactionResponse['meta'], // only the fields the reading uses
  };
}

describe('svmNetworkCost', () => {
  it('sets the native deposit aside and keeps fee and rent apart', () => {
    expect(svmNetworkCost(answer(2n * SOL + 5_000n + 2_039_280n, 5_000))).toEqual({
      feeLamports: 5_000n,
      rentLamports: 2_039_280n,
      totalLamports: 2_044_280n,
    });
  });

  it('a failed transaction moved nothing but its fee', () => {
    expect(svmNetworkCost(answer(5_000n, 5_000, true))).toEqual({ feeLamports: 5_000n, rentLamports: 0n, totalLamports: 5_000n });
  });

  it('reports nothing when the payer fell by less than the fee once the deposit is set aside', () => {
    expect(svmNetworkCost(answer(2n * SOL + 4_999n, 5_000))).toBeNull();
  });
});
