/**
 * The Solana {@link DepositVerifier} (payment chain `vmType` `svm`): docs/relay-contract.md "Local quote verification" 5–7
 * on the depository program's `deposit_native` / `deposit_token` instruction, plus Ballast's transaction rules (no
 * approvals, only our wallet signs, compute budget within caps, at most 1232 bytes, nothing else touches our
 * funds). Pure and synchronous.
 */
import { depositoryPdas } from '@ballast/protocol/protocol/svmDepository.ts';
import { pass, skipped } from '../ruleResult.ts';
import type { DepositCheckInput, DepositCheckResult } from './types.ts';
import { checkSvmDepositId, checkSvmDepositKind, checkSvmDepositor, locateSvmDeposit } from './svmDeposit.ts';
import { checkSvmFeeCap } from './svmFees.ts';
import type { SvmJudgeFacts } from './svmInstructions.ts';
import { collectSvmSteps } from './svmItems.ts';
import { checkSvmApprovals, checkSvmNoUnexpectedSteps, checkSvmOriginInputs, checkSvmTxSize } from './svmRules.ts';

/** The vault PDA of a depository program, or null when the id is not a valid public key. */
function vaultOf(depository: string): string | null {
  try {
    return depositoryPdas(depository).vault;
  } catch {
    return null;
  }
}

/**
 * Checks the deposit and the rest of the transaction of a quote whose payment chain is Solana. Never throws
 * for a bad quote. When `deposit-call` fails, `deposit-id`, `depositor` and `deposit-kind` report
 * "skipped: deposit-call failed". Lookup tables come from `input.origin.lookupTables` (read on chain).
 *
 * @param input see {@link DepositCheckInput}; `depository` is the depository program id, `expect.user` our
 *   wallet (base58, compared exactly)
 * @returns one result per deposit rule, and where the deposit item is (null when `deposit-call` failed)
 */
export function verifySvmDeposit(input: DepositCheckInput): DepositCheckResult {
  const { quote, expect, payment, depository, orderId, origin, limits } = input;
  const user = expect.user;
  const { items, stepProblems } = collectSvmSteps(quote);
  const { result: callResult, deposit } = locateSvmDeposit(items, depository, user);
  const facts: SvmJudgeFacts = { user, depository, vault: vaultOf(depository), paymentCurrency: payment.currency };
  const noApproval = 'not applicable to svm: deposits need no approval (any SPL Approve is refused by approve)';
  return {
    depositItem: deposit ? deposit.at.item.ref : null,
    results: {
      'deposit-call': callResult,
      'deposit-id': deposit ? checkSvmDepositId(deposit, orderId) : skipped('deposit-id', 'deposit-call'),
      depositor: deposit ? checkSvmDepositor(deposit, user) : skipped('depositor', 'deposit-call'),
      'deposit-kind': deposit ? checkSvmDepositKind(deposit, payment) : skipped('deposit-kind', 'deposit-call'),
      approve: checkSvmApprovals(items, facts),
      'approve-spender': pass('approve-spender', noApproval),
      'approve-needed': pass('approve-needed', noApproval),
      'origin-inputs': checkSvmOriginInputs(items, user),
      'fee-cap': checkSvmFeeCap(items, limits),
      'fee-floor': pass('fee-floor', 'not applicable to svm: the base fee is fixed per signature'),
      'miner-fee-cap': pass('miner-fee-cap', 'not applicable to svm: the priority fee is capped by fee-cap'),
      'rbf-signal': pass('rbf-signal', 'not applicable to svm'),
      locktime: pass('locktime', 'not applicable to svm'),
      'tx-size': checkSvmTxSize(items, user, origin),
      change: pass('change', 'not applicable to svm'),
      'no-unexpected-steps': checkSvmNoUnexpectedSteps(items, stepProblems, deposit, facts),
    },
  };
}
