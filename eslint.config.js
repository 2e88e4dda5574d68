/**
 * ESLint flat config (ESLint 9, typescript-eslint 8), run by `npm run lint` and by `npm test`.
 *
 * Two kinds of rules:
 * - type-aware rules on every TypeScript file (src/, test/, bench/, deploy/): a Promise is awaited, returned,
 *   handled or marked `void` (a dropped store write runs detached, outside its transaction); no Promise where a
 *   plain value or a void callback is expected; a `switch` over a union names every member; type-only imports
 *   say so.
 * - layer boundaries on src/ and the workspace packages (docs/design.md, README "How one cycle works"), as
 *   `no-restricted-imports` and `no-restricted-syntax` per top-level folder of src/, packages/protocol/src/ and
 *   packages/sandbox/src/ (the `sandbox` folder):
 *   - chain clients, signers and Esplora calls only under src/chains/ (and the sandbox and src/sim/, which play the
 *     chains);
 *   - the cycle and the executor reach chains only through src/chains/adapter.ts;
 *   - database drivers and SQL only under src/store/ (and src/ha/ may hold a PostgreSQL pool);
 *   - the pure core (planner, fee policy, verification, protocol encodings) imports no I/O;
 *   - the product does not import the sandbox (@ballast/sandbox), except the two CLI commands that start it
 *     (`ballast demo`, `ballast sandbox`), and those only by a dynamic `import()` (a production install omits it);
 *   - the workspace packages import nothing of the product: @ballast/protocol stands alone, @ballast/sandbox
 *     imports only @ballast/protocol, and not its Relay API schemas (the sandbox keeps its own reading).
 *
 * test/unit/architecture/lintRules.test.ts plants a violation of each kind and checks it is reported.
 */
import { readdirSync } from 'node:fs';
import tseslint from 'typescript-eslint';

