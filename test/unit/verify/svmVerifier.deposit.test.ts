/**
 * The Solana deposit checker on Solana-origin quotes (`svmQuote.ts`), deposit rules: a valid native and a
 * valid token quote pass every deposit rule, and each tampering of the deposit instruction is refused by the
 * rule about it and no other.
 */
import { describe, expect, it } from 'vitest';
import {
  depositAccounts,
  RELAY_DEPOSITORY_PROGRAM_ID,
  TOKEN_2022_PROGRAM_ID,
} from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { DEPOSIT_RULE_IDS } from '../../../packages/ballast/src/verify/deposit/types.ts';
import { verifySvmDeposit } from '../../../packages/ballast/src/verify/deposit/svmVerifier.ts';
import {
  checkSvm as check,
  depositCheckInput,
  depositIndex,
  depositInstruction,
  failingRules as failing,
  readInstructions,
  ruleDetail as detail,
  SVM_DEPOSITORY,
  SVM_OTHER_MINT,
  SVM_PDAS,
  SVM_STRANGER,
  SVM_UNKNOWN_PROGRAM as UNKNOWN_PROGRAM,
  SVM_USDC,
  SVM_USER,
  svmQuoteInput,
  tamperedSvmInput as tampered,
  writeInstructions,
} from '../../fixtures/svmQuote.ts';

const DEPOSIT_SKIPS = ['deposit-call', 'deposit-id', 'deposit-kind', 'depositor'];

