import { defineConfig } from 'vitest/config';
import { durationSequencer } from './test/helpers/durationSequencer.ts';

/**
 * Test tiers by cost (`npm run test:<tier>` runs one, `npm test` runs all four). Membership is decided by what a
 * file really uses and kept here only:
 *
 * - `pure`: no child process, socket or database (planner, fee policy, verifier, order ids, mapping, config
 *   parsing, in-memory fakes). `test/helpers/pureGuard.ts` makes any of them throw in this tier.
 * - `integration`: real SQLite files, PostgreSQL (one server per run, test/helpers/postgresRun.ts), anvil,
 *   litesvm, the Esplora node, HTTP servers on loopback, child processes of system tools, in-process sandbox parts.
 * - `e2e`: the whole sandbox, CLI children, daemons, crash and fault suites, HA clusters.
 * - `model`: the model-based money-path proofs (CPU heavy).
 */
const INTEGRATION_UNIT = [
  'test/unit/app/runLock.test.ts',
  'test/unit/architecture/lintRules.test.ts',
  'test/unit/chains/remote/kmsNonEvmSigning.test.ts',
  'test/unit/chains/remote/jsonRpcSigning.test.ts',
  'test/unit/chains/remote/kmsSigning.test.ts',
  'test/unit/chains/remote/turnkeySigning.test.ts',
  'test/unit/chains/svm/simulate.test.ts',
  'test/unit/cli/completion.test.ts',
  'test/unit/cli/feeOutput.test.ts',
  'test/unit/cli/ledgerReport.test.ts',
  'test/unit/cli/needsCommand.test.ts',
  'test/unit/cycle/approvalGate.test.ts',
  'test/unit/cycle/checkQuote.test.ts',
  'test/unit/cycle/cycleTakenOver.test.ts',
  'test/unit/cycle/followRefund.test.ts',
  'test/unit/cycle/handOver.test.ts',
  'test/unit/cycle/pausedRoutes.test.ts',
  'test/unit/cycle/policyGate.test.ts',
  'test/unit/cycle/processTransfer.test.ts',
  'test/unit/cycle/reconcileOrigins.test.ts',
  'test/unit/cycle/refreshInFlight.test.ts',
  'test/unit/cycle/requestQuote.test.ts',
  'test/unit/cycle/spendingGate.test.ts',
  'test/unit/cycle/stalled.test.ts',
  'test/unit/cycle/validatorGate.test.ts',
  'test/unit/deploy/**/*.test.ts',
  'test/unit/executor/applyRequestStatus.test.ts',
  'test/unit/executor/replacedReceipt.test.ts',
  'test/unit/log/logger.test.ts',
  'test/unit/metrics/operatorMetrics.test.ts',
  'test/unit/metrics/readiness.test.ts',
  'test/unit/metrics/runExport.test.ts',
  'test/unit/metrics/server.test.ts',
  'test/unit/needs/api.test.ts',
  'test/unit/needs/daemonWiring.test.ts',
  'test/unit/notify/delivery.test.ts',
  'test/unit/notify/digestQueue.test.ts',
  'test/unit/notify/incidents.test.ts',
  'test/unit/relay/client.test.ts',
  'test/unit/relay/clientDeprecation.test.ts',
  'test/unit/relay/quoteApi/v3.test.ts',
  'test/unit/sim/anchorFiles.test.ts',
  'test/unit/sim/anchorScenarios.test.ts',
  'test/unit/sim/compare.test.ts',
  'test/unit/sim/faults.test.ts',
  'test/unit/sim/multiAssetRun.test.ts',
  'test/unit/sim/replay.test.ts',
  'test/unit/sim/shippedScenarios.test.ts',
  'test/unit/sim/simulate.test.ts',
  'test/unit/sandbox/api/deprecationHeaders.test.ts',
  'test/unit/sandbox/api/server.test.ts',
  'test/unit/store/accountingReads.test.ts',
  'test/unit/store/approvalRequests.test.ts',
  'test/unit/store/crashRecovery.test.ts',
  'test/unit/store/database.test.ts',
  'test/unit/store/databaseOpen.test.ts',
  'test/unit/store/flowStates.test.ts',
  'test/unit/store/lock.test.ts',
  'test/unit/store/needs.test.ts',
  'test/unit/store/notifications.test.ts',
  'test/unit/store/originFailures.test.ts',
  'test/unit/store/pg/migrations.test.ts',
  'test/unit/store/records.test.ts',
  'test/unit/store/rowTypes.test.ts',
  'test/unit/store/spendingHistory.test.ts',
  'test/unit/store/storeDb.test.ts',
  'test/unit/store/transfers.test.ts',
  'test/unit/webhooks/receiver.test.ts',
  'test/unit/webhooks/sandboxDelivery.test.ts',
  'test/unit/withdraw/flow.test.ts',
  'test/unit/withdraw/recover.test.ts',
  'test/unit/withdraw/relayWithdrawalApi.test.ts',
  'test/unit/withdraw/store.test.ts',
];

