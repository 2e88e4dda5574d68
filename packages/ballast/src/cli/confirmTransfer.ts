/**
 * The confirmation `ballast transfer` asks for before it moves money: on a terminal (stdin a TTY) the operator
 * sees what will move — origin, destination, amount with the symbol, the guaranteed output and the fees quoted
 * now — and answers y or n; `--yes` skips the question; without a terminal (cron, scripts, CI) nothing is asked and
 * the transfer goes ahead as before. A dry run and a queued request's wait ask nothing of their own.
 */
import { createInterface } from 'node:readline/promises';
import type { CycleReport } from '../cycle/runCycle.ts';
import { sumPayments } from '../cycle/processTransfer.ts';
import { formatAmount, formatUsd, roundUsd } from './format.ts';

/** What decides whether to ask. */
export interface ConfirmationInput {
  /** `--yes` was given. */
  yes: boolean;
  /** `--dry-run`: nothing is signed, so nothing to confirm. */
  dryRun: boolean;
  /** Whether stdin is a terminal (`process.stdin.isTTY === true`). */
  stdinIsTty: boolean;
}

/**
 * Whether `ballast transfer` asks before it moves money: only on a terminal, never with `--yes` or `--dry-run`.
 *
 * @returns true to ask; false to go ahead without a question
 */
export function shouldConfirm(input: ConfirmationInput): boolean {
  return input.stdinIsTty && !input.yes && !input.dryRun;
}

/** The answers that mean yes (case-insensitive, surrounding spaces ignored); anything else, or none, means no. */
export function isYes(answer: string | null): boolean {
  return answer !== null && /^(y|yes)$/i.test(answer.trim());
}

/**
 * The lines shown before the question, from a dry run of the same transfer (one attempt, `quoted`):
 *
 * ```
 * about to move 500 USDC from alpha (treasury) to beta (treasury)
 *   guaranteed out: at least 499.1 USDC
 *   fees quoted now: 1.10 USD (execution 0.50, swap 0.60, platform 0, app 0); it is quoted again when it runs, under the same fee policy
 * ```
 *
 * @param preview the dry run's report
 * @returns the lines, or null when the dry run has no quoted attempt to show
 */
export function confirmationLines(preview: CycleReport): string[] | null {
  const a = preview.attempts[0];
  if (!a || a.outcome !== 'quoted') return null;
  const p = a.planned;
  const payments = a.quote.protocol?.v2?.orderData.output.payments;
  const symbolOut = p.gasTopUp ? p.to.asset : p.asset;
  const lines = [
    `about to move ${formatAmount(p.amountIn, p.from.decimals)} ${p.asset} from ${p.from.chain} (${p.from.wallet}) to ${p.to.chain} (${p.to.wallet})`,
  ];
  if (payments)
    lines.push(`  guaranteed out: at least ${formatAmount(sumPayments(payments, 'minimumAmount'), p.to.decimals)} ${symbolOut}`);
  const b = a.fee.breakdown;
  const parts = Object.entries(b.components).map(([k, v]) => `${k} ${roundUsd(v)}`);
  lines.push(
    `  fees quoted now: ${formatUsd(b.totalMicros)} (${parts.join(', ')}); it is quoted again when it runs, under the same fee policy`,
  );
  return lines;
}

/** The question, on the same line as the answer. */
export const CONFIRM_QUESTION = 'move it? [y/N] ';

/**
 * Asks `question` on `output` (stderr: stdout keeps the command's output) and reads one line from stdin.
 *
 * @returns the answer, or null when stdin ended first (Ctrl-D)
 */
export async function askLine(question: string, output: NodeJS.WritableStream = process.stderr): Promise<string | null> {
  const rl = createInterface({ input: process.stdin, output });
  try {
    const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
    return await Promise.race([rl.question(question), closed]);
  } finally {
    rl.close();
  }
}
