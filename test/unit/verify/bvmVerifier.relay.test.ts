/**
 * verifyBvmDeposit's rules on whether a deposit can burn fees or fail to propagate and confirm (issue 22 items 2
 * and 4), on PSBTs built here with bitcoinjs: `fee-floor`, `miner-fee-cap`, `rbf-signal`, `locktime`, and
 * `origin-inputs` on unconfirmed parents and on outpoints an in-flight deposit of ours already spends. Each
 * reproduced case of the issue is refused by its rule and only by the rules that must see it.
 */
import { networks } from 'bitcoinjs-lib';
import { describe, expect, it } from 'vitest';
import { parseBvmPsbt } from '../../../packages/ballast/src/verify/deposit/bvmPsbt.ts';
import { verifyBvmDeposit } from '../../../packages/ballast/src/verify/deposit/bvmVerifier.ts';
import {
  DEFAULT_DEPOSIT_LIMITS,
  DEPOSIT_RULE_IDS,
  type BitcoinUtxo,
  type DepositCheckInput,
  type DepositCheckResult,
  type DepositRuleId,
  type OriginChainFacts,
} from '../../../packages/ballast/src/verify/deposit/types.ts';
import {
  AMOUNT,
  buildPsbt,
  bvmCase,
  bvmQuote,
  checkInput,
  standardSpec,
  testWallet,
  UTXO_VALUES,
  type PsbtSpec,
} from '../../fixtures/bvmQuote.ts';

const wallet = testWallet('p2wpkh', 'regtest');
const c = bvmCase(wallet);
const TOTAL = UTXO_VALUES[0] + UTXO_VALUES[1];
const TIP = 870_000n;

function failing(result: DepositCheckResult): string[] {
  return DEPOSIT_RULE_IDS.filter((id) => !result.results[id].ok);
}
const detail = (result: DepositCheckResult, rule: DepositRuleId) => result.results[rule].detail;

function run(spec: PsbtSpec, over: Partial<DepositCheckInput> = {}, origin: Partial<OriginChainFacts> = {}): DepositCheckResult {
  const input = checkInput(c, bvmQuote(c, buildPsbt(c, spec).toHex()), over);
  return verifyBvmDeposit({ ...input, origin: { ...input.origin, tipHeight: TIP, ...origin } });
}

/** The standard PSBT paying `feeSat` to miners (the change takes the rest). */
function withFee(feeSat: bigint): PsbtSpec {
  const spec = standardSpec(c);
  spec.outputs[2] = { ...spec.outputs[2]!, value: TOTAL - AMOUNT - feeSat };
  return spec;
}

/** Estimated signed vsize of the standard PSBT (two P2WPKH inputs, three outputs). */
const VSIZE = (() => {
  const size = parseBvmPsbt(buildPsbt(c, standardSpec(c)).toHex(), networks.regtest).psbt?.size;
  if (!size || 'problem' in size) throw new Error('the standard PSBT has an estimable size');
  return size.vsize;
})();

