/**
 * `ballast api-check` keeps two questions apart: does the endpoint work (reachable, key accepted, a body that parses,
 * a quote that verifies), and would the operator's own policy take the quote it gave. This file answers the second
 * for a quote that verified: the fee policy a cycle applies first (src/cycle/checkQuote.ts `priceQuote`: the caps of
 * `policy.maxFees`, or of the route's `policy.routes[i].maxFees`), then the guaranteed-output floor the caps and
 * `policy.slippageBps` set (src/cycle/expectations.ts `guaranteedOutputFloor`, the floor of verification's
 * `min-output` rule). A refusal by a cap names the config keys to change; a quote that lacks what the caps need
 * (`origin_cost_unknown`: e.g. a /quote/v3 quote, which has no `fees.gas`, when GET /currencies/token/price could
 * not price the origin's native currency either) is said apart, as no setting changes it. Reads nothing but its
 * arguments.
 */
import type { ChainAdapter } from '../chains/adapter.ts';
import type { LoadedConfig } from '../config/loadConfig.ts';
import { priceQuote, sumPayments } from '../cycle/checkQuote.ts';
import { guaranteedOutputFloor } from '../cycle/expectations.ts';
import { routeRuleFor } from '../planner/routes.ts';
import type { PlannedTransfer } from '../planner/types.ts';
import type { FeeSkipReason } from '../policy/feePolicy.ts';
import type { NativeUsdPrice } from '../policy/originCost.ts';
import { feeCapsFor } from '../policy/routeFees.ts';
import type { QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import type { PolicyRefusal } from '../relay/apiCheck/apiCheck.ts';

/** Skip reasons that say the quote lacks what the caps need, not that a cap is exceeded. */
const NO_DATA: ReadonlySet<FeeSkipReason> = new Set(['fee_data_missing', 'origin_cost_unknown', 'input_usd_missing']);

/** The `maxFees` key each fee-policy skip reason is about (under `policy.maxFees` or a route's `maxFees`). */
const CAP_KEY: Readonly<Record<FeeSkipReason, string>> = {
  total_bps: 'totalBps',
  total_usd: 'totalUsd',
  execution_usd: 'components.execution.usd',
  execution_bps: 'components.execution.bps',
  swap_usd: 'components.swap.usd',
  swap_bps: 'components.swap.bps',
  platform_usd: 'components.platform.usd',
  platform_bps: 'components.platform.bps',
  app_usd: 'components.app.usd',
  app_bps: 'components.app.bps',
  guaranteed_loss_bps: 'totalBps',
  guaranteed_loss_usd: 'totalUsd',
  fee_data_missing: 'totalUsd',
  origin_cost_unknown: 'totalUsd',
  input_usd_missing: 'totalBps',
};

/** The route's `maxFees` entry when it sets `key` (a dotted path under maxFees), else the global one. */
function capPath(config: LoadedConfig, transfer: PlannedTransfer, key: string): string {
  const rule = routeRuleFor(config.policy, transfer.from, transfer.to);
  let node: unknown = rule.maxFees;
  for (const part of key.split('.')) node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[part] : undefined;
  return node !== undefined && rule.index !== undefined ? `policy.routes[${rule.index}].maxFees.${key}` : `policy.maxFees.${key}`;
}

/**
 * Why the operator's policy would skip a verified quote, or undefined when it takes it.
 *
 * @param transfer the smallest transfer of the route, as api-check planned it (apiCheckRoutes.ts)
 * @param quote the quote, mapped into the internal model and verified without the policy's floor
 * @param nativePrice the origin's native currency price when the quote carries none (GET /currencies/token/price,
 *   as a cycle fetches it: src/cycle/originPrice.ts)
 * @returns `kind: 'caps'` with what exceeds which cap and the keys to change (raise the cap, or the route's
 *   `minTransfer` where a flat fee weighs on a small amount); `kind: 'unpriced'` when the quote lacks what the caps
 *   need, with what is missing
 */
export function policyRefusal(
  config: LoadedConfig,
  adapters: ReadonlyMap<string, ChainAdapter>,
  transfer: PlannedTransfer,
  quote: QuoteResponse,
  nativePrice?: NativeUsdPrice,
): Omit<PolicyRefusal, 'label'> | undefined {
  const fee = priceQuote({ config, chains: adapters }, transfer, quote, nativePrice);
  if (!fee.accepted) {
    if (NO_DATA.has(fee.reason)) return { kind: 'unpriced', detail: fee.detail };
    const keys = [...new Set(fee.exceeded.map((reason) => capPath(config, transfer, CAP_KEY[reason])))];
    const loss = fee.exceeded.some((r) => r === 'guaranteed_loss_bps') ? ' (with policy.slippageBps)' : '';
    return { kind: 'caps', detail: `${fee.detail}; raise ${keys.join(', ')}${loss} or the route's minTransfer` };
  }
  const payments = quote.protocol?.v2?.orderData.output.payments;
  if (!payments) return undefined; // verification already required protocol data
  const caps = feeCapsFor(config.policy, transfer);
  const floor = guaranteedOutputFloor(transfer, { slippageBps: config.policy.slippageBps, totalFeeBps: caps.totalBps ?? 0 });
  const guaranteed = sumPayments(payments, 'minimumAmount');
  if (guaranteed >= floor) return undefined;
  const totalBps = capPath(config, transfer, 'totalBps');
  return {
    kind: 'caps',
    detail:
      `its guaranteed output ${guaranteed} is below the ${floor} that ${totalBps} (${caps.totalBps ?? 0})` +
      ` and policy.slippageBps (${config.policy.slippageBps ?? 0}) allow (destination base units); raise them or the route's minTransfer`,
  };
}
