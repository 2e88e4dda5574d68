/**
 * `ballast demo` and `ballast sandbox` load the @ballast/sandbox package by a dynamic import: when a production
 * install left it out they stop with one line naming the package and how to get it (exit 2); any other failure
 * to load it is not disguised as a missing package.
 */
import { describe, expect, it } from 'vitest';
import { CliError, EXIT_USAGE } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { loadSandbox, type StartSandbox } from '../../../packages/ballast/src/cli/sandboxHandle.ts';

/** The error Node's ESM loader throws for a package that is not installed. */
function notFound(specifier: string): Error {
  return Object.assign(new Error(`Cannot find package '${specifier}' imported from /opt/ballast/dist/cli/commands/demo.js`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
}

describe('loadSandbox', () => {
  it('returns the package entry point when it loads', async () => {
    const startSandbox: StartSandbox = () => Promise.reject(new Error('not started in this test'));
    await expect(loadSandbox('demo', () => Promise.resolve({ startSandbox }))).resolves.toBe(startSandbox);
  });

  it('a missing @ballast/sandbox: CliError, exit 2, one line naming the command, the package and the fix', async () => {
    const err = await loadSandbox('demo', () => Promise.reject(notFound('@ballast/sandbox'))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_USAGE);
    expect((err as CliError).message).toBe(
      'demo needs the @ballast/sandbox package: run npm install from a checkout (a production install omits it)',
    );
    const other = await loadSandbox('sandbox', () => Promise.reject(notFound('@ballast/sandbox'))).catch((e: unknown) => e);
    expect((other as CliError).message).toMatch(/^sandbox needs the @ballast\/sandbox package/);
  });

  it('any other load failure (a dependency of the sandbox missing, a syntax error) is rethrown as it is', async () => {
    const missingDep = notFound('solc');
    await expect(loadSandbox('demo', () => Promise.reject(missingDep))).rejects.toBe(missingDep);
    const broken = new SyntaxError('Unexpected token');
    await expect(loadSandbox('demo', () => Promise.reject(broken))).rejects.toBe(broken);
  });
});
