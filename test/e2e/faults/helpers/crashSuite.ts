/**
 * Registers SIGKILL cases on one shared sandbox (each case with a fresh need, config and store) and prints
 * their summary table once the file is done. Used by the crash-*.test.ts files, which split the kill
 * sequences so that vitest can run them side by side. Every killed run is a child process; the recovery runs of
 * the first case are too, those of the others run the same command in the test's process (crashCase.ts,
 * `RecoveryRuns`), which saves a node start per run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../packages/sandbox/src/startSandbox.ts';
import { tempDir } from '../../helpers/sandboxBallast.ts';
import { formatSummary, type CaseRow } from './caseAudit.ts';
import { stopChildren } from './cliChild.ts';
import { STATE_AT_KILL, STATE_AT_SECOND_KILL, crashAndRecover, type CrashSigner } from './crashCase.ts';
import { hexToBytes } from 'viem';
import { LOCAL_KMS_CREDENTIALS } from '../../../../packages/ballast/src/cli/demoKms.ts';
import { startLocalKms, type LocalKms } from '../../../../packages/sandbox/src/kms/kmsServer.ts';
import { NEED, NEED_BALANCES } from './treasuryNeed.ts';

/**
 * Longest a crash case may take on a busy two-core machine, ms: up to two killed runs, the recovery budget
 * (RECOVERY_BUDGET_MS), the audit.
 */
const CASE_TIMEOUT_MS = 180_000;

/**
 * Registers one `it` per kill sequence inside a `describe` titled `title`.
 *
 * @param sequences `BALLAST_CRASH_AT` values per case (see `crashSequences()`)
 * @param opts.signer `awsKms`: the treasury's key lives only in the sandbox's local KMS endpoint and every run signs
 *   through the AWS SDK client (docs/keys.md); absent: the key is on the host
 */
export function describeCrashCases(title: string, sequences: readonly string[][], opts: { signer?: 'awsKms' } = {}): void {
  describe(title, () => {
    const tmp = tempDir('ballast-faults-crash-');
    const rows: CaseRow[] = [];
    let sandbox: Sandbox | null = null;
    let kms: LocalKms | undefined;
    let signer: CrashSigner | undefined;
    let keyId = '';

    beforeAll(async () => {
      sandbox = await startSandbox({ balances: NEED_BALANCES });
      if (opts.signer === 'awsKms') {
        kms = await startLocalKms();
        keyId = kms.createKey('ECC_SECG_P256K1', hexToBytes(sandbox.accounts.treasury.privateKey));
        const kmsSigner = { kind: 'awsKms', keyId, region: kms.region, endpoint: kms.url, timeoutMs: 5000 };
        signer = {
          wallets: { treasury: { vm: 'evm', signer: kmsSigner, address: sandbox.accounts.treasury.address } },
          env: { ...LOCAL_KMS_CREDENTIALS, AWS_REGION: kms.region },
        };
        Object.assign(process.env, signer.env); // the in-process audit loads the same config
      }
    });
    afterAll(async () => {
      stopChildren();
      await kms?.close();
      await sandbox?.stop();
      tmp.cleanup();
      console.log(formatSummary(`${title}: summary`, rows));
    });

    for (const [index, targets] of sequences.entries()) {
      it(
        `SIGKILL at ${targets.join(' then ')}: no duplicate, nothing lost, back in band`,
        async () => {
          const signsBefore = kms?.signCount(keyId) ?? 0;
          const r = await crashAndRecover(sandbox!, tmp.dir, targets, signer, index === 0 ? 'process' : 'inProcess');
          if (kms) expect(kms.signCount(keyId) - signsBefore).toBeGreaterThanOrEqual(1); // the runs signed through KMS
          rows.push(r.row);
          // Every run meant to crash died by SIGKILL at its boundary, so the case cannot pass without the fault.
          for (const k of r.kills) {
            expect(k.signal, k.stderr.slice(-1500)).toBe('SIGKILL');
            expect(k.code).toBeNull();
          }
          const expected = STATE_AT_KILL[targets[0]!];
          if (expected) expect(r.statesAtKill[0]).toEqual(expected);
          if (targets.length > 1) expect(r.statesAtKill[1]).toEqual(STATE_AT_SECOND_KILL[targets.join(' then ')]);
          // Recovery: plain `run --once` runs that complete.
          for (const rec of r.recoveries) expect(rec.code, rec.stderr.slice(-1500)).toBe(0);

          // Exactly one deposit for the need, tracked by a transfer that ended success, nothing left in flight.
          expect(r.audit.lostWhy).toEqual([]);
          expect(r.row.lost).toBe(0n);
          expect(r.row.duplicates).toBe(0);
          expect(r.audit.deposits).toHaveLength(1);
          expect(r.audit.deposits[0]!.amount).toBe(NEED);
          const paid = r.audit.transfers.filter((t) => t.orderId?.toLowerCase() === r.audit.deposits[0]!.orderId);
          expect(paid.map((t) => t.status)).toEqual(['success']);
          expect(r.audit.inFlight).toEqual([]);
          // Anything else the store holds never deposited: a transfer failed only before its deposit was signed.
          for (const other of r.audit.transfers.filter((t) => !paid.includes(t))) {
            expect(other.status).toBe('origin_failed');
            expect(other.txs.map((t) => t.stepId)).not.toContain('deposit');
          }
          // Back in band within the recovery budget; how fast is printed (the row, the summary), not asserted: it
          // grows with machine load.
          expect(r.row.backInBandSec).not.toBeNull();
        },
        CASE_TIMEOUT_MS,
      );
    }
  });
}
