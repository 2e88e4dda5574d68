/**
 * The EVM {@link DepositVerifier}: docs/relay-contract.md "Local quote verification" 5–7 plus Ballast's step rules.
 */
import { pass, skipped } from '../ruleResult.ts';
import {
  checkEvmApprovals,
  checkEvmApproveNeeded,
  checkEvmApproveSpender,
  checkEvmNoUnexpectedSteps,
  type EvmStepFacts,
} from './evmApprovals.ts';
import { checkEvmDepositId, checkEvmDepositKind, checkEvmDepositor, locateEvmDeposit } from './evmDeposit.ts';
import { collectEvmSteps } from './evmItems.ts';
import type { DepositCheckInput, DepositCheckResult } from './types.ts';

/**
 * Checks the deposit and the other steps of a quote whose payment chain is EVM (`vmType` `evm`).
 * Pure; never throws for a bad quote. When `deposit-call` fails, `deposit-id`, `depositor` and
 * `deposit-kind` report "skipped: deposit-call failed".
 */
export function verifyEvmDeposit(input: DepositCheckInput): DepositCheckResult {
  const { quote, expect, payment, paymentChain, depository, orderId } = input;
  const { items, stepProblems } = collectEvmSteps(quote);
  const { result: callResult, deposit } = locateEvmDeposit(items, depository, paymentChain.id);
  const facts: EvmStepFacts = { user: expect.user, payment, paymentChain, depository };
  return {
    depositItem: deposit ? deposit.item.ref : null,
    results: {
      'deposit-call': callResult,
      'deposit-id': deposit ? checkEvmDepositId(deposit, orderId) : skipped('deposit-id', 'deposit-call'),
      depositor: deposit ? checkEvmDepositor(deposit, expect.user) : skipped('depositor', 'deposit-call'),
      'deposit-kind': deposit ? checkEvmDepositKind(deposit, payment, paymentChain.vmType) : skipped('deposit-kind', 'deposit-call'),
      approve: checkEvmApprovals(items, deposit, facts),
      'approve-spender': checkEvmApproveSpender(items, deposit, facts),
      'approve-needed': checkEvmApproveNeeded(items, deposit, facts),
      // EVM transactions are checked item by item above (sender, gas fields, value); these rules are the
      // Solana and Bitcoin transaction-level checks.
      'origin-inputs': pass('origin-inputs', 'not applicable to evm: every item is checked to be from our wallet (no-unexpected-steps)'),
      'fee-cap': pass('fee-cap', 'not applicable to evm: gas is priced by the signer, not taken from the quote'),
      'fee-floor': pass('fee-floor', 'not applicable to evm: gas is priced by the signer'),
      'miner-fee-cap': pass('miner-fee-cap', 'not applicable to evm: gas is priced by the signer'),
      'rbf-signal': pass('rbf-signal', 'not applicable to evm'),
      locktime: pass('locktime', 'not applicable to evm'),
      'tx-size': pass('tx-size', 'not applicable to evm'),
      change: pass('change', 'not applicable to evm'),
      'no-unexpected-steps': checkEvmNoUnexpectedSteps(items, stepProblems, deposit, facts),
    },
  };
}
