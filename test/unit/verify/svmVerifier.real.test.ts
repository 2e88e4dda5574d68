/**
 * The Solana checker on real step data (`real/UNATTRIBUTED-solana-origin-deposit-native-step-data.json` beside
 * the genuine fixtures: a `deposit_native` of 0.01 SOL on the mainnet depository program), wrapped into a quote
 * item. Its deposit rules pass for the wallet and amount it was made for, and fail for another wallet or
 * amount. Skipped, with one printed line, when the file is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { depositoryPdas, RELAY_DEPOSITORY_PROGRAM_ID, SYSTEM_PROGRAM_ID } from '../../../packages/protocol/src/protocol/svmDepository.ts';
import { ChainSchema, QuoteResponseSchema } from '../../../packages/protocol/src/relay/schemas.ts';
import { verifySvmDeposit } from '../../../packages/ballast/src/verify/deposit/svmVerifier.ts';
import {
  DEFAULT_DEPOSIT_LIMITS,
  type DepositCheckInput,
  type DepositCheckResult,
} from '../../../packages/ballast/src/verify/deposit/types.ts';
import { relayFixturesDir } from '../../fixtures/relay.ts';
import { SVM_STRANGER } from '../../fixtures/svmQuote.ts';

const FILE = path.join(relayFixturesDir, 'real', 'UNATTRIBUTED-solana-origin-deposit-native-step-data.json');
const present = existsSync(FILE);
if (!present) console.log(`real Solana step data not found at ${FILE} (set BALLAST_RELAY_FIXTURES): its tests are skipped`);

const USER = '27q8k7t3VAdZgeG679xpgmm9WD4g3EgVfNQaVgfGocPL';
const AMOUNT = 10_000_000n;
const ORDER_ID = '0x14dde76fee19fe608e718acf1c9d29bdcf3caa142b82f2df800530cae1572cd7';
const TABLE = 'Hm9fUgcn7qwDaiNTFiGh6pNtVATgnaRcmK6Bbx6EMZfP';
const PDAS = depositoryPdas(RELAY_DEPOSITORY_PROGRAM_ID);

/** The checker's input for the real item, with our wallet and payment amount as given. */
function input(user: string, amount: bigint, lookupTables?: Record<string, string[]>): DepositCheckInput {
  const data = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, unknown>; // a JSON object (checked by the checker's schema)
  const sol = { chainId: 792703809, address: SYSTEM_PROGRAM_ID, symbol: 'SOL', decimals: 9 };
  const quote = QuoteResponseSchema.parse({
    steps: [{ id: 'deposit', kind: 'transaction', items: [{ status: 'incomplete', data }] }],
    details: { currencyIn: { currency: sol, amount: amount.toString() }, currencyOut: { currency: sol, amount: '0' } },
  });
  return {
    quote,
    expect: { user, recipient: user },
    payment: { chainSlug: 'solana', currency: SYSTEM_PROGRAM_ID, amount },
    paymentChain: ChainSchema.parse({
      id: 792703809,
      name: 'solana',
      vmType: 'svm',
      currency: { symbol: 'SOL', address: SYSTEM_PROGRAM_ID, decimals: 9 },
      protocol: { v2: { chainId: 'solana', depository: RELAY_DEPOSITORY_PROGRAM_ID } },
    }),
    depository: RELAY_DEPOSITORY_PROGRAM_ID,
    orderId: ORDER_ID,
    // The table's real contents are not published; these stand in for them (the transaction fits either way).
    origin: { lookupTables: lookupTables ?? { [TABLE]: [PDAS.relayDepository, PDAS.vault, SYSTEM_PROGRAM_ID] } },
    limits: DEFAULT_DEPOSIT_LIMITS,
  };
}

function failing(result: DepositCheckResult): string[] {
  return Object.values(result.results)
    .filter((r) => !r.ok)
    .map((r) => r.rule)
    .sort();
}

describe.skipIf(!present)('verifySvmDeposit on the real Solana step data', () => {
  it('passes every deposit rule for its wallet, amount and order', () => {
    const result = verifySvmDeposit(input(USER, AMOUNT));
    expect(failing(result)).toEqual([]);
    expect(result.depositItem).toEqual({ stepIndex: 0, itemIndex: 0 });
    expect(result.results['deposit-call'].detail).toContain(
      `deposit_native to program ${RELAY_DEPOSITORY_PROGRAM_ID} with the 5 expected accounts`,
    );
    expect(result.results['deposit-id'].detail).toContain(ORDER_ID);
    expect(result.results['deposit-kind'].detail).toBe('deposit_native of 10000000 lamports');
    // The PDAs derived from the program id are the ones the real item names (the vault 7uTT… of the published Solana depository).
    expect(PDAS.vault).toBe('7uTT8Xi5RWXzy7h9XL244GRgEycDYDhLjr3ZyNdXi8pZ');
    expect(PDAS.relayDepository).toBe('Dodg2HifwU8rmaVVyMyUZDGTRbqAJTyVYxXPwcbNpBKc');
  });

  it('fails for another wallet: it sends and signs, and is credited, as someone else', () => {
    const result = verifySvmDeposit(input(SVM_STRANGER, AMOUNT));
    expect(failing(result)).toEqual(['deposit-call', 'deposit-id', 'deposit-kind', 'depositor', 'origin-inputs']);
    expect(result.results['deposit-call'].detail).toContain(`keys[1] (sender) is ${USER}`);
    expect(result.results['origin-inputs'].detail).toContain(`requires a signature of ${USER}, not our wallet ${SVM_STRANGER}`);
  });

  it('fails for another amount (deposit-kind)', () => {
    const result = verifySvmDeposit(input(USER, AMOUNT + 1n));
    expect(failing(result)).toEqual(['deposit-kind']);
    expect(result.results['deposit-kind'].detail).toContain(`amount is ${AMOUNT}, expected payment amount ${AMOUNT + 1n}`);
  });

  it('fails tx-size while its lookup table is unread', () => {
    const result = verifySvmDeposit(input(USER, AMOUNT, {}));
    expect(failing(result)).toEqual(['tx-size']);
    expect(result.results['tx-size'].detail).toContain(`names lookup table(s) ${TABLE} not in origin.lookupTables`);
  });
});
