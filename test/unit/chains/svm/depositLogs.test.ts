/**
 * `DepositEvent`s are attributed to the program that logged them by following the invoke/success stack: only
 * the depository's own `Program data:` lines count (also behind a CPI); the same bytes logged by another
 * program are ignored; truncated or mis-nested logs make the scan incomplete.
 */
import { Keypair } from '@solana/web3.js';
import { base64 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { depositEventsInLogs } from '../../../../packages/ballast/src/chains/svm/depositLogs.ts';
import { encodeDepositEvent, SYSTEM_PROGRAM_ID, type SvmDepositEvent } from '../../../../packages/protocol/src/protocol/svmDepository.ts';

const key = (seed: number) => Keypair.fromSeed(new Uint8Array(32).fill(seed)).publicKey.toBase58();
const DEPOSITORY = key(9);
const ROUTER = key(10);
const USER = key(1);
const MINT = key(5);

const native: SvmDepositEvent = { depositor: USER, token: null, amount: 250_000_000n, id: `0x${'11'.repeat(32)}` };
const token: SvmDepositEvent = { depositor: USER, token: MINT, amount: 40_000_000n, id: `0x${'22'.repeat(32)}` };
const data = (e: SvmDepositEvent) => `Program data: ${base64.encode(encodeDepositEvent(e))}`;

/** The logs of a deposit_native as the depository writes them. */
function depositLogs(event: SvmDepositEvent, depth = 1, program = DEPOSITORY): string[] {
  return [
    `Program ${program} invoke [${depth}]`,
    'Program log: Instruction: DepositNative',
    `Program ${SYSTEM_PROGRAM_ID} invoke [${depth + 1}]`,
    `Program ${SYSTEM_PROGRAM_ID} success`,
    data(event),
    `Program ${program} consumed 5000 of 200000 compute units`,
    `Program ${program} success`,
  ];
}

describe('depositEventsInLogs', () => {
  it('decodes the event the depository logs, exactly', () => {
    expect(depositEventsInLogs(depositLogs(native), DEPOSITORY)).toEqual({ events: [native], complete: true });
  });

  it('finds events of several depository instructions in one transaction, in order', () => {
    const logs = [...depositLogs(native), ...depositLogs(token)];
    expect(depositEventsInLogs(logs, DEPOSITORY).events).toEqual([native, token]);
  });

  it('counts a depository reached through a CPI (depth 2)', () => {
    const logs = [`Program ${ROUTER} invoke [1]`, ...depositLogs(native, 2), `Program ${ROUTER} success`];
    expect(depositEventsInLogs(logs, DEPOSITORY)).toEqual({ events: [native], complete: true });
  });

  it('ignores the same bytes logged by another program, before, inside or after a depository call', () => {
    const forged = [`Program ${ROUTER} invoke [1]`, data(token), `Program ${ROUTER} success`];
    expect(depositEventsInLogs(forged, DEPOSITORY).events).toEqual([]);
    const nested = [
      `Program ${DEPOSITORY} invoke [1]`,
      `Program ${ROUTER} invoke [2]`,
      data(token),
      `Program ${ROUTER} success`,
      `Program ${DEPOSITORY} success`,
    ];
    expect(depositEventsInLogs(nested, DEPOSITORY).events).toEqual([]);
    expect(depositEventsInLogs(depositLogs(native, 1, ROUTER), DEPOSITORY).events).toEqual([]);
  });

  it('ignores Program data lines that are not one DepositEvent field', () => {
    const line = data(native);
    const logs = [
      `Program ${DEPOSITORY} invoke [1]`,
      `${line} ${line.slice('Program data: '.length)}`,
      'Program data: !!notbase64',
      'Program data: AAAA',
      `Program ${DEPOSITORY} success`,
    ];
    expect(depositEventsInLogs(logs, DEPOSITORY)).toEqual({ events: [], complete: true });
  });

  it('is incomplete when the node truncated the logs or the stack does not nest', () => {
    const truncated = [...depositLogs(native), 'Log truncated'];
    expect(depositEventsInLogs(truncated, DEPOSITORY)).toEqual({ events: [native], complete: false });
    const skipped = [`Program ${DEPOSITORY} invoke [2]`, data(native), `Program ${DEPOSITORY} success`];
    expect(depositEventsInLogs(skipped, DEPOSITORY)).toEqual({ events: [], complete: false });
    const wrongEnd = [`Program ${DEPOSITORY} invoke [1]`, `Program ${ROUTER} success`];
    expect(depositEventsInLogs(wrongEnd, DEPOSITORY).complete).toBe(false);
    const unfinished = depositLogs(native).slice(0, -1);
    expect(depositEventsInLogs(unfinished, DEPOSITORY).complete).toBe(false);
  });
});