/** Files under test/e2e that use one real component in-process (a node, a chain, PostgreSQL), no sandbox or CLI. */
const INTEGRATION_E2E = [
  'test/e2e/chains/**/*.test.ts',
  'test/e2e/sandbox/bvm/**/*.test.ts',
  'test/e2e/sandbox/svm/**/*.test.ts',
  'test/e2e/sandbox/chains.test.ts',
  'test/e2e/sandbox/routers.test.ts',
  'test/e2e/ha/fenced-store.test.ts',
  'test/e2e/ha/leader-elector.test.ts',
  'test/e2e/ha/lease-sql.test.ts',
  'test/e2e/ha/partition.test.ts',
  'test/e2e/ha/postgres-harness.test.ts',
  'test/e2e/ha/term-fence.test.ts',
  'test/e2e/leader-handover.test.ts',
];

/** Options every tier shares (projects do not inherit the root `test` options). */
const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // Runs once per run whatever the projects run: prints one line when the genuine Relay fixtures are absent and
    // their tests (in any tier) were skipped.
    globalSetup: ['test/fixtures/relayFixturesNotice.ts'],
    // The usual output, then the ten slowest files (.ci/run names the same reporters on its command line).
    reporters: ['default', './test/helpers/slowestFiles.ts'],
    // One pool for all tiers, three workers on CI's two cores: the e2e files wait on chains, daemons, leases and
    // timeouts, so with two workers the cores sat idle for about a quarter of the run; a third worker fills it
    // (measured on two cores: 607 s with two workers, 506 s with three, 517 s with four, whose extra module loads
    // cost more than they fill). The static checks do not run beside the tests: ESLint's and tsc's CPU would only
    // take it from the workers.
    maxWorkers: 3,
    // The tiers one after the other, costliest first by `byProject` (a worker that changes tier loads its modules
    // again), longest files first within each. Without a results cache (a fresh clone) the estimates below order the
    // files; the slow list holds the files over ~60 s in CI runs.
    sequence: {
      sequencer: durationSequencer({
        byProject: { model: 120_000, e2e: 20_000, integration: 2_000, pure: 300 },
        slow: [
          { pattern: /^test\/model\/.*property\.test\.ts$/, ms: 150_000 },
          { pattern: /^test\/e2e\/faults\/crash-/, ms: 120_000 },
          { pattern: /^test\/e2e\/(ha\/failover|cli-build)\.test\.ts$/, ms: 60_000 },
        ],
      }),
    },
    projects: [
      {
        test: {
          ...shared,
          name: 'pure',
          include: ['test/unit/**/*.test.ts'],
          exclude: INTEGRATION_UNIT,
          setupFiles: ['test/helpers/pureGuard.ts'],
          // Files of a worker share one module graph: viem, web3.js, bitcoinjs and src/ load once per worker instead
          // of once per file (the tier's import time falls from ~140 s to ~10 s). Safe because pure files keep no
          // global state: no vi.mock, stubbed globals or environment, fake timers or process listeners (they pass
          // in shuffled order: --sequence.shuffle).
          isolate: false,
        },
      },
      {
        test: {
          ...shared,
          name: 'integration',
          include: [...INTEGRATION_UNIT, ...INTEGRATION_E2E],
          globalSetup: ['test/helpers/postgresRun.ts', 'test/helpers/sandboxArtifacts.ts'],
          // As `pure`: one module graph per worker (the tier's import time falls from ~115 s to ~10 s, its wall time
          // on two cores from ~220 s to ~120 s). Each file starts and stops its own servers, chains and stores, and
          // the tier passes with its files in shuffled order (--sequence.shuffle.files).
          isolate: false,
        },
      },
      {
        test: {
          ...shared,
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: INTEGRATION_E2E,
          globalSetup: ['test/helpers/sandboxArtifacts.ts'],
          // One module graph per worker, as `integration` (the tier's import time falls from ~240 s to ~15 s): each
          // file starts its own sandbox, daemons and CLI children; what a file puts in process.env or arms (crash
          // points) is its own to restore.
          isolate: false,
        },
      },
      {
        test: {
          ...shared,
          name: 'model',
          include: ['test/model/**/*.test.ts'],
          // As the other tiers: one module graph per worker (the tier's import time falls from ~64 s to ~17 s, its CPU
          // by ~13 s). Each file builds its own model environment; the harness disarms the crash points it arms
          // after every schedule, and the KMS credentials one file puts in process.env are the local endpoint's.
          isolate: false,
        },
      },
    ],
  },
});
