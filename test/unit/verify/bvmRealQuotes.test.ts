/**
 * The two real Bitcoin-origin quotes in `real/` beside the genuine fixtures (relay docs, bitcoin guide L125 and
 * L435) carry PSBTs the documentation truncated ("…"). The bvm checker must refuse them cleanly: `deposit-call`
 * says the PSBT does not parse, the rules that need it are skipped, nothing throws. The quotes have no
 * protocol block, so the checker is called directly with facts of our own (GET /chains as in the tests'
 * Bitcoin chain, the quote's sender as our wallet). Skipped, with one line printed, when the files are absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { networks } from 'bitcoinjs-lib';
import path from 'node:path';
import type { Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { QuoteResponseSchema } from '../../../packages/protocol/src/relay/schemas.ts';
import { verifyBvmDeposit } from '../../../packages/ballast/src/verify/deposit/bvmVerifier.ts';
import { DEFAULT_DEPOSIT_LIMITS, DEPOSIT_RULE_IDS } from '../../../packages/ballast/src/verify/deposit/types.ts';
import { BTC, bvmChains, depositoryFor } from '../../fixtures/bvmQuote.ts';
import { relayFixturesDir, relayFixturesPresent } from '../../fixtures/relay.ts';

const REAL = path.join(relayFixturesDir, 'real');
const FILES = [
  'relay-docs-bitcoin-L125-btc-to-base-psbt-TRUNCATED.json',
  'relay-docs-bitcoin-L435-btc-to-base-depositaddress-psbt-TRUNCATED.json',
] as const;
const present = FILES.every((f) => existsSync(path.join(REAL, f)));
// When the whole fixtures directory is absent the global setup prints the one line; otherwise say it here.
if (!present && relayFixturesPresent)
  process.stdout.write(`real Bitcoin quotes not found in ${REAL} (set BALLAST_RELAY_FIXTURES): ${FILES.length} tests skipped\n`);

const ZERO_ID: Hex = `0x${'00'.repeat(32)}`;
const NEEDS_PSBT = ['deposit-id', 'depositor', 'deposit-kind', 'origin-inputs', 'fee-cap', 'tx-size', 'change'];

describe('real Bitcoin-origin quotes with truncated PSBTs', () => {
  it.skipIf(!present).each(FILES)('%s is refused at deposit-call without throwing', (file) => {
    const quote = QuoteResponseSchema.parse(JSON.parse(readFileSync(path.join(REAL, file), 'utf8')));
    const user = quote.details.sender!; // both quotes name the sender, a bc1q address
    const depository = depositoryFor(networks.bitcoin).address;
    const result = verifyBvmDeposit({
      quote,
      expect: { user, recipient: quote.details.recipient! }, // both name the recipient too
      payment: { chainSlug: 'bitcoin', currency: BTC, amount: BigInt(quote.details.currencyIn.amount) },
      paymentChain: bvmChains(depository).chains[0]!,
      depository,
      orderId: ZERO_ID,
      origin: { utxos: [] },
      limits: DEFAULT_DEPOSIT_LIMITS,
    });
    const failed = DEPOSIT_RULE_IDS.filter((id) => !result.results[id].ok);
    expect(result.results['deposit-call'].detail).toBe(
      'steps[0].items[0]: data.psbt does not parse as a PSBT: not an even-length hex string',
    );
    for (const rule of NEEDS_PSBT) expect(failed).toContain(rule);
    expect(result.results['deposit-id'].detail).toBe('skipped: deposit-call failed');
    expect(result.results['no-unexpected-steps'].detail).toContain('steps[0].items[0].data.psbt could not be read');
    expect(result.depositItem).toBeNull();
    if (file.includes('depositaddress')) {
      expect(result.results['no-unexpected-steps'].detail).toContain('steps[0].depositAddress is set (bc1q327v');
    }
  });
});
