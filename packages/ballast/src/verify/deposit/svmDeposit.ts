/**
 * Solana deposit checks (docs/relay-contract.md "Local quote verification" 5–7 on a Solana origin): find the single
 * instruction to the depository program from GET /chains, decode its data (`deposit_native` / `deposit_token`) and its
 * accounts against the exact list the program expects (`depositAccounts`), and compare the id, depositor and
 * native/token form with the order. Pure.
 */
import type { Hex } from 'viem';
import {
  decodeDepositData,
  DEPOSIT_DATA_LENGTH,
  DEPOSIT_NATIVE_ACCOUNTS,
  DEPOSIT_TOKEN_ACCOUNTS,
  depositAccounts,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  type SvmAccountMeta,
  type SvmDepositData,
} from '@ballast/protocol/protocol/svmDepository.ts';
import { nativeCurrencyOf, sameAddress } from '../addresses.ts';
import type { PaymentFacts } from '../context.ts';
import { fail, outcome, pass, skipped } from '../ruleResult.ts';
import type { RuleResult } from '../types.ts';
import { allInstructions, type LocatedInstruction, type SvmItem } from './svmItems.ts';
import { isSvmPublicKey } from './svmStepData.ts';

/** The deposit instruction, its decoded data and the accounts the checks compare. */
export interface LocatedSvmDeposit {
  at: LocatedInstruction;
  decoded: SvmDepositData;
  /** Account 2, the depositor the settlement oracle credits. */
  depositor: string;
  /** `deposit_token`: account 4, the mint the oracle reads; null for `deposit_native`. */
  mint: string | null;
}

/** Token programs a `deposit_token` may name at account 7. */
export const SVM_TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]);

function describeMeta(meta: SvmAccountMeta): string {
  return `${meta.pubkey} (signer ${meta.isSigner}, writable ${meta.isWritable})`;
}

/** Differences between the instruction's accounts and the expected ones, one line each. */
function accountProblems(
  path: string,
  actual: readonly SvmAccountMeta[],
  expected: readonly SvmAccountMeta[],
  roles: readonly string[],
): string[] {
  const problems: string[] = [];
  if (actual.length !== expected.length) {
    problems.push(`${path} has ${actual.length} accounts, expected ${expected.length} (${roles.join(', ')})`);
  }
  expected.forEach((want, i) => {
    const got = actual[i];
    if (!got) return;
    if (got.pubkey !== want.pubkey || got.isSigner !== want.isSigner || got.isWritable !== want.isWritable) {
      problems.push(`${path}.keys[${i}] (${roles[i] ?? '?'}) is ${describeMeta(got)}, expected ${describeMeta(want)}`);
    }
  });
  return problems;
}

/**
 * `deposit-call` (docs/relay-contract.md "Local quote verification" 5): exactly one instruction of the quote calls the
 * depository program (GET /chains `protocol.v2.depository`); its data decodes as `deposit_native` or `deposit_token`;
 * its accounts are exactly `depositAccounts({programId: depository, sender: user, depositor, mint, tokenProgram})`
 * (order, keys, signer and writable flags), with the depositor (account 2) and mint (account 4) as the instruction
 * names them (judged by `depositor` and `deposit-kind`) and the token program SPL Token or Token-2022.
 *
 * @param items every transaction step item of the quote
 * @param depository depository program id, base58, from GET /chains
 * @param user our wallet, base58 (`expect.user`)
 */
