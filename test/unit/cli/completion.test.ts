/**
 * `ballast completion bash|zsh` (src/cli/commands/completion.ts): the script the command prints is sourced by a real
 * bash, whose completion function is called as bash calls it (COMP_WORDS, COMP_CWORD) and answers in COMPREPLY:
 * commands, nested subcommands, a command's options with the global ones, nothing for an option's value; the
 * commands it offers are exactly the registered ones. An unknown shell exits 2.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES } from '../../../packages/ballast/src/cli/commandTable.ts';
import { CliError } from '../../../packages/ballast/src/cli/exitCodes.ts';
import { buildProgram } from '../../../packages/ballast/src/cli/main.ts';

/** The script as `ballast completion <shell>` prints it (the program holds only that command, as in production). */
async function script(shell: string): Promise<string> {
  let text = '';
  const program = await buildProgram((s) => (text += `${s}\n`), ['completion']);
  await program.parseAsync(['node', 'ballast', 'completion', shell]);
  return text;
}

/** COMPREPLY after sourcing `bash` and completing the last of `words` (the word being typed, maybe empty). */
function complete(bashScript: string, words: string[]): string[] {
  const program = `${bashScript}
COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); _ballast
printf '%s\\n' "\${COMPREPLY[@]}"
complete -p ballast >&2`;
  const r = spawnSync('bash', ['-c', program, 'bash', ...words], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  expect(r.stderr.trim()).toBe('complete -o default -F _ballast ballast');
  return r.stdout.split('\n').filter((l) => l !== '');
}

describe('ballast completion bash', () => {
  it('completes commands, nested subcommands and options the way bash calls it', async () => {
    const bash = await script('bash');
    expect(complete(bash, ['ballast', 'pl'])).toEqual(['plan']);
    expect(complete(bash, ['ballast', '--config', 'x.yaml', 'hist'])).toEqual(['history']); // skips an option's value
    expect(complete(bash, ['ballast', 'history', '--js'])).toEqual(['--json']);
    expect(complete(bash, ['ballast', 'run', '--con'])).toEqual(['--config']); // a global option after the command
    expect(complete(bash, ['ballast', 'approvals', 'l'])).toEqual(['list']);
    expect(complete(bash, ['ballast', 'approvals', 'list', '--'])).toEqual([
      '--all',
      '--json',
      '--help',
      '--version',
      '--config',
      '--log-level',
    ]);
    expect(complete(bash, ['ballast', 'report', '--since', ''])).toEqual([]); // a value: the shell's file completion
    expect(complete(bash, ['ballast', 'completion', ''])).toEqual([]);
  });

  it('offers exactly the registered commands', async () => {
    const offered = complete(await script('bash'), ['ballast', '']);
    expect(offered.sort()).toEqual([...COMMAND_NAMES, 'help'].sort());
  });
});

describe('ballast completion zsh', () => {
  it('runs the same completion through bashcompinit, under its own function names', async () => {
    const [zsh, bash] = [await script('zsh'), await script('bash')];
    expect(zsh).toContain('autoload -U +X bashcompinit && bashcompinit\n');
    expect(zsh).toContain(bash.replace(/_ballast/g, '_ballast_bash').trimEnd());
    expect(zsh.trimEnd().split('\n').at(-1)).toBe('complete -o default -F _ballast_bash ballast');
  });

  it('refuses another shell with exit 2', async () => {
    const error = await script('fish').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toBe('completion: unknown shell "fish"; use one of bash, zsh');
  });
});
