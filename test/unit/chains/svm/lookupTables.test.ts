/**
 * The lookup tables a quote names are collected from every Solana step item, once each, in order; items whose
 * data is not Solana step data name none.
 */
import { describe, expect, it } from 'vitest';
import { quoteLookupTableAddresses } from '../../../../packages/ballast/src/chains/svm/lookupTables.ts';
import { SVM_LOOKUP_TABLE, SVM_STRANGER, SVM_USER, svmQuoteInput } from '../../../fixtures/svmQuote.ts';

describe('quoteLookupTableAddresses', () => {
  it('lists the tables of every item once, first seen first', () => {
    const { input } = svmQuoteInput('native');
    const step = input.quote.steps[0]!; // the fixture has one deposit step
    const first = step.items[0]!;
    step.items.push({ status: 'incomplete', data: { ...first.data, addressLookupTableAddresses: [SVM_STRANGER, SVM_LOOKUP_TABLE] } });
    step.items.push({ status: 'incomplete', data: { to: SVM_USER, data: '0x' } });
    expect(quoteLookupTableAddresses(input.quote)).toEqual([SVM_LOOKUP_TABLE, SVM_STRANGER]);
  });

  it('lists nothing for items without tables', () => {
    const { input } = svmQuoteInput('native');
    delete input.quote.steps[0]!.items[0]!.data['addressLookupTableAddresses']; // the fixture's one item
    expect(quoteLookupTableAddresses(input.quote)).toEqual([]);
  });
});
