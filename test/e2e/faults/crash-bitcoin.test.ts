/**
 * Crash recovery of Bitcoin-origin transfers (BTC bitcoin → WBTC alpha): `ballast run --once` SIGKILLed at each
 * boundary of the deposit (signed, written ahead, sent, recorded sent) and after the replacement of an unwanted
 * deposit is written ahead (`cancel:written`), then run again as cron would, one block mined before each run.
 * Per case: exactly one payment to the depository for the need, the transfer(s) final, the treasury's bitcoin
 * down by the amount paid plus the miner fees of what was mined, nothing in flight.
 */
import { describeNonEvmCrashCases } from './helpers/nonEvmCrashSuite.ts';

describeNonEvmCrashCases('SIGKILL of a Bitcoin-origin transfer', 'bitcoin');
