/**
 * The Bitcoin {@link DepositVerifier} (API `vmType` `bvm`): spec "Local quote verification" 5–7 in their
 * Bitcoin form (DESIGN.md "Bitcoin step data": a PSBT paying the depository address, the order id in the first
 * OP_RETURN) plus Ballast's transaction rules: our own coins in, change back to us, a capped fee rate, only
 * SIGHASH_ALL signatures.
 */
import { pass, skipped } from '../ruleResult.ts';
import { checkBvmDepositId, checkBvmDepositKind, checkBvmDepositor } from './bvmDeposit.ts';
import { collectBvmSteps, locateBvmDeposit, readBvmWallet } from './bvmItems.ts';
import { checkBvmChange, checkBvmFeeCap, checkBvmOriginInputs, checkBvmTxSize } from './bvmSpend.ts';
import { checkBvmNoUnexpectedSteps } from './bvmSteps.ts';
import type { DepositCheckInput, DepositCheckResult } from './types.ts';

const NOT_APPLICABLE = 'not applicable to bvm: a Bitcoin deposit is a native payment, no token allowance exists';

/**
 * Checks the deposit of a quote whose payment chain is Bitcoin (`vmType` `bvm`). Pure and synchronous; never
 * throws for a bad quote. Reads `input.origin.utxos` (our unspent outputs, never from the quote) and
 * `input.limits.bvmMaxFeeRateSatPerVb`.
 *
 * When `deposit-call` fails, `deposit-id`, `depositor` and `deposit-kind` report "skipped: deposit-call
 * failed"; `origin-inputs`, `fee-cap`, `tx-size` and `change` still run when the PSBT itself parsed (they are
 * skipped only when it did not, or, for `change`, when the depository is not a Bitcoin address).
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
      'deposit-kind': deposit
        ? checkBvmDepositKind(deposit, payment, paymentChain.vmType)
        : skipped('deposit-kind', 'deposit-call'),
      approve: pass('approve', NOT_APPLICABLE),
      'approve-spender': pass('approve-spender', NOT_APPLICABLE),
      'approve-needed': pass('approve-needed', NOT_APPLICABLE),
      'origin-inputs': psbt ? checkBvmOriginInputs(psbt, wallet, origin.utxos) : skipped('origin-inputs', 'deposit-call'),
      'fee-cap': psbt ? checkBvmFeeCap(psbt, origin.utxos, limits) : skipped('fee-cap', 'deposit-call'),
      'tx-size': psbt ? checkBvmTxSize(psbt) : skipped('tx-size', 'deposit-call'),
      change: psbt && depositoryScript ? checkBvmChange(psbt, depositoryScript, wallet) : skipped('change', 'deposit-call'),
      'no-unexpected-steps': checkBvmNoUnexpectedSteps(steps, psbt, expect.user),
    },
  };
}
