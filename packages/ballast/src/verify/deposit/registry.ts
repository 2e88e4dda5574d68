/**
 * Deposit checkers by API `vmType`: EVM (`evm`), Solana (`svm`) and Bitcoin (`bvm`). Any other vmType makes
 * `chain-status` report "vmType X not supported yet".
 */
import { verifyEvmDeposit } from './evmVerifier.ts';
import { verifySvmDeposit } from './svmVerifier.ts';
import { verifyBvmDeposit } from './bvmVerifier.ts';
import type { DepositVerifier } from './types.ts';

const VERIFIERS: Readonly<Record<string, DepositVerifier>> = {
  evm: verifyEvmDeposit,
  svm: verifySvmDeposit,
  bvm: verifyBvmDeposit,
};

/** The deposit checker for an API `vmType`, or undefined when Ballast cannot verify deposits there yet. */
export function depositVerifierFor(vmType: string): DepositVerifier | undefined {
  return Object.hasOwn(VERIFIERS, vmType) ? VERIFIERS[vmType] : undefined;
}

/** True when deposits on chains of this API `vmType` can be verified. */
export function isDepositVmSupported(vmType: string): boolean {
  return depositVerifierFor(vmType) !== undefined;
}
