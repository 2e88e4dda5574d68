/**
 * `ballast limits`: the spending limits (`policy.limits`), what the rolling windows have used of them, whether
 * the kill switch halts execution now, and the most recent refusals. Reads the config and the store, never the
 * network. Amounts are whole units with the symbol, as `history` shows them (`--json` keeps base units).
 */
import type { Command } from 'commander';
import { killSwitchPath, killSwitchVerdict } from '../../cycle/spendingGate.ts';
import { formatUsdMicros } from '@ballast/protocol/core/units.ts';
import { openExistingStore } from '../storeFile.ts';
import { listLimitHits } from '../../store/limitHits.ts';
import { readSpendingHistory } from '../../store/spendingHistory.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { formatUsd, formatWhole, table, toJson } from '../format.ts';
import { sentDecimalsOf } from '../../store/quotedUnits.ts';
import { loadCliConfig, type GlobalFlags } from '../session.ts';

/** Registers the command. */
export function registerLimits(program: Command, out: (s: string) => void): void {
  program
    .command('limits')
    .description('spending limits, their use over the rolling windows, the kill switch and recent refusals')
    .option('--db <file>', 'SQLite store to read instead of the one in the config')
    .option('--hits <n>', 'how many recent refusals to list', '10')
    .option('--json', 'machine-readable output')
    .action(async (flags: { db?: string; hits: string; json?: boolean }, cmd: Command) => {
      if (!/^[0-9]+$/.test(flags.hits)) throw new CliError(`--hits must be a non-negative integer, got "${flags.hits}"`, EXIT_USAGE);
      // A mistyped --db is reported before the config is read (the limits themselves come from the config).
      const named = flags.db === undefined ? null : await openExistingStore(flags.db, '--db');
      let config;
      try {
        config = loadCliConfig(cmd.optsWithGlobals<GlobalFlags>());
      } catch (error) {
        await named?.close();
        throw error;
      }
      const db = named ?? (await openExistingStore(config.store, 'store'));
      try {
        const history = await readSpendingHistory(db, { nowMs: Date.now() });
        const halted = killSwitchVerdict({ config });
        const report = {
          killSwitch: { engaged: halted !== null, ...(halted ?? {}), file: killSwitchPath({ config }) ?? null },
          limits: config.policy.limits ?? {},
          used: {
            notional24hBaseUnits: Object.fromEntries(
              [...history.notional24hByOrigin].map(([asset, byChain]) => [asset, Object.fromEntries(byChain)]),
            ),
            feesUsd24h: formatUsdMicros(history.feesUsd24hMicros),
            transfersLastHour: history.transfersLastHour,
          },
          recentHits: await listLimitHits(db, Number(flags.hits)),
        };
        if (flags.json) {
          out(toJson(report));
          return;
        }
        const cfg = config.policy.limits;
        // Whole units with the symbol, as history shows them: decimals from the config entry, else what the store
        // recorded of transfers sent from that holding; base units said as such when neither knows.
        const sent = await sentDecimalsOf(db, [
          ...[...history.notional24hByOrigin].flatMap(([asset, byChain]) => [...byChain.keys()].map((chain) => ({ asset, chain }))),
          ...report.recentHits.map((h) => ({ asset: h.asset, chain: h.originChain })),
        ]);
        const whole = (amount: bigint, asset: string, chain: string) =>
          formatWhole(
            amount,
            config.assets[asset]?.find((e) => e.chain === chain && e.decimals !== undefined)?.decimals ??
              sent.get(`${asset}|${chain}`) ??
              null,
            asset,
          );
        const lines = [
          halted
            ? `HALTED: ${halted.detail}`
            : 'kill switch: off' + (report.killSwitch.file ? ` (file ${report.killSwitch.file} absent)` : ''),
          `fees in 24 h: ${formatUsd(history.feesUsd24hMicros)}` +
            (cfg?.dailyFeesUsd !== undefined ? ` of ${cfg.dailyFeesUsd} USD` : ' (no budget)'),
          `transfers in 1 h: ${history.transfersLastHour}` +
            (cfg?.maxTransfersPerHour !== undefined ? ` of ${cfg.maxTransfersPerHour}` : ' (no cap)'),
          `per transfer: ${cfg?.maxTransferUsd !== undefined ? `at most ${cfg.maxTransferUsd} USD` : 'no USD cap'}`,
        ];
        const assets = new Set([...Object.keys(cfg?.dailyNotional ?? {}), ...history.notional24hByOrigin.keys()]);
        for (const asset of assets) {
          const byChain = history.notional24hByOrigin.get(asset) ?? new Map<string, bigint>();
          const spent = [...byChain].map(([chain, amount]) => `${whole(amount, asset, chain)} from ${chain}`).join(', ') || 'nothing';
          const cap = cfg?.dailyNotional?.[asset];
          lines.push(`${asset} spent in 24 h: ${spent}; cap ${cap === undefined ? 'none' : `${cap} ${asset}`}`);
        }
        out(lines.join('\n'));
        if (report.recentHits.length > 0) {
          out(
            table(
              ['when', 'asset', 'route', 'amount in', 'reason', 'detail'],
              report.recentHits.map((h) => [
                new Date(h.decidedAtMs).toISOString(),
                h.asset,
                `${h.originChain} → ${h.destinationChain}`,
                whole(h.amountIn, h.asset, h.originChain),
                h.reason,
                h.detail,
              ]),
            ),
          );
        }
      } finally {
        await db.close();
      }
    });
}
