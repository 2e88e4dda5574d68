/**
 * Constructors for {@link RuleResult}: a pass, a failure listing every problem found, or a skip because a
 * prerequisite rule failed (detail "skipped: <prerequisite> failed").
 */
import type { RuleResult, VerifyRuleId } from './types.ts';

/** A passing rule with a human detail of what was checked. */
export function pass(rule: VerifyRuleId, detail: string): RuleResult {
  return { rule, ok: true, detail };
}

/** A failing rule; `problems` are joined with "; " (each names the field, expected and actual). */
export function fail(rule: VerifyRuleId, problems: string | readonly string[]): RuleResult {
  return { rule, ok: false, detail: typeof problems === 'string' ? problems : problems.join('; ') };
}

/** A rule that could not run because `prerequisite` failed; counts as a failure. */
export function skipped(rule: VerifyRuleId, prerequisite: VerifyRuleId): RuleResult {
  return { rule, ok: false, detail: `skipped: ${prerequisite} failed` };
}

/** `fail` when `problems` is non-empty, else `pass` with `okDetail`. */
export function outcome(rule: VerifyRuleId, problems: readonly string[], okDetail: string): RuleResult {
  return problems.length > 0 ? fail(rule, problems) : pass(rule, okDetail);
}