describe.each(['native', 'token'] as const)('verifySvmDeposit on a valid %s quote', (kind) => {
  it('passes every deposit rule and locates the item', () => {
    const { input, facts } = svmQuoteInput(kind);
    const result = check(input);
    expect(failing(result)).toEqual([]);
    expect(Object.keys(result.results)).toEqual([...DEPOSIT_RULE_IDS]);
    expect(result.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
    expect(detail(result, 'deposit-call')).toContain(`deposit_${kind} to program ${SVM_DEPOSITORY}`);
    expect(detail(result, 'deposit-id')).toContain(facts.orderId);
    expect(detail(result, 'depositor')).toContain(SVM_USER);
    expect(detail(result, 'tx-size')).toMatch(/: \d+ of 1232 bytes \(1 signature\(s\), 1 lookup table\(s\)\)/);
    expect(detail(result, 'approve')).toContain('Solana deposits need none');
    expect(detail(result, 'change')).toBe('not applicable to svm');
  });
});

describe('deposit-call', () => {
  it.each(['native', 'token'] as const)('a wrong vault PDA (%s)', (kind) => {
    const input = tampered(kind, (ixs, d) => {
      ixs[d]!.keys[3] = { pubkey: SVM_STRANGER, isSigner: false, isWritable: kind === 'native' };
    });
    const result = check(input);
    expect(failing(result)).toEqual(DEPOSIT_SKIPS);
    expect(detail(result, 'deposit-call')).toContain(`keys[3] (vault) is ${SVM_STRANGER}`);
    expect(detail(result, 'deposit-call')).toContain(`expected ${SVM_PDAS.vault}`);
    expect(detail(result, 'depositor')).toBe('skipped: deposit-call failed');
    expect(result.depositItem).toBeNull();
  });

  it('a wrong depository PDA', () => {
    const input = tampered('native', (ixs, d) => {
      ixs[d]!.keys[0] = { pubkey: SVM_STRANGER, isSigner: false, isWritable: false };
    });
    const result = check(input);
    expect(failing(result)).toEqual(DEPOSIT_SKIPS);
    expect(detail(result, 'deposit-call')).toContain(`keys[0] (relayDepository) is ${SVM_STRANGER}`);
  });

  it('a vault account not marked writable (flags count)', () => {
    const input = tampered('native', (ixs, d) => {
      ixs[d]!.keys[3]!.isWritable = false;
    });
    expect(failing(check(input))).toEqual(DEPOSIT_SKIPS);
  });

  it('a deposit to another program (the mainnet depository, not the one GET /chains names)', () => {
    const { input, facts } = svmQuoteInput('native');
    writeInstructions(input.quote, [
      depositInstruction({ kind: 'native', amount: facts.amount, id: facts.orderId, programId: RELAY_DEPOSITORY_PROGRAM_ID }),
    ]);
    const result = check(input);
    expect(failing(result)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps']);
    expect(detail(result, 'deposit-call')).toContain(`no instruction calls the depository program ${SVM_DEPOSITORY}`);
    expect(detail(result, 'no-unexpected-steps')).toContain(`cannot prove program ${RELAY_DEPOSITORY_PROGRAM_ID} leaves our funds alone`);
  });

  it('a wrong discriminator', () => {
    const input = tampered('native', (ixs, d) => {
      ixs[d]!.data[0] = ixs[d]!.data[0]! ^ 0xff;
    });
    const result = check(input);
    expect(failing(result)).toEqual(DEPOSIT_SKIPS);
    expect(detail(result, 'deposit-call')).toContain('is neither deposit_native nor deposit_token');
  });

  it('two deposit instructions', () => {
    const input = tampered('native', (ixs, d) => ixs.push(structuredClone(ixs[d]!)));
    const result = check(input);
    expect(failing(result)).toEqual(DEPOSIT_SKIPS);
    expect(detail(result, 'deposit-call')).toContain('2 instructions call the depository program');
  });

  it('a token program other than SPL Token or Token-2022', () => {
    const input = tampered('token', (ixs, d) => {
      ixs[d]!.keys[7] = { pubkey: UNKNOWN_PROGRAM, isSigner: false, isWritable: false };
    });
    const result = check(input);
    expect(failing(result)).toEqual(DEPOSIT_SKIPS);
    expect(detail(result, 'deposit-call')).toContain(`keys[7] (tokenProgram) is ${UNKNOWN_PROGRAM}`);
  });

  it('accepts a Token-2022 deposit with its own associated accounts', () => {
    const input = tampered('token', (ixs, d) => {
      ixs[d]!.keys = depositAccounts({
        programId: SVM_DEPOSITORY,
        sender: SVM_USER,
        depositor: SVM_USER,
        mint: SVM_USDC,
        tokenProgram: TOKEN_2022_PROGRAM_ID,
      });
    });
    const result = check(input);
    expect(failing(result)).toEqual([]);
    expect(detail(result, 'deposit-call')).toContain('deposit_token');
  });
});

describe('deposit-id, depositor, deposit-kind', () => {
  it.each(['native', 'token'] as const)('deposit-id: the id of another order (%s)', (kind) => {
    const { input, facts } = svmQuoteInput(kind);
    const ixs = readInstructions(input.quote);
    ixs[depositIndex(input.quote)] = depositInstruction({ kind, amount: facts.amount, id: `0x${'22'.repeat(32)}` });
    writeInstructions(input.quote, ixs);
    const result = check(input);
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toContain(`id is 0x${'22'.repeat(32)}, expected recomputed order id ${facts.orderId}`);
  });

  it.each(['native', 'token'] as const)('depositor: the deposit credits a stranger (%s)', (kind) => {
    const { input, facts } = svmQuoteInput(kind);
    const ixs = readInstructions(input.quote);
    ixs[depositIndex(input.quote)] = depositInstruction({ kind, amount: facts.amount, id: facts.orderId, depositor: SVM_STRANGER });
    writeInstructions(input.quote, ixs);
    const result = check(input);
    expect(failing(result)).toEqual(['depositor']);
    expect(detail(result, 'depositor')).toContain(`keys[2] (depositor) is ${SVM_STRANGER}, expected our wallet ${SVM_USER}`);
  });

  it.each([
    ['native', 1n],
    ['native', -1n],
    ['token', 1n],
    ['token', -1n],
  ] as const)('deposit-kind: %s amount off by %s', (kind, delta) => {
    const { input, facts } = svmQuoteInput(kind);
    const ixs = readInstructions(input.quote);
    ixs[depositIndex(input.quote)] = depositInstruction({ kind, amount: facts.amount + delta, id: facts.orderId });
    writeInstructions(input.quote, ixs);
    const result = check(input);
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(detail(result, 'deposit-kind')).toContain(`amount is ${facts.amount + delta}, expected payment amount ${facts.amount}`);
  });

  it('deposit-kind: the mint swapped, associated accounts recomputed to match', () => {
    const { input, facts } = svmQuoteInput('token');
    const ixs = readInstructions(input.quote);
    ixs[depositIndex(input.quote)] = depositInstruction({ kind: 'token', amount: facts.amount, id: facts.orderId, mint: SVM_OTHER_MINT });
    writeInstructions(input.quote, ixs);
    const result = check(input);
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(detail(result, 'deposit-kind')).toContain(`keys[4] (mint) is ${SVM_OTHER_MINT}, expected payment currency ${SVM_USDC}`);
  });

  it('deposit-kind: deposit_token for a SOL payment', () => {
    const { input, facts } = svmQuoteInput('native');
    writeInstructions(input.quote, [depositInstruction({ kind: 'token', amount: facts.amount, id: facts.orderId })]);
    const result = check(input);
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(detail(result, 'deposit-kind')).toContain('expected deposit_native');
  });

  it('deposit-id is skipped when the order id could not be recomputed', () => {
    const { input } = svmQuoteInput('native');
    const result = verifySvmDeposit({ ...depositCheckInput(input), orderId: null });
    expect(failing(result)).toEqual(['deposit-id']);
    expect(detail(result, 'deposit-id')).toBe('skipped: order-id failed');
  });

  it('never throws for a user that is not a Solana key: deposit-call says so', () => {
    const input = tampered('native', (ixs) =>
      ixs.unshift({
        programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        keys: [{ pubkey: SVM_USER, isSigner: false, isWritable: true }],
        data: Uint8Array.of(17),
      }),
    );
    input.expect.user = '0x000000000000000000000000000000000000dead';
    const result = check(input);
    expect(detail(result, 'deposit-call')).toBe('expect.user 0x000000000000000000000000000000000000dead is not a Solana public key');
    expect(failing(result)).toEqual([...DEPOSIT_SKIPS, 'no-unexpected-steps', 'origin-inputs', 'tx-size']);
    expect(detail(result, 'no-unexpected-steps')).toContain('is not a Solana public key');
  });
});