describe('honest PSBT', () => {
  it('passes every new rule, each detail saying what was checked', () => {
    const result = run(standardSpec(c), {}, { feeEstimate: { targetBlocks: 1008, satPerVb: 1.5 } });
    expect(failing(result)).toEqual([]);
    expect(detail(result, 'fee-floor')).toMatch(
      /^fee 2000 sat over ~\d+ vB = \d+\.\d\d sat\/vB, at least the floor of 1\.5 sat\/vB \(the node's 1008-block estimate 1\.5 \(above the configured minFeeRateSatPerVb 1\)\)$/,
    );
    expect(detail(result, 'miner-fee-cap')).toBe('miner fee 2000 sat (200 bps of the 100000-sat payment), within 100000 sat and 500 bps');
    expect(detail(result, 'rbf-signal')).toBe('every input (2) signals BIP-125 replaceability (nSequence at most 0xfffffffd)');
    expect(detail(result, 'locktime')).toBe('nLockTime 0; no relative lock: final in the next block');
    expect(detail(result, 'origin-inputs')).toContain('none spent by an in-flight deposit of ours');
  });
});

describe('miner-fee-cap', () => {
  it('the issue case: 39,000 sat to miners on a 100,000-sat deposit (~137 sat/vB, under the rate cap) is refused', () => {
    const result = run(withFee(39_000n));
    expect(failing(result)).toEqual(['miner-fee-cap']);
    expect(detail(result, 'fee-cap')).toMatch(/^fee 39000 sat over ~\d+ vB = 13\d\.\d\d sat\/vB, within the cap of 200 sat\/vB$/);
    expect(detail(result, 'miner-fee-cap')).toBe(
      'miner fee 39000 sat is 3900 bps of the 100000-sat payment, above the cap of 500 bps (maxMinerFeeBps)',
    );
  });

  it("the public Relay docs' example (3,639 sat on 100,000 sat, 364 bps) passes under the defaults; 5,001 sat does not", () => {
    expect(failing(run(withFee(3_639n)))).toEqual([]);
    expect(detail(run(withFee(5_000n)), 'miner-fee-cap')).toBe(
      'miner fee 5000 sat (500 bps of the 100000-sat payment), within 100000 sat and 500 bps',
    );
    expect(detail(run(withFee(5_001n)), 'miner-fee-cap')).toBe(
      'miner fee 5001 sat is 501 bps of the 100000-sat payment, above the cap of 500 bps (maxMinerFeeBps)',
    );
  });

  it('the absolute cap applies whatever the share', () => {
    const limits = { ...DEFAULT_DEPOSIT_LIMITS, bvmMaxMinerFeeSats: 1_999n };
    const result = run(standardSpec(c), { limits });
    expect(failing(result)).toEqual(['miner-fee-cap']);
    expect(detail(result, 'miner-fee-cap')).toBe('miner fee 2000 sat is above the cap of 1999 sat (maxMinerFeeSats)');
    expect(failing(run(standardSpec(c), { limits: { ...limits, bvmMaxMinerFeeSats: 2_000n } }))).toEqual([]);
  });

  it("values inputs at our outputs, not at the PSBT's witnessUtxo (an understated fee does not pass)", () => {
    const spec = withFee(39_000n);
    spec.inputs[0] = { ...spec.inputs[0]!, witnessValue: UTXO_VALUES[0] - 37_000n }; // the PSBT alone shows 2,000 sat
    expect(detail(run(spec), 'miner-fee-cap')).toContain('miner fee 39000 sat is 3900 bps');
  });
});

describe('fee-floor', () => {
  const fee02 = BigInt(Math.floor(VSIZE / 5)); // 0.2 sat/vB

  it('the issue case: a 0.2 sat/vB fee is refused under the configured floor of 1 sat/vB', () => {
    const result = run(withFee(fee02));
    expect(failing(result)).toEqual(['fee-floor']);
    expect(detail(result, 'fee-floor')).toBe(
      `fee ${fee02} sat over ~${VSIZE} vB = 0.19 sat/vB, below the floor of 1 sat/vB (the configured minFeeRateSatPerVb 1 (no node fee estimate read)); the deposit may never propagate or confirm`,
    );
  });

  it("the node's slowest-target estimate raises the floor; a lower one does not lower it", () => {
    const high = run(standardSpec(c), {}, { feeEstimate: { targetBlocks: 1008, satPerVb: 12 } });
    expect(failing(high)).toEqual(['fee-floor']);
    expect(detail(high, 'fee-floor')).toContain(
      "below the floor of 12 sat/vB (the node's 1008-block estimate 12 (above the configured minFeeRateSatPerVb 1))",
    );
    const low = run(withFee(fee02), {}, { feeEstimate: { targetBlocks: 1008, satPerVb: 0.1 } });
    expect(detail(low, 'fee-floor')).toContain(
      "below the floor of 1 sat/vB (the configured minFeeRateSatPerVb 1 (not below the node's 1008-block estimate 0.1))",
    );
  });

  it('an estimate that could not be read falls back to the configured floor and says so', () => {
    const result = run(
      standardSpec(c),
      { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmMinFeeRateSatPerVb: 2 } },
      { feeEstimate: { problem: 'chains.bitcoin.esploraUrl answered HTTP 503 to GET /fee-estimates' } },
    );
    expect(failing(result)).toEqual([]);
    expect(detail(result, 'fee-floor')).toContain(
      "at least the floor of 2 sat/vB (the configured minFeeRateSatPerVb 2 (the node's fee estimate could not be read: chains.bitcoin.esploraUrl answered HTTP 503 to GET /fee-estimates))",
    );
  });

  it('exactly at the floor passes; one satoshi less is refused (integer comparison)', () => {
    const atFloor = BigInt(VSIZE); // 1 sat/vB
    expect(failing(run(withFee(atFloor)))).toEqual([]);
    expect(failing(run(withFee(atFloor - 1n)))).toEqual(['fee-floor']);
  });
});

