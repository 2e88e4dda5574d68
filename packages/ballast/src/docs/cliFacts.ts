/**
 * What docs/cli.md says of each command beyond its definition: one example command line and the exit codes the
 * command can return, with when (read from each command's action and src/cli/main.ts: coded errors that reach the
 * top level exit 2 for a bad config or store, 4 for a held run lock, 1 otherwise). A test fails when a command has
 * no entry here, or an entry names no command.
 */
import { EXIT_ERROR, EXIT_LOCKED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../cli/exitCodes.ts';

/** Example and exit codes of one command. */
export interface CommandFacts {
  /** One command line (or a few, one per line) an operator would type; paths work from the repository root. */
  example: string;
  /** Exit code → when the command returns it. */
  exits: Readonly<Record<number, string>>;
}

/** What each exit code means, for every command (src/cli/exitCodes.ts). */
export const EXIT_MEANINGS: Readonly<Record<number, string>> = {
  [EXIT_OK]: 'done: the cycle completed (also when nothing needed moving), a quote verified, a record written',
  [EXIT_ERROR]:
    'error: API or chain failure, a transfer that failed or was refunded; a store busy or unavailable this time (`STORE_UNAVAILABLE`); the metrics, webhook or needs API port is taken. A later run or a restart may succeed',
  [EXIT_USAGE]:
    'bad usage, bad config, unreadable input or key file, a store that cannot be opened (`STORE_OPEN_FAILED`: its directory is missing or read-only, a parent is a file); the Relay API refused the API key (401/403: one line naming `relay.apiKey`; a daemon exits so only when its first cycle is refused, later refusals are logged every cycle). Restarting does not help: systemd stops on it (`RestartPreventExitStatus=2`)',
  [EXIT_REFUSED]:
    'a needed transfer was refused by the fee policy, by local verification or by a spending limit; a quote did not verify; a sign-off refused. A transfer awaiting approval is not a refusal: its cycle exits 0',
  [EXIT_LOCKED]:
    'the run lock is held by another live run (daemon or cron), or (`run --once` without `--force`) a daemon runs on the same SQLite store between its cycles; nothing was done. A lock left by a run whose process is gone on the same host is taken over at once',
};

const USAGE = 'bad flags or config (each problem named with its fix)';
const CONFIG_OR_STORE = 'bad flags or config, or the store cannot be opened';
const READS_STORE = { [EXIT_OK]: 'printed', [EXIT_USAGE]: `${CONFIG_OR_STORE}; a --db that does not exist` };

/** The exit codes of a cycle (`run --once`, `plan`, `transfer`, `demo`): src/cycle/runCycle.ts `exitCodeForReport`. */
const CYCLE_EXITS = {
  [EXIT_OK]: 'the cycle completed: every planned transfer done, awaiting approval, or nothing to move',
  [EXIT_ERROR]: 'an API or chain failure, a transfer that failed or was refunded',
  [EXIT_USAGE]: `${CONFIG_OR_STORE}; the Relay API refused the key`,
  [EXIT_REFUSED]: 'a needed transfer was refused by the fee policy, verification or a spending limit',
};

/** A sign-off or policy change that may be refused. */
const SIGN_OFF_EXITS = {
  [EXIT_OK]: 'recorded',
  [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown id or digest`,
  [EXIT_REFUSED]: 'refused (one line `refused: <reason>: <detail>`), nothing stored',
};

/** Example and exit codes by command path (`approvals list` for a subcommand). */
export const CLI_FACTS: Readonly<Record<string, CommandFacts>> = {
  run: {
    example: 'npx ballast --config /etc/ballast/ballast.yaml run --once --json > last-run.json',
    exits: {
      ...CYCLE_EXITS,
      [EXIT_LOCKED]: 'another run holds the lock, or a daemon runs on this store between its cycles (without --force); nothing done',
    },
  },
  daemon: {
    example: 'npx ballast --config /etc/ballast/ballast.yaml daemon --run-at-start',
    exits: {
      [EXIT_OK]: 'stopped by SIGTERM or SIGINT after finishing or parking the current step',
      [EXIT_ERROR]: 'the metrics, webhook or needs port is taken; the store is unavailable',
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; the Relay API refused the key in the first cycle`,
      [EXIT_LOCKED]: 'another run holds the lock',
    },
  },
  plan: { example: 'npx ballast --config ballast.yaml plan', exits: CYCLE_EXITS },
  transfer: {
    example: 'npx ballast transfer --from base:USDC --to arbitrum:USDC --amount 500 --dry-run',
    exits: {
      ...CYCLE_EXITS,
      [EXIT_ERROR]: `${CYCLE_EXITS[EXIT_ERROR]}; not confirmed at the terminal's question (nothing signed)`,
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; a route or amount that cannot be done (nothing recorded)`,
      [EXIT_LOCKED]: 'a daemon or another run holds the lock or lease (use --queue)',
    },
  },
  'verify-quote': {
    example:
      'npx ballast verify-quote --quote quote-check/quote.json --chains quote-check/chains.json \\\n' +
      '  --user 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --recipient 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \\\n' +
      '  --refund-to 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 --now <printed> --amount 100000000 \\\n' +
      '  --origin-currency 0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1 --destination-chain 31002 \\\n' +
      '  --destination-currency 0x2E983A1Ba5e8b38AAAeC4B440B9dDcFBf72E15d1 --min-out 99000000',
    exits: { [EXIT_OK]: 'every rule passed', [EXIT_USAGE]: 'unreadable input or bad flags', [EXIT_REFUSED]: 'a rule failed' },
  },
  'order-id': {
    example: 'npx ballast order-id --order quote-check/quote.json --chains quote-check/chains.json',
    exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: 'unreadable or malformed input' },
  },
  history: { example: 'npx ballast history --db /var/lib/ballast/ballast.db --limit 50', exits: READS_STORE },
  report: {
    example: 'npx ballast report --since 30d --csv > routes.csv',
    exits: { ...READS_STORE, [EXIT_USAGE]: `${USAGE}; a --since it cannot read` },
  },
  export: {
    example: 'npx ballast export --format koinly --since 2026-10-01 --until 2026-11-01 --out october.csv --check',
    exits: {
      [EXIT_OK]: 'written (and with --check, every row adds up)',
      [EXIT_ERROR]: 'with --check: a wallet and asset whose rows do not add up to the ledger',
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown format or period`,
    },
  },
  limits: { example: 'npx ballast limits --hits 20', exits: READS_STORE },
  'approvals list': { example: 'npx ballast approvals list --all', exits: READS_STORE },
  'approvals show': {
    example: 'npx ballast approvals show 7 > request-7.json',
    exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown id` },
  },
  approve: { example: 'npx ballast approve 7 --key-file ~/alice.key', exits: SIGN_OFF_EXITS },
  reject: { example: 'npx ballast reject 7 --reason "not this week" --approver carol', exits: SIGN_OFF_EXITS },
  'policy status': { example: 'npx ballast policy status', exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: CONFIG_OR_STORE } },
  'policy init': { example: 'npx ballast policy init --by alice', exits: SIGN_OFF_EXITS },
  'policy propose': { example: 'npx ballast policy propose --by alice', exits: SIGN_OFF_EXITS },
  'policy show': {
    example: 'npx ballast policy show 0x<digest> > policy.txt',
    exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown digest` },
  },
  'policy approve': { example: 'npx ballast policy approve 0x<digest> --key-file ~/bob.key', exits: SIGN_OFF_EXITS },
  'needs add': {
    example: 'npx ballast needs add --asset USDC --chain base --amount 50000 --due 2026-12-06T09:00:00Z --key payroll-2026-12',
    exits: {
      [EXIT_OK]: 'recorded (or the same need was already recorded under this key)',
      [EXIT_ERROR]: "the holding's token decimals cannot be learnt now",
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; a flag that cannot be used (named)`,
      [EXIT_REFUSED]: 'the key is recorded with other content',
    },
  },
  'needs list': { example: 'npx ballast needs list --all --json', exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: CONFIG_OR_STORE } },
  'needs cancel': {
    example: 'npx ballast needs cancel 12 --by alice',
    exits: { [EXIT_OK]: 'cancelled', [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown id`, [EXIT_REFUSED]: 'the need is no longer open' },
  },
  allowances: {
    example: 'npx ballast allowances --fail-on-risk',
    exits: {
      [EXIT_OK]: 'listed',
      [EXIT_ERROR]: 'a chain could not be read; with --fail-on-risk, an allowance to anything but the depository',
      [EXIT_USAGE]: USAGE,
    },
  },
  'check-config': {
    example: 'npx ballast check-config --config /etc/ballast/ballast.yaml',
    exits: { [EXIT_OK]: 'valid (warnings listed)', [EXIT_USAGE]: 'invalid: one line per problem, naming the field and the fix' },
  },
  schema: {
    example: 'npx ballast schema --out /etc/ballast    # beside /etc/ballast/ballast.yaml, where its $schema hint points',
    exits: { [EXIT_OK]: 'printed or written', [EXIT_USAGE]: '--out is not a writable directory' },
  },
  'api-check': {
    example: 'npx ballast api-check --save api-check/',
    exits: {
      [EXIT_OK]: 'every endpoint is usable (a route your own policy refuses is a `warning:` line naming the config keys, not a failure)',
      [EXIT_ERROR]: 'an endpoint is not usable (unreachable, key refused, schema or verification failure)',
      [EXIT_USAGE]: USAGE,
    },
  },
  resume: {
    example: 'npx ballast resume --transfer 4 --note "deposit withdrawn, see ticket 311"',
    exits: {
      [EXIT_OK]: 'recorded: the route is planned again from the next cycle',
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; bad flags, an unknown wallet`,
    },
  },
  withdraw: {
    example: 'npx ballast withdraw --max-wait 600',
    exits: {
      [EXIT_OK]: 'every deposit looked at was withdrawn, or none was withdrawable',
      [EXIT_ERROR]: 'a withdrawal failed or is unfinished; with --request, not withdrawable',
      [EXIT_USAGE]: `${CONFIG_OR_STORE}; an unknown request id; monitor-only mode`,
      [EXIT_REFUSED]: "a withdrawal was refused by Ballast's checks (owner VM, record mismatch, ready transaction)",
      [EXIT_LOCKED]: 'another run holds the lock or lease',
    },
  },
  sandbox: {
    example: 'npx ballast sandbox --write-fixtures quote-check',
    exits: { [EXIT_OK]: 'stopped (Ctrl-C), or fixtures written', [EXIT_ERROR]: 'a node failed to start', [EXIT_USAGE]: USAGE },
  },
  demo: { example: 'npm run demo    # or: npx ballast demo --signer kms-local', exits: CYCLE_EXITS },
  migrate: {
    example: 'npx ballast migrate --store postgres://ballast@db:5432/ballast',
    exits: { [EXIT_OK]: 'migrated (or already current)', [EXIT_ERROR]: 'the database is unavailable', [EXIT_USAGE]: CONFIG_OR_STORE },
  },
  'store copy': {
    example: 'npx ballast store copy --from ./ballast.db --to postgres://ballast@db:5432/ballast',
    exits: {
      [EXIT_OK]: 'copied; every count and sum agrees',
      [EXIT_ERROR]: 'a difference (everything rolled back), or the target already holds rows',
      [EXIT_USAGE]: 'not a PostgreSQL URL, or no such SQLite file',
    },
  },
  simulate: {
    example:
      'npx ballast --config docs/examples/replay-ballast.yaml simulate --traffic docs/examples/payments.csv --asset USDC\n' +
      'npx ballast simulate --scenario packages/ballast/scenarios/fee-spike.yaml --out report/',
    exits: {
      [EXIT_OK]: 'simulated; a scenario expect block is met',
      [EXIT_ERROR]: "a scenario's expect block is not met",
      [EXIT_USAGE]: 'an unreadable scenario, traffic or config; conflicting flags',
    },
  },
  completion: {
    example: 'npx ballast completion bash > /etc/bash_completion.d/ballast    # or: source <(npx ballast completion bash)',
    exits: { [EXIT_OK]: 'printed', [EXIT_USAGE]: 'a shell other than bash or zsh' },
  },
};
