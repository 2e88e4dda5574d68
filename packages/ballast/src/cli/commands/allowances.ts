/**
 * `ballast allowances`: the treasury's non-zero ERC-20 allowances of configured tokens to every contract GET
 * /chains names, so an operator can see and revoke leftovers. An allowance to anything but the depository is
 * flagged: routers and approval proxies execute calls for anyone, so whatever they may spend, anyone may.
 * Reads only; signs nothing; takes no lock. Allowances are whole units with the asset symbol (`--json`: base units).
 */
import type { Command } from 'commander';
import { listAllowances, type AllowanceRow } from '../../audit/allowances.ts';
import { CliError, EXIT_ERROR } from '../exitCodes.ts';
import { formatWhole, table, toJson } from '../format.ts';
import { decimalsFromChains } from '../../cycle/resolveTargets.ts';
import { openBallast } from '../openBallast.ts';
import type { GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerAllowances(program: Command, out: (s: string) => void): void {
  program
    .command('allowances')
    .description("list the treasury's non-zero token allowances to every contract GET /chains names (routers flagged)")
    .option('--all', 'also list zero allowances')
    .option('--fail-on-risk', 'exit 1 when an allowance to anything but the depository is found (for cron checks)')
    .option('--json', 'machine-readable output')
    .action(async (flags: { all?: boolean; failOnRisk?: boolean; json?: boolean }, cmd: Command) => {
      const { ballast } = await openBallast(cmd.optsWithGlobals<GlobalFlags>());
      try {
        const { chains } = await ballast.relay.getChains();
        const rows = await listAllowances(ballast.ctx, chains);
        const shown = rows.filter((r) => flags.all || r.allowance !== 0n);
        // Whole units with the symbol (base units stay in --json): decimals from the config entry, else GET /chains.
        const decimalsOf = (r: AllowanceRow): number | null =>
          ballast.ctx.config.assets[r.asset]?.find((e) => e.chain === r.chain && e.decimals !== undefined)?.decimals ??
          decimalsFromChains(chains, r.chainId, r.token);
        out(flags.json ? toJson(shown) : render(shown, decimalsOf));
        const failed = rows.filter((r) => r.allowance === null);
        if (failed.length > 0) {
          throw new CliError(
            `${failed.length} allowance read(s) failed, e.g. ${failed[0]!.chain} ${failed[0]!.spenderName}: ${failed[0]!.error}`,
            EXIT_ERROR,
          );
        }
        if (flags.failOnRisk && rows.some((r) => r.risky && r.allowance !== null && r.allowance > 0n)) process.exitCode = EXIT_ERROR;
      } finally {
        await ballast.close();
      }
    });
}

/** At or above this an allowance is shown as unlimited (approve(spender, 2^256 - 1) and what is left of it). */
const UNLIMITED = 2n ** 255n;

/** An allowance for people: `1500 USDC`, `unlimited (2^256 - 1 base units)`, or base units when decimals are unknown. */
export function allowanceText(amount: bigint, decimals: number | null, symbol: string): string {
  if (amount >= UNLIMITED) return `unlimited (${amount === 2n ** 256n - 1n ? '2^256 - 1' : amount.toString()} base units)`;
  return formatWhole(amount, decimals, symbol);
}

function render(rows: AllowanceRow[], decimalsOf: (r: AllowanceRow) => number | null): string {
  if (rows.length === 0) return 'no non-zero allowances to contracts GET /chains names';
  const risky = rows.filter((r) => r.risky && r.allowance !== null && r.allowance > 0n).length;
  const body = table(
    ['chain', 'asset', 'wallet', 'spender', 'address', 'allowance', 'risk'],
    rows.map((r) => [
      r.chain,
      r.asset,
      r.wallet,
      r.spenderName,
      r.spender,
      r.allowance === null ? `read failed: ${r.error ?? ''}` : allowanceText(r.allowance, decimalsOf(r), r.asset),
      r.risky && r.allowance !== 0n ? 'anyone may spend: revoke (approve 0)' : '—',
    ]),
  );
  return risky > 0 ? `${body}\n${risky} allowance(s) to contracts other than the depository; revoke them with approve(spender, 0)` : body;
}
