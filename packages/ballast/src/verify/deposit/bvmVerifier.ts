/**
 * The Bitcoin {@link DepositVerifier} (API `vmType` `bvm`): docs/relay-contract.md "Local quote verification" 5–7 in their
 * Bitcoin form (docs/design.md "Bitcoin step data": a PSBT paying the depository address, the order id in the first
 * OP_RETURN) plus Ballast's transaction rules: our own confirmed coins in (our own tracked change too where
 * allowed), none spent by an in-flight deposit of ours, change back to us, a fee rate between the floor the
 * order's deadline asks for and the cap, a miner fee
 * capped in satoshis and in bps of the payment, BIP-125 replaceable, final in the next block, only SIGHASH_ALL
 * signatures.
 */
import { pass, skipped } from '../ruleResult.ts';
import { checkBvmDepositId, checkBvmDepositKind, checkBvmDepositor } from './bvmDeposit.ts';
import { collectBvmSteps, locateBvmDeposit, readBvmWallet } from './bvmItems.ts';
import { checkBvmFeeCap, checkBvmFeeFloor, checkBvmMinerFeeCap } from './bvmFees.ts';
import { checkBvmLocktime, checkBvmRbfSignal } from './bvmLocks.ts';
import { checkBvmChange, checkBvmOriginInputs, checkBvmTxSize } from './bvmSpend.ts';
import { checkBvmNoUnexpectedSteps } from './bvmSteps.ts';
import type { DepositCheckInput, DepositCheckResult } from './types.ts';

const NOT_APPLICABLE = 'not applicable to bvm: a Bitcoin deposit is a native payment, no token allowance exists';

/**
 * Checks the deposit of a quote whose payment chain is Bitcoin (`vmType` `bvm`). Pure and synchronous; never
 * throws for a bad quote. Reads `input.origin` (never from the quote): `utxos` (our unspent outputs),
 * `reservedOutpoints`, `tipHeight` and `feeEstimate`; and the `bvm…` fields of `input.limits`.
 *
 * When `deposit-call` fails, `deposit-id`, `depositor` and `deposit-kind` report "skipped: deposit-call
 * failed"; `origin-inputs`, the fee rules, `rbf-signal`, `locktime`, `tx-size` and `change` still run when the
 * PSBT itself parsed (they are skipped only when it did not, or, for `change`, when the depository is not a
 * Bitcoin address).
 *
 * @example
 * const { results } = verifyBvmDeposit({ quote, expect, payment, paymentChain, depository, orderId, origin: { utxos }, limits });
 */
export function verifyBvmDeposit(input: DepositCheckInput): DepositCheckResult {
  const { quote, expect, payment, paymentChain, depository, orderId, origin, limits } = input;
  const steps = collectBvmSteps(quote);
  const wallet = readBvmWallet(expect.user);
  const located = locateBvmDeposit(steps.items, depository, paymentChain, wallet);
  const { deposit, psbt, depositoryScript } = located;
  return {
    depositItem: deposit ? deposit.item.ref : null,
    results: {
      'deposit-call': located.result,
      'deposit-id': deposit ? checkBvmDepositId(deposit, orderId) : skipped('deposit-id', 'deposit-call'),
      depositor: deposit ? checkBvmDepositor(deposit, expect.user, wallet) : skipped('depositor', 'deposit-call'),
      'deposit-kind': deposit ? checkBvmDepositKind(deposit, payment, paymentChain.vmType) : skipped('deposit-kind', 'deposit-call'),
      approve: pass('approve', NOT_APPLICABLE),
      'approve-spender': pass('approve-spender', NOT_APPLICABLE),
      'approve-needed': pass('approve-needed', NOT_APPLICABLE),
      'origin-inputs': psbt
        ? checkBvmOriginInputs(psbt, wallet, origin.utxos, origin.reservedOutpoints, limits.bvmAllowOwnUnconfirmedInputs)
        : skipped('origin-inputs', 'deposit-call'),
      'fee-cap': psbt ? checkBvmFeeCap(psbt, origin.utxos, limits) : skipped('fee-cap', 'deposit-call'),
      'fee-floor': psbt ? checkBvmFeeFloor(psbt, origin.utxos, origin.feeEstimate, limits) : skipped('fee-floor', 'deposit-call'),
      'miner-fee-cap': psbt ? checkBvmMinerFeeCap(psbt, origin.utxos, payment.amount, limits) : skipped('miner-fee-cap', 'deposit-call'),
      'rbf-signal': psbt ? checkBvmRbfSignal(psbt, limits.bvmRequireReplaceable) : skipped('rbf-signal', 'deposit-call'),
      locktime: psbt ? checkBvmLocktime(psbt, origin.tipHeight) : skipped('locktime', 'deposit-call'),
      'tx-size': psbt ? checkBvmTxSize(psbt) : skipped('tx-size', 'deposit-call'),
      change: psbt && depositoryScript ? checkBvmChange(psbt, depositoryScript, wallet) : skipped('change', 'deposit-call'),
      'no-unexpected-steps': checkBvmNoUnexpectedSteps(steps, psbt, expect.user),
    },
  };
}
