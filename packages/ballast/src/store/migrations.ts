/**
 * Numbered SQL migrations of the Ballast database, applied in order by `openDatabase`.
 *
 * Rules: never edit a migration that has shipped; add a new one. Amounts are TEXT decimal strings of base
 * units (CHECKed to be digits only, so they survive values beyond 2^64); times are integer milliseconds since
 * the epoch in `*_ms` columns; status columns carry CHECK constraints listing every allowed value. The row types
 * store reads are cast to declare their columns (src/store/rowColumns.ts); test/unit/store/rowTypes.test.ts fails
 * until they follow a migration that adds, renames, drops or retypes a column they read.
 */

/**
 * One migration: `version` is 1, 2, 3… with no gaps. Migrations run with foreign keys off and are checked with
 * `PRAGMA foreign_key_check` before they commit (SQLite's procedure for rebuilding a table, "ALTER TABLE" §7),
 * so a migration may rebuild a table other tables reference.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** SQL fragment: `col` holds an unsigned integer string (base units). */
const uint = (col: string) => `CHECK (${col} <> '' AND ${col} NOT GLOB '*[^0-9]*')`;
/** SQL fragment: `col` holds a signed integer string: an optional '-', then digits (smoothed rates, balances). */
const sint = (col: string) => `CHECK (ltrim(${col}, '-') <> '' AND ltrim(${col}, '-') NOT GLOB '*[^0-9]*' AND ${col} NOT GLOB '--*')`;