describe('rbf-signal', () => {
  it('an input with a final nSequence is refused; the rule passes, saying so, when requireReplaceable is false', () => {
    const spec = standardSpec(c);
    spec.inputs[1] = { ...spec.inputs[1]!, sequence: 0xffffffff };
    const result = run(spec);
    expect(failing(result)).toEqual(['rbf-signal']);
    expect(detail(result, 'rbf-signal')).toBe(
      'input 1 nSequence 0xffffffff does not signal BIP-125 replaceability (must be at most 0xfffffffd)',
    );
    const off = run(spec, { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmRequireReplaceable: false } });
    expect(failing(off)).toEqual([]);
    expect(detail(off, 'rbf-signal')).toContain('not required: requireReplaceable is false');
  });

  it('0xfffffffe (final for BIP-125, no relative lock) is refused too', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, sequence: 0xfffffffe };
    expect(detail(run(spec), 'rbf-signal')).toBe(
      'input 0 nSequence 0xfffffffe does not signal BIP-125 replaceability (must be at most 0xfffffffd)',
    );
  });
});

describe('locktime', () => {
  it('the issue case: nLockTime far in the future is refused', () => {
    const result = run({ ...standardSpec(c), locktime: 2_000_000 });
    expect(failing(result)).toEqual(['locktime']);
    expect(detail(result, 'locktime')).toBe(
      'nLockTime 2000000 is above the tip height 870000: not final, the node would refuse the deposit for 1130000 more block(s)',
    );
  });

  it('a height at the tip passes (final at tip + 1); one above it is refused', () => {
    expect(detail(run({ ...standardSpec(c), locktime: Number(TIP) }), 'locktime')).toBe(
      'nLockTime 870000, not above the tip height 870000; no relative lock: final in the next block',
    );
    expect(failing(run({ ...standardSpec(c), locktime: Number(TIP) + 1 }))).toEqual(['locktime']);
  });

  it('a height lock is refused when the tip was not read; a time lock always', () => {
    const input = checkInput(c, bvmQuote(c, buildPsbt(c, { ...standardSpec(c), locktime: 100 }).toHex()));
    expect(detail(verifyBvmDeposit(input), 'locktime')).toContain(
      'nLockTime 100 is a block height, but the tip height was not read (origin.tipHeight absent)',
    );
    expect(detail(run({ ...standardSpec(c), locktime: 1_700_000_000 }), 'locktime')).toBe(
      'nLockTime 1700000000 is a unix time (at least 500000000); only 0 or a block height not above the tip is accepted',
    );
  });

  it('a lock disabled by final nSequences passes locktime (rbf-signal then refuses the sequences)', () => {
    const spec: PsbtSpec = { ...standardSpec(c), locktime: 2_000_000 };
    spec.inputs = spec.inputs.map((i) => ({ ...i, sequence: 0xffffffff }));
    const result = run(spec);
    expect(failing(result)).toEqual(['rbf-signal']);
    expect(detail(result, 'locktime')).toContain('nLockTime 2000000 not enforced (every nSequence is 0xffffffff)');
  });

  it('a BIP-68 relative lock (blocks or 512-second units) is refused', () => {
    const spec = standardSpec(c);
    spec.inputs[0] = { ...spec.inputs[0]!, sequence: 144 };
    spec.inputs[1] = { ...spec.inputs[1]!, sequence: 0x00400000 | 10 };
    const result = run(spec);
    expect(failing(result)).toEqual(['locktime']);
    expect(detail(result, 'locktime')).toBe(
      'input 0 nSequence 0x00000090 is a BIP-68 relative lock of 144 block(s); the deposit could not confirm before then; input 1 nSequence 0x0040000a is a BIP-68 relative lock of 5120 seconds; the deposit could not confirm before then',
    );
  });
});

