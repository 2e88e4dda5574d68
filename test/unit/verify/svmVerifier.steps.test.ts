/**
 * The Solana deposit checker on Solana-origin quotes (`svmQuote.ts`), transaction rules: every instruction
 * besides the deposit is provably harmless or refused with its reason (no-unexpected-steps), approvals,
 * foreign signers, compute budgets over the caps, oversized transactions and unread lookup tables are refused
 * by their own rule and no other.
 */
import {
  AuthorityType,
  createApproveInstruction,
  createBurnInstruction,
  createCloseAccountInstruction,
  createSetAuthorityInstruction,
  createSyncNativeInstruction,
  createTransferCheckedInstruction,
  NATIVE_MINT,
} from '@solana/spl-token';
import { Keypair, PublicKey, SystemProgram } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { associatedTokenAddress } from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { MEMO_PROGRAM_ID } from '../../../packages/ballast/src/verify/deposit/svmInstructions.ts';
import type { SvmInstruction } from '../../../packages/ballast/src/verify/deposit/svmStepData.ts';
import {
  checkSvm as check,
  computeBudgetInstruction,
  failingRules as failing,
  fromWeb3,
  ruleDetail as detail,
  SVM_LOOKUP_TABLE,
  SVM_STRANGER,
  SVM_UNKNOWN_PROGRAM as UNKNOWN_PROGRAM,
  SVM_USDC,
  SVM_USER,
  svmQuoteInput,
  tamperedSvmInput as tampered,
} from '../../fixtures/svmQuote.ts';

const DEPOSIT_SKIPS = ['deposit-call', 'deposit-id', 'deposit-kind', 'depositor'];
const pk = (s: string) => new PublicKey(s);
const OUR_USDC = associatedTokenAddress(SVM_USER, SVM_USDC);
const OUR_WSOL = associatedTokenAddress(SVM_USER, NATIVE_MINT.toBase58());
const STRANGER_WSOL = associatedTokenAddress(SVM_STRANGER, NATIVE_MINT.toBase58());