/** All migrations, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema: cycles, balances, plans, quotes, transfers, run lock',
    sql: `
CREATE TABLE cycles (
  id              INTEGER PRIMARY KEY,
  mode            TEXT    NOT NULL CHECK (mode IN ('once', 'daemon', 'plan')),
  started_at_ms   INTEGER NOT NULL,
  finished_at_ms  INTEGER,
  outcome         TEXT    CHECK (outcome IN ('ok', 'refused', 'error')),
  summary_json    TEXT,
  error           TEXT,
  CHECK ((finished_at_ms IS NULL) = (outcome IS NULL))
);

CREATE TABLE balances (
  id          INTEGER PRIMARY KEY,
  cycle_id    INTEGER NOT NULL REFERENCES cycles(id),
  chain       TEXT    NOT NULL,
  chain_id    INTEGER NOT NULL,
  asset       TEXT    NOT NULL,
  wallet      TEXT    NOT NULL,
  address     TEXT    NOT NULL,
  currency    TEXT    NOT NULL,
  amount      TEXT    ${uint('amount')},
  error       TEXT,
  read_at_ms  INTEGER NOT NULL,
  CHECK (amount IS NOT NULL OR error IS NOT NULL)
);
CREATE INDEX balances_cycle ON balances(cycle_id);

CREATE TABLE planned_transfers (
  id                 INTEGER PRIMARY KEY,
  cycle_id           INTEGER NOT NULL REFERENCES cycles(id),
  asset              TEXT    NOT NULL,
  origin_chain       TEXT    NOT NULL,
  destination_chain  TEXT    NOT NULL,
  amount_in          TEXT    NOT NULL ${uint('amount_in')},
  reason             TEXT    NOT NULL
);
CREATE INDEX planned_transfers_cycle ON planned_transfers(cycle_id);

CREATE TABLE plan_decisions (
  id        INTEGER PRIMARY KEY,
  cycle_id  INTEGER NOT NULL REFERENCES cycles(id),
  asset     TEXT    NOT NULL,
  chain     TEXT,
  kind      TEXT    NOT NULL,
  detail    TEXT    NOT NULL
);
CREATE INDEX plan_decisions_cycle ON plan_decisions(cycle_id);

CREATE TABLE quotes (
  id              INTEGER PRIMARY KEY,
  cycle_id        INTEGER NOT NULL REFERENCES cycles(id),
  plan_id         INTEGER REFERENCES planned_transfers(id),
  request_id      TEXT,
  order_id        TEXT,
  request_json    TEXT    NOT NULL,
  raw_json        TEXT    NOT NULL,
  received_at_ms  INTEGER NOT NULL
);
CREATE INDEX quotes_cycle ON quotes(cycle_id);
CREATE INDEX quotes_request ON quotes(request_id);

CREATE TABLE fee_decisions (
  quote_id        INTEGER PRIMARY KEY REFERENCES quotes(id),
  accepted        INTEGER NOT NULL CHECK (accepted IN (0, 1)),
  reason          TEXT,
  detail          TEXT,
  breakdown_json  TEXT,
  CHECK (accepted = 1 OR reason IS NOT NULL)
);

CREATE TABLE verdicts (
  quote_id    INTEGER PRIMARY KEY REFERENCES quotes(id),
  ok          INTEGER NOT NULL CHECK (ok IN (0, 1)),
  rules_json  TEXT    NOT NULL
);

CREATE TABLE quote_errors (
  id                INTEGER PRIMARY KEY,
  cycle_id          INTEGER NOT NULL REFERENCES cycles(id),
  plan_id           INTEGER REFERENCES planned_transfers(id),
  code              TEXT    NOT NULL,
  message           TEXT    NOT NULL,
  relay_request_id  TEXT,
  at_ms             INTEGER
);
CREATE INDEX quote_errors_cycle ON quote_errors(cycle_id);

CREATE TABLE transfers (
  id                    INTEGER PRIMARY KEY,
  cycle_id              INTEGER NOT NULL REFERENCES cycles(id),
  quote_id              INTEGER REFERENCES quotes(id),
  asset                 TEXT    NOT NULL,
  origin_chain          TEXT    NOT NULL,
  origin_chain_id       INTEGER NOT NULL,
  origin_currency       TEXT    NOT NULL,
  destination_chain     TEXT    NOT NULL,
  destination_chain_id  INTEGER NOT NULL,
  destination_currency  TEXT    NOT NULL,
  user_address          TEXT    NOT NULL,
  recipient             TEXT    NOT NULL,
  amount_in             TEXT    NOT NULL ${uint('amount_in')},
  expected_out          TEXT    NOT NULL ${uint('expected_out')},
  min_out               TEXT    NOT NULL ${uint('min_out')},
  request_id            TEXT    UNIQUE,
  order_id              TEXT,
  fees_usd              TEXT,
  status                TEXT    NOT NULL CHECK (status IN
                          ('prepared', 'broadcast', 'deposited', 'success', 'failure', 'refund', 'origin_failed')),
  relay_status          TEXT,
  out_tx_hashes_json    TEXT    NOT NULL DEFAULT '[]',
  error                 TEXT,
  created_at_ms         INTEGER NOT NULL,
  updated_at_ms         INTEGER NOT NULL
);
CREATE INDEX transfers_in_flight ON transfers(status) WHERE status IN ('prepared', 'broadcast', 'deposited');
CREATE INDEX transfers_created ON transfers(created_at_ms);

CREATE TABLE transfer_txs (
  id                 INTEGER PRIMARY KEY,
  transfer_id        INTEGER NOT NULL REFERENCES transfers(id),
  step_id            TEXT    NOT NULL,
  item_index         INTEGER NOT NULL CHECK (item_index >= 0),
  chain_id           INTEGER NOT NULL,
  request_json       TEXT    NOT NULL,
  tx_hash            TEXT    NOT NULL,
  raw_tx             TEXT    NOT NULL,
  status             TEXT    NOT NULL CHECK (status IN ('signed', 'sent', 'confirmed', 'reverted')),
  block_number       TEXT    ${uint('block_number')},
  signed_at_ms       INTEGER NOT NULL,
  sent_at_ms         INTEGER,
  confirmed_at_ms    INTEGER,
  UNIQUE (transfer_id, step_id, item_index)
);
CREATE INDEX transfer_txs_hash ON transfer_txs(tx_hash);

CREATE TABLE transfer_events (
  id           INTEGER PRIMARY KEY,
  transfer_id  INTEGER NOT NULL REFERENCES transfers(id),
  from_status  TEXT,
  to_status    TEXT    NOT NULL,
  at_ms        INTEGER NOT NULL,
  detail       TEXT
);
CREATE INDEX transfer_events_transfer ON transfer_events(transfer_id);

CREATE TABLE run_lock (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  owner           TEXT    NOT NULL,
  pid             INTEGER NOT NULL,
  acquired_at_ms  INTEGER NOT NULL,
  expires_at_ms   INTEGER NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'transfers: operator resolution of a failed deposit (resolved_at_ms, resolution)',
    sql: `
ALTER TABLE transfers ADD COLUMN resolved_at_ms INTEGER;
ALTER TABLE transfers ADD COLUMN resolution TEXT;
CREATE INDEX transfers_unresolved_failures ON transfers(status) WHERE status = 'failure' AND resolved_at_ms IS NULL;
`,
  },
  {
    version: 3,
    name: "cycles: outcome 'aborted' (a run that died mid-cycle); transfers: stalled_at_ms, absence_block, absence_at_ms; transfer_txs: block_hash, final_at_ms",
    sql: `
CREATE TABLE cycles_rebuilt (
  id              INTEGER PRIMARY KEY,
  mode            TEXT    NOT NULL CHECK (mode IN ('once', 'daemon', 'plan')),
  started_at_ms   INTEGER NOT NULL,
  finished_at_ms  INTEGER,
  outcome         TEXT    CHECK (outcome IN ('ok', 'refused', 'error', 'aborted')),
  summary_json    TEXT,
  error           TEXT,
  CHECK ((finished_at_ms IS NULL) = (outcome IS NULL))
);
INSERT INTO cycles_rebuilt (id, mode, started_at_ms, finished_at_ms, outcome, summary_json, error)
  SELECT id, mode, started_at_ms, finished_at_ms, outcome, summary_json, error FROM cycles;
DROP TABLE cycles;
ALTER TABLE cycles_rebuilt RENAME TO cycles;
CREATE INDEX cycles_unfinished ON cycles(id) WHERE finished_at_ms IS NULL;

ALTER TABLE transfers ADD COLUMN stalled_at_ms INTEGER;
ALTER TABLE transfers ADD COLUMN absence_block TEXT ${uint('absence_block')};
ALTER TABLE transfers ADD COLUMN absence_at_ms INTEGER;
ALTER TABLE transfer_txs ADD COLUMN block_hash TEXT;
ALTER TABLE transfer_txs ADD COLUMN final_at_ms INTEGER;
`,
  },
  {
    version: 4,
    name: 'limit_hits: transfers refused by a spending limit (kill switch, allow-list, caps, budgets)',
    sql: `
CREATE TABLE limit_hits (
  id                 INTEGER PRIMARY KEY,
  cycle_id           INTEGER NOT NULL REFERENCES cycles(id),
  plan_id            INTEGER NOT NULL REFERENCES planned_transfers(id),
  quote_id           INTEGER REFERENCES quotes(id),
  asset              TEXT    NOT NULL,
  origin_chain       TEXT    NOT NULL,
  destination_chain  TEXT    NOT NULL,
  amount_in          TEXT    NOT NULL ${uint('amount_in')},
  reason             TEXT    NOT NULL,
  detail             TEXT    NOT NULL,
  decided_at_ms      INTEGER NOT NULL
);
CREATE INDEX limit_hits_by_time ON limit_hits(decided_at_ms);
`,
  },
  {
    version: 5,
    name: "transfers: status 'withdrawn' (an unfilled deposit recovered); withdrawals: recovery of unfilled deposits (write-ahead)",
    sql: `
CREATE TABLE transfers_rebuilt (
  id                    INTEGER PRIMARY KEY,
  cycle_id              INTEGER NOT NULL REFERENCES cycles(id),
  quote_id              INTEGER REFERENCES quotes(id),
  asset                 TEXT    NOT NULL,
  origin_chain          TEXT    NOT NULL,
  origin_chain_id       INTEGER NOT NULL,
  origin_currency       TEXT    NOT NULL,
  destination_chain     TEXT    NOT NULL,
  destination_chain_id  INTEGER NOT NULL,
  destination_currency  TEXT    NOT NULL,
  user_address          TEXT    NOT NULL,
  recipient             TEXT    NOT NULL,
  amount_in             TEXT    NOT NULL ${uint('amount_in')},
  expected_out          TEXT    NOT NULL ${uint('expected_out')},
  min_out               TEXT    NOT NULL ${uint('min_out')},
  request_id            TEXT    UNIQUE,
  order_id              TEXT,
  fees_usd              TEXT,
  status                TEXT    NOT NULL CHECK (status IN
                          ('prepared', 'broadcast', 'deposited', 'success', 'failure', 'refund', 'origin_failed', 'withdrawn')),
  relay_status          TEXT,
  out_tx_hashes_json    TEXT    NOT NULL DEFAULT '[]',
  error                 TEXT,
  created_at_ms         INTEGER NOT NULL,
  updated_at_ms         INTEGER NOT NULL,
  resolved_at_ms        INTEGER,
  resolution            TEXT,
  stalled_at_ms         INTEGER,
  absence_block         TEXT    ${uint('absence_block')},
  absence_at_ms         INTEGER
);
INSERT INTO transfers_rebuilt (id, cycle_id, quote_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain,
    destination_chain_id, destination_currency, user_address, recipient, amount_in, expected_out, min_out, request_id, order_id,
    fees_usd, status, relay_status, out_tx_hashes_json, error, created_at_ms, updated_at_ms, resolved_at_ms, resolution,
    stalled_at_ms, absence_block, absence_at_ms)
  SELECT id, cycle_id, quote_id, asset, origin_chain, origin_chain_id, origin_currency, destination_chain,
    destination_chain_id, destination_currency, user_address, recipient, amount_in, expected_out, min_out, request_id, order_id,
    fees_usd, status, relay_status, out_tx_hashes_json, error, created_at_ms, updated_at_ms, resolved_at_ms, resolution,
    stalled_at_ms, absence_block, absence_at_ms
  FROM transfers;
DROP TABLE transfers;
ALTER TABLE transfers_rebuilt RENAME TO transfers;
CREATE INDEX transfers_in_flight ON transfers(status) WHERE status IN ('prepared', 'broadcast', 'deposited');
CREATE INDEX transfers_created ON transfers(created_at_ms);
CREATE INDEX transfers_unresolved_failures ON transfers(status) WHERE status = 'failure' AND resolved_at_ms IS NULL;

CREATE TABLE withdrawals (
  id               INTEGER PRIMARY KEY,
  transfer_id      INTEGER NOT NULL UNIQUE REFERENCES transfers(id),
  request_id       TEXT    NOT NULL,
  chain            TEXT    NOT NULL,
  chain_id         INTEGER NOT NULL,
  chain_slug       TEXT    NOT NULL,
  wallet           TEXT    NOT NULL,
  owner            TEXT    NOT NULL,
  recipient        TEXT    NOT NULL,
  currency         TEXT    NOT NULL,
  amount           TEXT    NOT NULL ${uint('amount')},
  deposit_tx       TEXT    NOT NULL,
  state            TEXT    NOT NULL CHECK (state IN
                     ('attesting', 'attested', 'executing', 'processing', 'sending', 'executed', 'failed')),
  attempts         INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  nonce            TEXT,
  prepared_amount  TEXT    ${uint('prepared_amount')},
  additional_json  TEXT,
  signature        TEXT,
  job_id           TEXT,
  job_status       TEXT,
  tx_json          TEXT,
  tx_hash          TEXT,
  raw_tx           TEXT,
  tx_status        TEXT    CHECK (tx_status IN ('signed', 'sent', 'confirmed', 'reverted')),
  reverted_tx      TEXT,
  reason           TEXT,
  created_at_ms    INTEGER NOT NULL,
  updated_at_ms    INTEGER NOT NULL,
  finished_at_ms   INTEGER,
  CHECK ((finished_at_ms IS NULL) = (state NOT IN ('executed', 'failed'))),
  CHECK (state <> 'executing' OR (nonce IS NOT NULL AND signature IS NOT NULL AND prepared_amount IS NOT NULL)),
  CHECK (state <> 'processing' OR job_id IS NOT NULL),
  CHECK (state <> 'sending' OR (job_id IS NOT NULL AND tx_hash IS NOT NULL AND raw_tx IS NOT NULL AND tx_status IS NOT NULL)),
  CHECK (state <> 'failed' OR reason IS NOT NULL)
);
CREATE UNIQUE INDEX withdrawals_job ON withdrawals(job_id) WHERE job_id IS NOT NULL;
CREATE INDEX withdrawals_open ON withdrawals(state) WHERE state NOT IN ('executed', 'failed');
`,
  },
  {
    version: 6,
    name: 'transfer_ledger: per-transfer outcome (quoted vs received, realized fees per component in USD, origin gas, settle time)',
    sql: `
CREATE TABLE transfer_ledger (
  transfer_id          INTEGER PRIMARY KEY REFERENCES transfers(id),
  status               TEXT    NOT NULL CHECK (status IN ('success', 'failure', 'refund')),
  asset                TEXT    NOT NULL,
  origin_chain         TEXT    NOT NULL,
  destination_chain    TEXT    NOT NULL,
  amount_in            TEXT    NOT NULL ${uint('amount_in')},
  decimals_in          INTEGER,
  decimals_out         INTEGER,
  quoted_expected_out  TEXT    NOT NULL ${uint('quoted_expected_out')},
  quoted_min_out       TEXT    NOT NULL ${uint('quoted_min_out')},
  received_out         TEXT    ${uint('received_out')},
  received_source      TEXT    NOT NULL CHECK (received_source IN ('requests_v3_route_actual', 'order_minimum', 'none')),
  fee_execution_usd    TEXT,
  fee_swap_usd         TEXT,
  fee_platform_usd     TEXT,
  fee_app_usd          TEXT,
  fees_source          TEXT    NOT NULL CHECK (fees_source IN ('requests_v3_actual', 'quote_breakdown', 'none')),
  gas_paid             TEXT    ${uint('gas_paid')},
  gas_decimals         INTEGER,
  gas_usd              TEXT,
  total_fees_usd       TEXT    NOT NULL,
  signed_at_ms         INTEGER,
  settled_at_ms        INTEGER NOT NULL,
  settle_ms            INTEGER CHECK (settle_ms IS NULL OR settle_ms >= 0),
  recorded_at_ms       INTEGER NOT NULL,
  CHECK ((received_out IS NULL) = (received_source = 'none')),
  CHECK ((fee_execution_usd IS NULL) = (fees_source = 'none'))
);
CREATE INDEX transfer_ledger_settled ON transfer_ledger(settled_at_ms);
`,
  },
  {
    version: 7,
    name: 'route_candidates: the donors route choice quoted for a planned transfer, and why each won or lost',
    sql: `
CREATE TABLE route_candidates (
  id                 INTEGER PRIMARY KEY,
  cycle_id           INTEGER NOT NULL REFERENCES cycles(id),
  plan_id            INTEGER NOT NULL REFERENCES planned_transfers(id),
  rank               INTEGER NOT NULL CHECK (rank >= 0),
  origin_chain       TEXT    NOT NULL,
  origin_wallet      TEXT    NOT NULL,
  amount_in          TEXT    NOT NULL ${uint('amount_in')},
  quote_id           INTEGER REFERENCES quotes(id),
  fees_usd           TEXT,
  min_out            TEXT    ${uint('min_out')},
  outcome            TEXT    NOT NULL CHECK (outcome IN ('chosen', 'costlier', 'skipped_fee', 'refused_verification', 'quote_error', 'no_spare', 'not_quoted')),
  detail             TEXT    NOT NULL,
  decided_at_ms      INTEGER NOT NULL
);
CREATE INDEX route_candidates_plan ON route_candidates(plan_id);
`,
  },
  {
    version: 8,
    name: 'transfer_requests: manual transfers queued by an operator for the process that holds the run lock or the lease',
    sql: `
CREATE TABLE transfer_requests (
  id                 INTEGER PRIMARY KEY,
  from_ref           TEXT    NOT NULL,
  to_ref             TEXT    NOT NULL,
  amount             TEXT    NOT NULL,
  requested_by       TEXT    NOT NULL,
  requested_at_ms    INTEGER NOT NULL,
  state              TEXT    NOT NULL CHECK (state IN ('pending', 'taken', 'done', 'refused', 'failed', 'abandoned')),
  cycle_id           INTEGER REFERENCES cycles(id),
  outcome            TEXT,
  detail             TEXT,
  finished_at_ms     INTEGER,
  CHECK ((finished_at_ms IS NULL) = (state IN ('pending', 'taken')))
);
CREATE INDEX transfer_requests_open ON transfer_requests(state) WHERE state IN ('pending', 'taken');
`,
  },
  {
    version: 9,
    name: 'withdrawals: received_amount (what executed jobs returned so far; the rest of the deposit is still open)',
    sql: `
ALTER TABLE withdrawals ADD COLUMN received_amount TEXT NOT NULL DEFAULT '0' ${uint('received_amount')};
UPDATE withdrawals SET received_amount = COALESCE(prepared_amount, amount) WHERE state = 'executed';
`,
  },
  {
    version: 10,
    name: 'transfer_ledger: origin_failed entries (the origin gas or miner fee paid by a transfer whose deposit never landed, e.g. a mined replacement)',
    sql: `
CREATE TABLE transfer_ledger_v10 (
  transfer_id          INTEGER PRIMARY KEY REFERENCES transfers(id),
  status               TEXT    NOT NULL CHECK (status IN ('success', 'failure', 'refund', 'origin_failed')),
  asset                TEXT    NOT NULL,
  origin_chain         TEXT    NOT NULL,
  destination_chain    TEXT    NOT NULL,
  amount_in            TEXT    NOT NULL ${uint('amount_in')},
  decimals_in          INTEGER,
  decimals_out         INTEGER,
  quoted_expected_out  TEXT    NOT NULL ${uint('quoted_expected_out')},
  quoted_min_out       TEXT    NOT NULL ${uint('quoted_min_out')},
  received_out         TEXT    ${uint('received_out')},
  received_source      TEXT    NOT NULL CHECK (received_source IN ('requests_v3_route_actual', 'order_minimum', 'none')),
  fee_execution_usd    TEXT,
  fee_swap_usd         TEXT,
  fee_platform_usd     TEXT,
  fee_app_usd          TEXT,
  fees_source          TEXT    NOT NULL CHECK (fees_source IN ('requests_v3_actual', 'quote_breakdown', 'none')),
  gas_paid             TEXT    ${uint('gas_paid')},
  gas_decimals         INTEGER,
  gas_usd              TEXT,
  total_fees_usd       TEXT    NOT NULL,
  signed_at_ms         INTEGER,
  settled_at_ms        INTEGER NOT NULL,
  settle_ms            INTEGER CHECK (settle_ms IS NULL OR settle_ms >= 0),
  recorded_at_ms       INTEGER NOT NULL,
  CHECK ((received_out IS NULL) = (received_source = 'none')),
  CHECK ((fee_execution_usd IS NULL) = (fees_source = 'none'))
);
INSERT INTO transfer_ledger_v10 SELECT * FROM transfer_ledger;
DROP TABLE transfer_ledger;
ALTER TABLE transfer_ledger_v10 RENAME TO transfer_ledger;
CREATE INDEX transfer_ledger_settled ON transfer_ledger(settled_at_ms);
`,
  },
  {
    version: 11,
    name: 'wallet_pauses: wallets paused by Relay address screening (quote refused, or fill blocked) until an operator resumes them',
    sql: `
CREATE TABLE wallet_pauses (
  id                 INTEGER PRIMARY KEY,
  address            TEXT    NOT NULL,
  stage              TEXT    NOT NULL CHECK (stage IN ('quote', 'fill')),
  code               TEXT    NOT NULL,
  detail             TEXT    NOT NULL,
  transfer_id        INTEGER REFERENCES transfers(id),
  created_at_ms      INTEGER NOT NULL,
  resolved_at_ms     INTEGER,
  resolution         TEXT,
  CHECK ((resolved_at_ms IS NULL) = (resolution IS NULL))
);
CREATE INDEX wallet_pauses_open ON wallet_pauses(address) WHERE resolved_at_ms IS NULL;
`,
  },
  {
    version: 12,
    name: 'transfers: refund follow-up (refunded_amount, refund_tx_hash, refund_fail_reason, refund_checked_at_ms)',
    sql: `
ALTER TABLE transfers ADD COLUMN refunded_amount TEXT ${uint('refunded_amount')};
ALTER TABLE transfers ADD COLUMN refund_tx_hash TEXT;
ALTER TABLE transfers ADD COLUMN refund_fail_reason TEXT;
ALTER TABLE transfers ADD COLUMN refund_checked_at_ms INTEGER;
`,
  },
  {
    version: 13,
    name: 'flow_states: smoothed net flow per holding for the flow-aware strategy (one row per holding, replaced each cycle)',
    sql: `
CREATE TABLE flow_states (
  id                 INTEGER PRIMARY KEY,
  chain              TEXT    NOT NULL,
  currency           TEXT    NOT NULL,
  address            TEXT    NOT NULL,
  at_ms              INTEGER NOT NULL,
  balance            TEXT    NOT NULL ${sint('balance')},
  rate_scaled        TEXT    NOT NULL ${sint('rate_scaled')},
  samples            INTEGER NOT NULL CHECK (samples >= 0),
  UNIQUE (chain, currency, address)
);
`,
  },
  {
    version: 14,
    name: 'notifications: the delivery queue of notifications, one row per (event, sink), deduplicated by (sink, dedupe_key)',
    sql: `
CREATE TABLE notifications (
  id                 INTEGER PRIMARY KEY,
  sink               TEXT    NOT NULL,
  event              TEXT    NOT NULL,
  severity           TEXT    NOT NULL CHECK (severity IN ('info', 'warning', 'critical')),
  dedupe_key         TEXT    NOT NULL,
  summary            TEXT    NOT NULL,
  payload            TEXT    NOT NULL,
  status             TEXT    NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts           INTEGER NOT NULL CHECK (attempts >= 0),
  next_attempt_at_ms INTEGER NOT NULL,
  last_error         TEXT,
  created_at_ms      INTEGER NOT NULL,
  finished_at_ms     INTEGER,
  CHECK ((status = 'pending') = (finished_at_ms IS NULL)),
  UNIQUE (sink, dedupe_key)
);
CREATE INDEX notifications_due ON notifications(next_attempt_at_ms) WHERE status = 'pending';
`,
  },
  {
    version: 15,
    name: 'approval_requests, approval_signoffs: transfers above policy.approvals.aboveUsd awaiting sign-offs, and the signatures given',
    sql: `
CREATE TABLE approval_requests (
  id                   INTEGER PRIMARY KEY,
  cycle_id             INTEGER NOT NULL REFERENCES cycles(id),
  plan_id              INTEGER NOT NULL REFERENCES planned_transfers(id),
  quote_id             INTEGER REFERENCES quotes(id),
  asset                TEXT    NOT NULL,
  origin_chain         TEXT    NOT NULL,
  origin_wallet        TEXT    NOT NULL,
  origin_currency      TEXT    NOT NULL,
  destination_chain    TEXT    NOT NULL,
  destination_wallet   TEXT    NOT NULL,
  destination_currency TEXT    NOT NULL,
  amount_in            TEXT    NOT NULL ${uint('amount_in')},
  amount_usd           TEXT,
  max_fees_json        TEXT    NOT NULL,
  reason               TEXT    NOT NULL,
  message              TEXT    NOT NULL,
  required             INTEGER NOT NULL CHECK (required >= 1),
  status               TEXT    NOT NULL CHECK (status IN ('pending', 'approved', 'executed', 'expired', 'rejected', 'not_needed')),
  created_at_ms        INTEGER NOT NULL,
  expires_at_ms        INTEGER NOT NULL,
  closed_at_ms         INTEGER,
  closed_by            TEXT,
  close_detail         TEXT,
  transfer_id          INTEGER REFERENCES transfers(id),
  CHECK ((status IN ('pending', 'approved')) = (closed_at_ms IS NULL)),
  CHECK ((status = 'executed') = (transfer_id IS NOT NULL))
);
CREATE UNIQUE INDEX approval_requests_open_route ON approval_requests(asset, origin_chain, origin_wallet, origin_currency,
  destination_chain, destination_wallet, destination_currency) WHERE status IN ('pending', 'approved');
CREATE TABLE approval_signoffs (
  id                   INTEGER PRIMARY KEY,
  request_id           INTEGER NOT NULL REFERENCES approval_requests(id),
  approver             TEXT    NOT NULL,
  signature            TEXT    NOT NULL,
  recorded_at_ms       INTEGER NOT NULL,
  UNIQUE (request_id, approver)
);
`,
  },
  {
    version: 16,
    name: "approval_policies, approval_policy_signoffs: the signed approval policy, chained by digest, and the approvers' signatures on each change",
    sql: `
CREATE TABLE approval_policies (
  id                   INTEGER PRIMARY KEY,
  digest               TEXT    NOT NULL UNIQUE,
  previous_digest      TEXT,
  text                 TEXT    NOT NULL,
  proposed_by          TEXT    NOT NULL,
  proposed_at_ms       INTEGER  NOT NULL,
  approved_at_ms       INTEGER,
  initialized_by       TEXT,
  CHECK ((initialized_by IS NULL) = (previous_digest IS NOT NULL)),
  CHECK (initialized_by IS NULL OR approved_at_ms IS NOT NULL)
);
CREATE UNIQUE INDEX approval_policies_one_first ON approval_policies((previous_digest IS NULL)) WHERE previous_digest IS NULL;
CREATE TABLE approval_policy_signoffs (
  id                   INTEGER PRIMARY KEY,
  policy_id            INTEGER  NOT NULL REFERENCES approval_policies(id),
  approver             TEXT    NOT NULL,
  signature            TEXT    NOT NULL,
  recorded_at_ms       INTEGER  NOT NULL,
  UNIQUE (policy_id, approver)
);
`,
  },
  {
    version: 17,
    name: 'needs: known outflows of a holding (amount in base units, due time, idempotency key), held by the planner until cancelled or closed',
    sql: `
CREATE TABLE needs (
  id                   INTEGER PRIMARY KEY,
  idempotency_key      TEXT    NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 1 AND 200),
  asset                TEXT    NOT NULL,
  chain                TEXT    NOT NULL,
  wallet               TEXT    NOT NULL,
  amount               TEXT    NOT NULL ${uint('amount')} CHECK (ltrim(amount, '0') <> ''),
  due_at_ms            INTEGER NOT NULL,
  note                 TEXT,
  status               TEXT    NOT NULL CHECK (status IN ('open', 'cancelled', 'closed')),
  created_at_ms        INTEGER NOT NULL,
  created_by           TEXT    NOT NULL,
  closed_at_ms         INTEGER,
  closed_by            TEXT,
  closed_reason        TEXT,
  CHECK ((status = 'open') = (closed_at_ms IS NULL)),
  CHECK ((status = 'open') = (closed_reason IS NULL))
);
CREATE INDEX needs_open_due ON needs(due_at_ms) WHERE status = 'open';
`,
  },
  {
    version: 18,
    name: 'withdrawals: gas_paid (the network fee our mined ready transactions paid, native base units; NULL when not known)',
    sql: `
ALTER TABLE withdrawals ADD COLUMN gas_paid TEXT DEFAULT '0' ${uint('gas_paid')};
-- A withdrawal that may have had a ready transaction mined before this column: its fee is not known.
UPDATE withdrawals SET gas_paid = NULL WHERE tx_hash IS NOT NULL OR reverted_tx IS NOT NULL OR received_amount <> '0';
`,
  },
];

/** Highest version this code knows. */
export const LATEST_SCHEMA_VERSION: number = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
