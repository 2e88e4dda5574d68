/**
 * Metrics of route choice (src/cycle/routeChoice.ts): how the candidate routes of planned transfers fared and what
 * choosing saved. Registered by `createMetrics` (src/metrics/metrics.ts); samples appear once a planned transfer
 * had alternative donors.
 */
import { Counter, type Registry } from 'prom-client';

/** The route-choice metrics; part of `BallastMetrics`. */
export interface RouteChoiceMetrics {
  /** `ballast_route_candidates_total{asset, outcome}`: candidate routes considered, by outcome. */
  routeCandidatesTotal: Counter<'asset' | 'outcome'>;
  /** `ballast_route_choice_saved_usd_total{asset}`: fees saved against the planner's own pick, USD. */
  routeChoiceSavedUsdTotal: Counter<'asset'>;
}

/** Creates the route-choice metrics in `registry`. */
export function createRouteChoiceMetrics(registry: Registry): RouteChoiceMetrics {
  const registers = [registry];
  return {
    routeCandidatesTotal: new Counter({
      name: 'ballast_route_candidates_total',
      help: 'Route choice: candidate routes (donors) considered for planned transfers, by outcome (chosen; costlier, skipped_fee, refused_verification, quote_error: quoted and lost; no_spare, not_quoted: not quoted).',
      labelNames: ['asset', 'outcome'],
      registers,
    }),
    routeChoiceSavedUsdTotal: new Counter({
      name: 'ballast_route_choice_saved_usd_total',
      help: "Route choice: total fees (USD) saved by sending a cheaper candidate instead of the planner's own pick, when that pick passed too.",
      labelNames: ['asset'],
      registers,
    }),
  };
}