describe('origin-inputs: unconfirmed parents and our in-flight deposits', () => {
  const unconfirmed = (parentOurs?: boolean, parentTracked = true): BitcoinUtxo[] => [
    { ...c.utxos[0]!, confirmed: false, ...(parentOurs === undefined ? {} : { parentOurs, parentTracked }) },
    c.utxos[1]!,
  ];
  const allow = { limits: { ...DEFAULT_DEPOSIT_LIMITS, bvmAllowOwnUnconfirmedInputs: true } };
  const at0 = `input 0 (${'a1'.repeat(32)}:0)`;

  it('confirmed outputs only by default, whoever made the unconfirmed one', () => {
    const result = run(standardSpec(c), {}, { utxos: unconfirmed(true) });
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toBe(
      `${at0} spends an unconfirmed output of ${'a1'.repeat(32)}; deposits spend confirmed outputs only (chains.<name>.allowOwnUnconfirmedInputs is off), so no deposit hangs on another transaction's fate`,
    );
  });

  it("allowed: an unconfirmed output of a stranger's transaction is still refused", () => {
    const result = run(standardSpec(c), allow, { utxos: unconfirmed(false) });
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toBe(
      `${at0} spends an unconfirmed output of a transaction that is not ours (an input of ${'a1'.repeat(32)} spends another script); a stranger would decide when our deposit confirms`,
    );
  });

  it('allowed: our own change of a transaction in flight passes; untracked or unread parents are refused', () => {
    expect(failing(run(standardSpec(c), allow, { utxos: unconfirmed(true) }))).toEqual([]);
    expect(detail(run(standardSpec(c), allow, { utxos: unconfirmed(true, false) }), 'origin-inputs')).toContain(
      'which is no deposit or cancel of ours in flight',
    );
    expect(detail(run(standardSpec(c), allow, { utxos: unconfirmed() }), 'origin-inputs')).toContain(
      `${at0} spends an unconfirmed output whose parent transaction ${'a1'.repeat(32)} was not read`,
    );
  });

  it('a lagging UTXO view: Esplora still lists the outpoint, but an in-flight deposit of ours spends it', () => {
    const reserved = `${'B2'.repeat(32)}:3`; // case of the txid does not matter
    const result = run(standardSpec(c), {}, { reservedOutpoints: [reserved, `${'cc'.repeat(32)}:0`] });
    expect(failing(result)).toEqual(['origin-inputs']);
    expect(detail(result, 'origin-inputs')).toBe(
      `input 1 (${'b2'.repeat(32)}:3) is already spent by an in-flight deposit of ours; signing it would replace or conflict with that deposit`,
    );
    expect(failing(run(standardSpec(c), {}, { reservedOutpoints: [`${'b2'.repeat(32)}:4`] }))).toEqual([]);
  });
});