export function locateSvmDeposit(
  items: readonly SvmItem[],
  depository: string,
  user: string,
): { result: RuleResult; deposit: LocatedSvmDeposit | null } {
  const failed = (detail: string | string[]) => ({ result: fail('deposit-call', detail), deposit: null });
  if (!isSvmPublicKey(depository)) return failed(`depository ${depository} (GET /chains) is not a Solana program id`);
  if (!isSvmPublicKey(user)) return failed(`expect.user ${user} is not a Solana public key`);
  const candidates = allInstructions(items).filter((l) => l.ix.programId === depository);
  const only = candidates[0];
  if (!only) {
    const unreadable = items.filter((i) => i.stepData === null).map((i) => `${i.path}.data: ${i.parseError ?? 'unparsable'}`);
    return failed([`no instruction calls the depository program ${depository} (GET /chains)`, ...unreadable]);
  }
  if (candidates.length > 1) {
    return failed(
      `${candidates.length} instructions call the depository program (${candidates.map((c) => c.path).join(', ')}); expected exactly one`,
    );
  }
  const { ix, path } = only;
  const decoded = decodeDepositData(ix.data);
  if (!decoded) {
    const head = Buffer.from(ix.data.subarray(0, 8)).toString('hex');
    return failed(
      `${path}.data (discriminator ${head || 'none'}, ${ix.data.length} bytes) is neither deposit_native nor deposit_token (${DEPOSIT_DATA_LENGTH} bytes)`,
    );
  }
  const depositor = ix.keys[2]?.pubkey ?? user;
  const problems: string[] = [];
  let expected: SvmAccountMeta[];
  let roles: readonly string[];
  let mint: string | null = null;
  if (decoded.kind === 'native') {
    roles = DEPOSIT_NATIVE_ACCOUNTS;
    expected = depositAccounts({ programId: depository, sender: user, depositor });
  } else {
    roles = DEPOSIT_TOKEN_ACCOUNTS;
    mint = ix.keys[4]?.pubkey ?? null;
    const tokenProgram = ix.keys[7]?.pubkey;
    if (tokenProgram !== undefined && !SVM_TOKEN_PROGRAMS.has(tokenProgram)) {
      problems.push(
        `${path}.keys[7] (tokenProgram) is ${tokenProgram}; expected SPL Token ${TOKEN_PROGRAM_ID} or Token-2022 ${TOKEN_2022_PROGRAM_ID}`,
      );
    }
    const program = tokenProgram !== undefined && SVM_TOKEN_PROGRAMS.has(tokenProgram) ? tokenProgram : TOKEN_PROGRAM_ID;
    // Keys were validated as public keys by the step-data schema, so the PDA derivation cannot throw.
    expected = depositAccounts({ programId: depository, sender: user, depositor, mint: mint ?? user, tokenProgram: program });
    if (mint === null) problems.push(`${path} has no mint account (keys[4])`);
  }
  problems.push(...accountProblems(path, ix.keys, expected, roles));
  if (problems.length > 0) return failed(problems);
  return {
    result: pass(
      'deposit-call',
      `${path}: deposit_${decoded.kind} to program ${depository} with the ${expected.length} expected accounts, sent by ${user}`,
    ),
    deposit: { at: only, decoded, depositor, mint },
  };
}

/**
 * `deposit-id` (docs/relay-contract.md "Local quote verification" 6): the instruction's `id` equals the recomputed order id
 * (skipped when that is unknown).
 */
export function checkSvmDepositId(deposit: LocatedSvmDeposit, orderId: Hex | null): RuleResult {
  if (orderId === null) return skipped('deposit-id', 'order-id');
  const id = deposit.decoded.id.toLowerCase();
  return id === orderId.toLowerCase()
    ? pass('deposit-id', `${deposit.at.path} deposits for order ${orderId}`)
    : fail('deposit-id', `${deposit.at.path} deposit_${deposit.decoded.kind} id is ${id}, expected recomputed order id ${orderId}`);
}

/**
 * `depositor` (docs/relay-contract.md "Local quote verification" 6): the depositor account (index 2) is our wallet, compared
 * exactly (base58 is case-sensitive).
 */
export function checkSvmDepositor(deposit: LocatedSvmDeposit, user: string): RuleResult {
  return deposit.depositor === user
    ? pass('depositor', `${deposit.at.path} credits depositor ${user}`)
    : fail('depositor', `${deposit.at.path}.keys[2] (depositor) is ${deposit.depositor}, expected our wallet ${user}`);
}

/**
 * `deposit-kind` (docs/relay-contract.md "Local quote verification" 7): `deposit_native` iff the payment currency is
 * Solana's native id (the system program, docs/relay-contract.md "Currency"); the instruction amount equals the payment
 * amount (lamports or token base units); for a token, the mint (account 4) equals the payment currency.
 */
export function checkSvmDepositKind(deposit: LocatedSvmDeposit, payment: PaymentFacts): RuleResult {
  const { decoded, at } = deposit;
  const native = nativeCurrencyOf('svm');
  const isNative = native !== undefined && sameAddress(payment.currency, native, 'svm');
  const problems: string[] = [];
  const want = isNative ? 'native' : 'token';
  if (decoded.kind !== want) {
    problems.push(
      `${at.path} calls deposit_${decoded.kind}, but payment currency ${payment.currency} is ${isNative ? 'native SOL' : 'a token'}: expected deposit_${want}`,
    );
  }
  if (decoded.amount !== payment.amount) {
    problems.push(`${at.path} deposit_${decoded.kind} amount is ${decoded.amount}, expected payment amount ${payment.amount}`);
  }
  if (!isNative && deposit.mint !== null && deposit.mint !== payment.currency) {
    problems.push(`${at.path}.keys[4] (mint) is ${deposit.mint}, expected payment currency ${payment.currency}`);
  }
  const what = isNative ? `${payment.amount} lamports` : `${payment.amount} of token ${payment.currency}`;
  return outcome('deposit-kind', problems, `deposit_${decoded.kind} of ${what}`);
}
