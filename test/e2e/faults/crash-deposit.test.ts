/**
 * Crash recovery, second half: `ballast run --once` SIGKILLed at every step boundary from the deposit's
 * write-ahead row on (`tx:*#2`, deposited, tracked, final), and a recovery run killed while it reconciles
 * (`reconcile:moved`); then run again as cron would. Per case it prints duplicates, lost and the time back in
 * band; duplicates and lost must be 0 and the treasury must come back in band (how fast is printed, not
 * asserted: it grows with machine load). The treasury's key lives only in the local KMS endpoint: every killed and
 * recovering run checks the key at start and signs through the AWS SDK client (crash-approve.test.ts keeps the key
 * on the host).
 */
import { crashSequences, killsBeforeDeposit } from './helpers/crashCase.ts';
import { describeCrashCases } from './helpers/crashSuite.ts';

describeCrashCases(
  'SIGKILL from the deposit on',
  crashSequences().filter((targets) => !killsBeforeDeposit(targets)),
  { signer: 'awsKms' },
);
