/**
 * Context-free checks the sandbox's Bitcoin node applies to a broadcast before looking at its inputs, in
 * Bitcoin Core's order and with its reject reasons: transaction shape (`bad-txns-*`), standardness
 * (`version`, `scriptpubkey`, `dust`, `multi-op-return`) and finality (`non-final`). Pure: no I/O.
 */
import type { Transaction } from 'bitcoinjs-lib';
import { BitcoinTxRejectedError } from './errors.ts';
import { classifyScript, opReturnData, type EsploraScriptType } from './script.ts';

/** Largest amount that can exist, in satoshis (21 000 000 BTC). */
export const MAX_MONEY_SATS = 2_100_000_000_000_000n;
/** Largest standard OP_RETURN output script, in bytes (Core's `-datacarriersize` default). */
export const MAX_OP_RETURN_SCRIPT_BYTES = 83;
/** Lock times at or above this are unix seconds, below it block heights. */
const LOCKTIME_THRESHOLD = 500_000_000;
const SEQUENCE_FINAL = 0xffffffff;

/**
 * Smallest standard value per output type, in satoshis. P2PKH 546, P2SH 540 and P2WSH 330 are Bitcoin
 * Core's values at its default dust relay fee; P2WPKH and P2TR use 330 (Core's P2WPKH threshold is 294, so
 * the sandbox is slightly stricter there).
 */
export const DUST_THRESHOLD_SATS: Partial<Record<EsploraScriptType, bigint>> = {
  p2pkh: 546n,
  p2sh: 540n,
  v0_p2wpkh: 330n,
  v0_p2wsh: 330n,
  v1_p2tr: 330n,
};

/**
 * Structural checks (Core's `CheckTransaction` plus the coinbase rule): at least one input and one output,
 * no output value above {@link MAX_MONEY_SATS} nor a total above it, no outpoint spent twice, not a coinbase.
 *
 * @throws BitcoinTxRejectedError `BTC_TX_COINBASE`, `BTC_TX_EMPTY`, `BTC_TX_OUTPUT_VALUE`, `BTC_TX_INPUTS_DUPLICATE`
 */
export function checkTxShape(tx: Transaction): void {
  if (tx.ins.length === 0) throw new BitcoinTxRejectedError('BTC_TX_EMPTY', { reason: 'bad-txns-vin-empty' });
  if (tx.outs.length === 0) throw new BitcoinTxRejectedError('BTC_TX_EMPTY', { reason: 'bad-txns-vout-empty' });
  if (tx.isCoinbase()) throw new BitcoinTxRejectedError('BTC_TX_COINBASE', { reason: 'coinbase' }, 'a coinbase cannot be broadcast');
  let total = 0n;
  tx.outs.forEach((out, outputIndex) => {
    if (out.value < 0n) throw new BitcoinTxRejectedError('BTC_TX_OUTPUT_VALUE', { reason: 'bad-txns-vout-negative', outputIndex });
    if (out.value > MAX_MONEY_SATS)
      throw new BitcoinTxRejectedError('BTC_TX_OUTPUT_VALUE', { reason: 'bad-txns-vout-toolarge', outputIndex });
    total += out.value;
    if (total > MAX_MONEY_SATS)
      throw new BitcoinTxRejectedError('BTC_TX_OUTPUT_VALUE', { reason: 'bad-txns-txouttotal-toolarge', outputIndex });
  });
  const seen = new Set<string>();
  tx.ins.forEach((input, inputIndex) => {
    const key = `${Buffer.from(input.hash).toString('hex')}:${input.index}`;
    if (seen.has(key)) throw new BitcoinTxRejectedError('BTC_TX_INPUTS_DUPLICATE', { reason: 'bad-txns-inputs-duplicate', inputIndex });
    seen.add(key);
  });
}

/**
 * Standardness of the version and outputs (Core's `IsStandardTx`): version 1–3; every output P2PKH, P2SH,
 * P2WPKH, P2WSH, P2TR or an OP_RETURN data carrier (push-only, script ≤ {@link MAX_OP_RETURN_SCRIPT_BYTES}
 * bytes); at most one OP_RETURN; no output other than OP_RETURN below {@link DUST_THRESHOLD_SATS}.
 *
 * @throws BitcoinTxRejectedError `BTC_TX_VERSION`, `BTC_TX_NONSTANDARD_OUTPUT`, `BTC_TX_MULTI_OP_RETURN`, `BTC_TX_DUST`
 */
export function checkStandard(tx: Transaction): void {
  if (tx.version < 1 || tx.version > 3) {
    throw new BitcoinTxRejectedError('BTC_TX_VERSION', { reason: 'version' }, `version ${tx.version} is non-standard; use 2`);
  }
  let opReturns = 0;
  tx.outs.forEach((out, outputIndex) => {
    const type = classifyScript(out.script);
    if (type === 'op_return') {
      if (out.script.length > MAX_OP_RETURN_SCRIPT_BYTES || opReturnData(out.script) === null) {
        throw new BitcoinTxRejectedError(
          'BTC_TX_NONSTANDARD_OUTPUT',
          { reason: 'scriptpubkey', outputIndex },
          `an OP_RETURN script must be push-only and at most ${MAX_OP_RETURN_SCRIPT_BYTES} bytes (got ${out.script.length})`,
        );
      }
      opReturns += 1;
      return;
    }
    const dust = DUST_THRESHOLD_SATS[type];
    if (dust === undefined) {
      throw new BitcoinTxRejectedError(
        'BTC_TX_NONSTANDARD_OUTPUT',
        { reason: 'scriptpubkey', outputIndex },
        `${type} outputs are non-standard here`,
      );
    }
    if (out.value < dust) {
      throw new BitcoinTxRejectedError(
        'BTC_TX_DUST',
        { reason: 'dust', outputIndex },
        `${out.value} sat is below the ${dust} sat dust threshold of ${type}`,
      );
    }
  });
  if (opReturns > 1)
    throw new BitcoinTxRejectedError('BTC_TX_MULTI_OP_RETURN', { reason: 'multi-op-return' }, 'use a single OP_RETURN output');
}

/**
 * Finality for the next block (Core's `IsFinalTx` at tip height + 1 and the tip's time): a lock time of 0,
 * all sequences final, or a lock time already passed.
 *
 * @param tipHeight height of the current tip
 * @param tipTimeSec timestamp of the current tip, unix seconds (the sandbox has no median-time-past)
 * @throws BitcoinTxRejectedError `BTC_TX_NON_FINAL`
 */
export function checkFinal(tx: Transaction, tipHeight: number, tipTimeSec: number): void {
  if (tx.locktime === 0) return;
  const limit = tx.locktime < LOCKTIME_THRESHOLD ? tipHeight + 1 : tipTimeSec;
  if (tx.locktime < limit) return;
  if (tx.ins.every((input) => input.sequence === SEQUENCE_FINAL)) return;
  throw new BitcoinTxRejectedError(
    'BTC_TX_NON_FINAL',
    { reason: 'non-final' },
    `lock time ${tx.locktime} is not reached yet (tip height ${tipHeight})`,
  );
}