describe('no-unexpected-steps: instructions besides the deposit', () => {
  const cases: Array<[string, () => SvmInstruction, string]> = [
    [
      'a System transfer to a stranger',
      () => fromWeb3(SystemProgram.transfer({ fromPubkey: pk(SVM_USER), toPubkey: pk(SVM_STRANGER), lamports: 1_000_000n })),
      `System Transfer moves our funds to ${SVM_STRANGER} (1000000 lamports)`,
    ],
    [
      'a System assign of our account',
      () => fromWeb3(SystemProgram.assign({ accountPubkey: pk(SVM_USER), programId: pk(UNKNOWN_PROGRAM) })),
      `System Assign re-assigns our account ${SVM_USER} to program ${UNKNOWN_PROGRAM}`,
    ],
    [
      'an SPL transfer out of our USDC account',
      () =>
        fromWeb3(
          createTransferCheckedInstruction(
            pk(OUR_USDC),
            pk(SVM_USDC),
            pk(associatedTokenAddress(SVM_STRANGER, SVM_USDC)),
            pk(SVM_USER),
            5n,
            6,
          ),
        ),
      `SPL Token TransferChecked moves our tokens from ${OUR_USDC} to ${associatedTokenAddress(SVM_STRANGER, SVM_USDC)}`,
    ],
    [
      'an SPL burn',
      () => fromWeb3(createBurnInstruction(pk(OUR_USDC), pk(SVM_USDC), pk(SVM_USER), 5n)),
      `SPL Token Burn burns our tokens in ${OUR_USDC}`,
    ],
    [
      'a CloseAccount of our USDC account',
      () => fromWeb3(createCloseAccountInstruction(pk(OUR_USDC), pk(SVM_STRANGER), pk(SVM_USER))),
      `SPL Token CloseAccount closes our account ${OUR_USDC}, sending its lamports to ${SVM_STRANGER}`,
    ],
    [
      'a SetAuthority on our USDC account',
      () => fromWeb3(createSetAuthorityInstruction(pk(OUR_USDC), pk(SVM_USER), AuthorityType.AccountOwner, pk(SVM_STRANGER))),
      `SPL Token SetAuthority changes an authority of ${OUR_USDC} to ${SVM_STRANGER}`,
    ],
    [
      'a SyncNative on an account that is not ours',
      () => fromWeb3(createSyncNativeInstruction(pk(STRANGER_WSOL))),
      `SPL Token SyncNative on ${STRANGER_WSOL}, which is not our wrapped-SOL account ${OUR_WSOL}`,
    ],
    [
      'an unknown program',
      () => ({ programId: UNKNOWN_PROGRAM, keys: [{ pubkey: SVM_USER, isSigner: false, isWritable: true }], data: Uint8Array.of(1, 2, 3) }),
      `cannot prove program ${UNKNOWN_PROGRAM} leaves our funds alone`,
    ],
  ];

  it.each(cases)('%s is refused with its reason', (_name, extra, reason) => {
    const input = tampered('native', (ixs) => ixs.push(extra()));
    const result = check(input);
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    expect(detail(result, 'no-unexpected-steps')).toContain(`steps[0].items[0].data.instructions[1]: ${reason}`);
  });

  it('a SyncNative on our own wrapped-SOL account and a memo are allowed', () => {
    const ours = OUR_WSOL;
    const input = tampered('native', (ixs) => {
      ixs.unshift(fromWeb3(createSyncNativeInstruction(pk(ours))));
      ixs.push({ programId: MEMO_PROGRAM_ID, keys: [], data: new TextEncoder().encode('hi') });
    });
    const result = check(input);
    expect(failing(result)).toEqual([]);
    expect(detail(result, 'no-unexpected-steps')).toContain(`SyncNative on our wrapped-SOL account ${ours}`);
  });

  it('an associated-token account created for a stranger is refused', () => {
    const input = tampered('token', (ixs) => {
      const create = ixs.find((ix) => ix.programId === 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL')!;
      create.keys[1]!.pubkey = associatedTokenAddress(SVM_STRANGER, SVM_USDC);
      create.keys[2]!.pubkey = SVM_STRANGER;
    });
    const result = check(input);
    expect(failing(result)).toEqual(['no-unexpected-steps']);
    expect(detail(result, 'no-unexpected-steps')).toContain(`creates an account for ${SVM_STRANGER}, neither our wallet nor the vault`);
  });

  it('a second step item, a signature step and a completed item are refused', () => {
    const { input } = svmQuoteInput('native');
    const step = input.quote.steps[0]!;
    step.items[0]!.status = 'complete';
    step.items.push(structuredClone(step.items[0]!));
    input.quote.steps.push({ id: 'authorize', kind: 'signature', items: [] });
    const result = check(input);
    // Two items each with a deposit instruction also fail deposit-call.
    expect(failing(result)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps']);
    const d = detail(result, 'no-unexpected-steps');
    expect(d).toContain('2 transaction items');
    expect(d).toContain('steps[1] ("authorize") is a signature step');
    expect(d).toContain('steps[0].items[0].status is "complete"');
  });

  it('step data that does not parse is named', () => {
    const { input } = svmQuoteInput('native');
    const data = input.quote.steps[0]!.items[0]!.data;
    const ixs = data['instructions'] as Array<Record<string, unknown>>; // written by stepData() as an array of objects
    ixs[0]!['data'] = `0x${String(ixs[0]!['data'])}`;
    const result = check(input);
    expect(failing(result)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps', 'origin-inputs', 'tx-size']);
    expect(detail(result, 'deposit-call')).toContain('steps[0].items[0].data: instructions.0.data: expected hex without 0x');
  });
});

describe('approve, origin-inputs, fee-cap', () => {
  it('approve: an SPL Approve names its delegate', () => {
    const input = tampered('token', (ixs) =>
      ixs.unshift(fromWeb3(createApproveInstruction(pk(OUR_USDC), pk(SVM_STRANGER), pk(SVM_USER), 10n))),
    );
    const result = check(input);
    expect(failing(result)).toEqual(['approve']);
    expect(detail(result, 'approve')).toContain(`approves delegate ${SVM_STRANGER} on token account ${OUR_USDC}`);
  });

  it('origin-inputs: an instruction that needs a stranger to sign', () => {
    const input = tampered('native', (ixs) =>
      ixs.push({
        programId: MEMO_PROGRAM_ID,
        keys: [{ pubkey: SVM_STRANGER, isSigner: true, isWritable: false }],
        data: Uint8Array.of(0x61),
      }),
    );
    const result = check(input);
    expect(failing(result)).toEqual(['origin-inputs']);
    const d = detail(result, 'origin-inputs');
    expect(d).toContain(`instructions[1].keys[0] requires a signature of ${SVM_STRANGER}, not our wallet ${SVM_USER}`);
    expect(d).toContain(`the compiled transaction also needs signatures of ${SVM_STRANGER}`);
  });

  it.each([
    [
      'a compute-unit price over the cap',
      [computeBudgetInstruction(3, 1_000_001n)],
      'SetComputeUnitPrice 1000001 micro-lamports/CU exceeds the cap 1000000',
    ],
    [
      'a compute-unit limit over the cap',
      [computeBudgetInstruction(2, 1_400_001n)],
      'SetComputeUnitLimit 1400001 CU exceeds the cap 1400000 CU',
    ],
    ['two prices', [computeBudgetInstruction(3, 1n), computeBudgetInstruction(3, 2n)], 'a second SetComputeUnitPrice'],
    [
      'an unknown compute-budget type',
      [{ programId: 'ComputeBudget111111111111111111111111111111', keys: [], data: Uint8Array.of(9, 0) }],
      'type 9 is not one Ballast accepts',
    ],
  ] as const)('fee-cap: %s', (_name, extra, reason) => {
    const input = tampered('native', (ixs) => ixs.unshift(...extra.map((ix) => ({ ...ix, keys: [...ix.keys] }))));
    const result = check(input);
    expect(failing(result)).toEqual(['fee-cap']);
    expect(detail(result, 'fee-cap')).toContain(reason);
  });

  it('fee-cap: the caps come from limits', () => {
    const input = tampered('native', (ixs) => ixs.unshift(computeBudgetInstruction(3, 500n)));
    input.limits = { svmMaxMicroLamportsPerCu: 499n };
    expect(failing(check(input))).toEqual(['fee-cap']);
    input.limits = { svmMaxMicroLamportsPerCu: 500n };
    expect(failing(check(input))).toEqual([]);
  });
});

describe('tx-size', () => {
  const memoKeys = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      pubkey: Keypair.fromSeed(new Uint8Array(32).fill(100 + i)).publicKey.toBase58(),
      isSigner: false,
      isWritable: false,
    }));

  it('an oversized transaction (many accounts, none in a lookup table) is refused', () => {
    const keys = memoKeys(36);
    const input = tampered('native', (ixs) => ixs.push({ programId: MEMO_PROGRAM_ID, keys, data: Uint8Array.of(0x61) }));
    const result = check(input);
    expect(failing(result)).toEqual(['tx-size']);
    expect(detail(result, 'tx-size')).toMatch(
      /the compiled v0 transaction is (\d+) bytes \(1 signature\(s\), 1 lookup table\(s\)\), \d+ over the 1232-byte limit/,
    );
    // The same accounts in the lookup table fit.
    input.origin = { lookupTables: { [SVM_LOOKUP_TABLE]: keys.map((k) => k.pubkey) } };
    expect(failing(check(input))).toEqual([]);
  });

  it('a lookup table named by the quote but not read on chain', () => {
    const { input } = svmQuoteInput('native');
    input.origin = { lookupTables: {} };
    const result = check(input);
    expect(failing(result)).toEqual(['tx-size']);
    expect(detail(result, 'tx-size')).toContain(`names lookup table(s) ${SVM_LOOKUP_TABLE} not in origin.lookupTables`);
    input.origin = {};
    expect(failing(check(input))).toEqual(['tx-size']);
  });
});
