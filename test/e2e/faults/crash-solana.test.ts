/**
 * Crash recovery of Solana-origin transfers (USDC solana → USDC alpha): `ballast run --once` SIGKILLed at each
 * boundary of the deposit (signed, written ahead, sent, recorded sent), then run again as cron would. Per case:
 * exactly one depository deposit for the need, the transfer final, the treasury's USDC down by the amount and its
 * SOL by the deposit's fee, nothing in flight.
 */
import { describeNonEvmCrashCases } from './helpers/nonEvmCrashSuite.ts';

describeNonEvmCrashCases('SIGKILL of a Solana-origin transfer', 'solana');