/** Top-level folders of src/, read at each run so that a new folder gets the rules too. */
const SRC_DIRS = readdirSync(new URL('./packages/ballast/src/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

/** Folders whose code runs with no I/O: pure functions of their inputs. */
const PURE_CORE = ['planner', 'policy', 'verify', 'protocol', 'approvals', 'accounting'];

/** Folders of the @ballast/protocol package (packages/protocol/src/): protocol encodings, units, error base, API schemas. */
const PROTOCOL_DIRS = ['core', 'protocol', 'relay'];

/** CLI commands that start the sandbox (`ballast demo`, `ballast sandbox`): they load @ballast/sandbox by a dynamic import. */
const SANDBOX_CLI_FILES = ['packages/ballast/src/cli/commands/demo.ts', 'packages/ballast/src/cli/commands/sandbox.ts'];

const SANDBOX_MESSAGE =
  'The product does not depend on the sandbox (a test double of the chains and the Relay API, package @ballast/sandbox); only `ballast demo` and `ballast sandbox` load it, by a dynamic import.';
/** A dynamic import of the sandbox package. */
const sandboxImportSyntax = { selector: 'ImportExpression[source.value=/^@ballast\\/sandbox(\\/|$)/]', message: SANDBOX_MESSAGE };
/** Relative imports leaving a workspace package's src/ for the product or another package. */
const leavePackage = {
  regex: '^(\\.\\./)+(src|packages|protocol|sandbox|ballast|test)/',
  message: 'A workspace package imports only its own files and its dependencies (@ballast/protocol), never the product.',
};

const CHAINS_ONLY =
  'Chain clients and signers live only under src/chains/<vm>/ (docs/design.md): reach the chain through the ChainAdapter of src/chains/adapter.ts, or move this code into the adapter.';
const STORE_ONLY =
  'Database access lives in src/store/: call a store function (or add one there) instead of opening a database or issuing SQL here.';
const PURE_ONLY =
  'The planner, fee policy, verification and protocol encodings are pure (no I/O): pass the data in from the cycle instead of reading it here.';

/** Value imports allowed only under src/chains/ and the sandbox (type-only imports are fine everywhere). */
const chainImports = [
  {
    name: 'viem',
    importNames: [
      'createPublicClient',
      'createWalletClient',
      'createClient',
      'createTestClient',
      'http',
      'webSocket',
      'fallback',
      'custom',
    ],
    allowTypeImports: true,
    message: CHAINS_ONLY,
  },
  { name: 'viem/accounts', allowTypeImports: true, message: CHAINS_ONLY },
  { name: '@solana/web3.js', importNames: ['Connection', 'Keypair'], allowTypeImports: true, message: CHAINS_ONLY },
  { name: 'ecpair', allowTypeImports: true, message: CHAINS_ONLY },
];

/** PSBT or raw-key signing, only under src/chains/ and the sandbox. */
const signingSyntax = {
  selector: 'CallExpression[callee.property.name=/^(signInput|signAllInputs|signInputAsync|signAllInputsAsync|signSchnorr)$/]',
  message: CHAINS_ONLY,
};

/** Direct HTTP calls, only where HTTP is the module's job (Relay API client, metrics push, notification sinks) or under src/chains/. */
const fetchSyntax = {
  selector: "CallExpression[callee.name='fetch']",
  message: `${CHAINS_ONLY} (HTTP to the Relay API belongs in src/relay/.)`,
};

const SQL_START = '/^\\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|DROP|ALTER|PRAGMA|BEGIN)\\s/';
/** Statement preparation, SQL text given to a database, the raw better-sqlite3 handle of a SqliteStoreDb. */
const sqlSyntax = [
  { selector: "CallExpression[callee.property.name='prepare'][arguments.0.type=/^(Literal|TemplateLiteral)$/]", message: STORE_ONLY },
  { selector: `CallExpression[callee.property.name=/^(all|get|run|exec|query)$/][arguments.0.value=${SQL_START}]`, message: STORE_ONLY },
  {
    selector: `CallExpression[callee.property.name=/^(all|get|run|exec|query)$/][arguments.0.quasis.0.value.raw=${SQL_START}]`,
    message: STORE_ONLY,
  },
  {
    selector:
      "CallExpression[callee.object.property.name='sqlite'][callee.property.name=/^(prepare|exec|pragma|transaction|backup|function)$/]",
    message: STORE_ONLY,
  },
];

/** The client's reading of the Relay API, which the sandbox must not share (it keeps its own in src/api/wire/). */
const CLIENT_RELAY_SCHEMAS = ['@ballast/protocol/relay/schemas.ts', '@ballast/protocol/relay/webhookSchemas.ts'];
const OWN_WIRE_SCHEMAS =
  'The sandbox reads the Relay API independently of the client: use its own wire schemas and types (packages/sandbox/src/api/wire/), so a client misreading is not reproduced by the test double.';

/** Node built-ins and packages that do I/O, refused in the pure core. */
const IO_PACKAGES = [
  'pg',
  'better-sqlite3',
  'pino',
  'prom-client',
  'ws',
  'node-cron',
  'litesvm',
  'p-limit',
  'fs',
  'fs/promises',
  'http',
  'https',
  'net',
  'child_process',
  'os',
  'dns',
  'worker_threads',
];

/**
 * The `@typescript-eslint/no-restricted-imports` and `no-restricted-syntax` options for files in `src/<dir>/`.
 * (A flat-config rule setting replaces an earlier one for the same file, so each folder gets all its
 * restrictions in one setting.)
 */
function boundaries(dir, { sandboxAllowed = false, inPackage = false } = {}) {
  const paths = [];
  const patterns = [];
  const syntax = [];
  // src/sim/ plays the chains and the solver of `ballast simulate` in memory: it signs as the solver does.
  const chainSide = dir === 'chains' || dir === 'sandbox' || dir === 'sim';
  if (!chainSide) {
    paths.push(...chainImports);
    syntax.push(signingSyntax);
    if (dir !== 'relay' && dir !== 'metrics' && dir !== 'notify' && dir !== 'validators') syntax.push(fetchSyntax);
  }
  if (dir !== 'store' && dir !== 'sandbox') {
    paths.push({ name: 'better-sqlite3', allowTypeImports: true, message: STORE_ONLY });
    if (dir !== 'ha') paths.push({ name: 'pg', allowTypeImports: true, message: STORE_ONLY });
    syntax.push(...sqlSyntax);
  }
  if (dir !== 'sandbox') {
    patterns.push({ regex: '(^|/)sandbox(/|$)', message: SANDBOX_MESSAGE });
    if (!sandboxAllowed) syntax.push(sandboxImportSyntax);
  }
  if (dir === 'cycle' || dir === 'executor') {
    patterns.push({
      regex: '(^|/)chains/(evm|svm|bvm)/',
      allowTypeImports: false,
      message: 'The cycle and the executor reach chains only through the ChainAdapter interface (src/chains/adapter.ts).',
    });
  }
  if (PURE_CORE.includes(dir)) {
    for (const name of IO_PACKAGES) if (!paths.some((p) => p.name === name && !p.importNames)) paths.push({ name, message: PURE_ONLY });
    patterns.push({ regex: '^node:', message: PURE_ONLY });
    patterns.push({
      regex: '(^|/)(store|cli|app|cycle|executor|metrics|log|webhooks|withdraw|notify|ha|chains/(evm|svm|bvm))/',
      allowTypeImports: true,
      message: PURE_ONLY,
    });
    patterns.push({
      regex: '(^|/)relay/(?!schemas\\.ts$|withdrawalSchemas\\.ts$)',
      allowTypeImports: true,
      message: `${PURE_ONLY} (Only the response schemas of src/relay/ are shared.)`,
    });
  }
  if (inPackage) patterns.push(leavePackage);
  if (dir === 'sandbox' && inPackage) {
    for (const name of CLIENT_RELAY_SCHEMAS) paths.push({ name, message: OWN_WIRE_SCHEMAS });
  }
  return {
    '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }],
    'no-restricted-syntax': ['error', ...syntax],
  };
}

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '.dist-build-*/',
      '.dist-old-*/',
      'packages/*/dist/',
      'packages/*/.dist-build-*/',
      'packages/*/.dist-old-*/',
    ],
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    // Stale disable comments for rules this config does not enable (no-explicit-any) are left alone.
    linterOptions: { reportUnusedDisableDirectives: 'off' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
    },
  },
  { files: ['packages/ballast/src/*.ts'], rules: boundaries('', { inPackage: true }) },
  ...SRC_DIRS.map((dir) => ({ files: [`packages/ballast/src/${dir}/**/*.ts`], rules: boundaries(dir, { inPackage: true }) })),
  { files: SANDBOX_CLI_FILES, rules: boundaries('cli', { sandboxAllowed: true, inPackage: true }) },
  ...PROTOCOL_DIRS.map((dir) => ({
    files: [`packages/protocol/src/${dir}/**/*.ts`],
    rules: boundaries(dir === 'core' || dir === 'protocol' ? 'protocol' : dir, { inPackage: true }),
  })),
  { files: ['packages/sandbox/src/**/*.ts'], rules: boundaries('sandbox', { inPackage: true }) },
);
