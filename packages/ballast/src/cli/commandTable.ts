/**
 * The subcommands of `ballast`, each loaded on demand: a command's module (and through it yaml, viem,
 * prom-client, the sandbox...) is imported only when that command runs, so `ballast --version` and
 * `ballast history --help` start without loading the rest. `ballast`, `ballast --help` and unknown commands
 * load them all, to list them.
 */
import type { Command } from 'commander';

/** Adds one subcommand to the program; `out` receives command output (stdout in production). */
export type RegisterCommand = (program: Command, out: (s: string) => void) => void;

/**
 * Subcommand name → loader of its `register*` function, in the order `ballast --help` lists them. Literal
 * import paths, so the compiled build rewrites them to `.js` like the static imports.
 */
export const COMMANDS: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  run: async () => (await import('./commands/run.ts')).registerRun,
  daemon: async () => (await import('./commands/daemon.ts')).registerDaemon,
  plan: async () => (await import('./commands/plan.ts')).registerPlan,
  transfer: async () => (await import('./commands/transfer.ts')).registerTransfer,
  'verify-quote': async () => (await import('./commands/verifyQuote.ts')).registerVerifyQuote,
  'order-id': async () => (await import('./commands/orderId.ts')).registerOrderId,
  history: async () => (await import('./commands/history.ts')).registerHistory,
  report: async () => (await import('./commands/report.ts')).registerReport,
  export: async () => (await import('./commands/export.ts')).registerExport,
  limits: async () => (await import('./commands/limits.ts')).registerLimits,
  approvals: async () => (await import('./commands/approvals.ts')).registerApprovals,
  approve: async () => (await import('./commands/approvals.ts')).registerApprove,
  reject: async () => (await import('./commands/approvals.ts')).registerReject,
  policy: async () => (await import('./commands/policy.ts')).registerPolicy,
  needs: async () => (await import('./commands/needs.ts')).registerNeeds,
  allowances: async () => (await import('./commands/allowances.ts')).registerAllowances,
  'check-config': async () => (await import('./commands/checkConfig.ts')).registerCheckConfig,
  schema: async () => (await import('./commands/schema.ts')).registerSchema,
  'api-check': async () => (await import('./commands/apiCheck.ts')).registerApiCheck,
  resume: async () => (await import('./commands/resume.ts')).registerResume,
  withdraw: async () => (await import('./commands/withdraw.ts')).registerWithdraw,
  sandbox: async () => (await import('./commands/sandbox.ts')).registerSandbox,
  demo: async () => (await import('./commands/demo.ts')).registerDemo,
  migrate: async () => (await import('./commands/migrate.ts')).registerMigrate,
  store: async () => (await import('./commands/store.ts')).registerStore,
  simulate: async () => (await import('./commands/simulate.ts')).registerSimulate,
  completion: async () => (await import('./commands/completion.ts')).registerCompletion,
};

/** Every subcommand name, in help order. */
export const COMMAND_NAMES: readonly string[] = Object.keys(COMMANDS);

/** Global options that take a value (they may precede the subcommand). */
const VALUE_OPTIONS = new Set(['-c', '--config', '--log-level']);

/**
 * Decides which subcommand modules a command line needs.
 *
 * Reads the arguments after `node <script>` the way commander does for the program's own options: the global
 * options `-c/--config <file>` and `--log-level <level>` (also `--config=<file>`, `-c<file>`) are skipped, and
 * the first other word is the subcommand. `help <name>` needs that command only.
 *
 * @param argv the full `process.argv` (`[node, script, ...args]`)
 * @returns the names to load: one name for a known subcommand, none for `-V/--version` given before any
 *   subcommand, every name otherwise (no subcommand, `--help`, an unknown command or option: commander then
 *   lists them all or suggests the closest)
 */
export function commandsFor(argv: readonly string[]): string[] {
  const args = argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!; // i < length
    if (VALUE_OPTIONS.has(arg)) {
      i++; // its value
      continue;
    }
    if (arg.startsWith('--config=') || arg.startsWith('--log-level=') || (arg.startsWith('-c') && !arg.startsWith('--'))) continue;
    if (arg === '-V' || arg === '--version') return [];
    if (arg.startsWith('-')) return [...COMMAND_NAMES];
    if (arg === 'help') {
      const target = args[i + 1];
      return target !== undefined && Object.hasOwn(COMMANDS, target) ? [target] : [...COMMAND_NAMES];
    }
    return Object.hasOwn(COMMANDS, arg) ? [arg] : [...COMMAND_NAMES];
  }
  return [...COMMAND_NAMES];
}
