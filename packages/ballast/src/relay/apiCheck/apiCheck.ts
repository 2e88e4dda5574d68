/**
 * `ballast api-check`: asks the configured Relay API for GET /chains and one small quote per route on each quote
 * endpoint (POST /quote/v2 and POST /quote/v3), signs nothing, and reports per endpoint whether it is reachable,
 * accepts the key, answers in a shape Ballast parses, and whether its quotes pass local verification, with the
 * raw `Deprecation`/`Sunset` headers seen (https://docs.relay.link/references/api/api_guides/migrating-to-quote-v3).
 * Every failure is reported in the endpoint's result, never thrown. A quote that verifies but that the operator's
 * own policy would skip (fee caps, output floor) leaves the endpoint usable: it is reported apart, per route, naming
 * the config keys ({@link renderPolicyRefusals}).
 */
import { RelayError } from '../errors.ts';
import type { HttpTarget } from '../http.ts';
import { QuoteV3UnverifiableError } from '../quoteApi/errors.ts';
import { QUOTE_API_VERSIONS, selectQuoteApi, type QuoteApiVersion } from '../quoteApi/selectQuoteApi.ts';
import { parseChainsLeniently, type ChainsResponse, type QuoteRequest, type QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { readDeprecationHeaders, renderDeprecationHeaders, type DeprecationHeaders } from './deprecationHeaders.ts';
import { probe, type ProbeResult } from './probe.ts';

/** A route to quote: a label (`USDC alpha→beta`) and the request body, or why it cannot be quoted. */
export type ApiCheckRoute = { label: string; request: QuoteRequest } | { label: string; unquotable: string };

/**
 * Local verification of one parsed quote (the real verifier, wired by the caller). Must not throw. `policy`: why the
 * operator's policy would skip a quote that verified (the endpoint works; the config refuses the route).
 */
export type ApiCheckVerify = (
  label: string,
  quote: QuoteResponse,
) => Promise<{ ok: boolean; detail: string; policy?: Omit<PolicyRefusal, 'label'> }>;

/** One exchange, for `--save`. */
export interface ApiCheckExchange {
  /** File-name stem, e.g. `chains`, `quote-v3-USDC-alpha-beta`. */
  name: string;
  request?: unknown;
  result: ProbeResult;
}

/** What happened to one route on one quote endpoint. */
export interface RouteOutcome {
  label: string;
  stage: 'unquotable' | 'unreachable' | 'key_refused' | 'api_error' | 'schema_failed' | 'unverifiable' | 'refused' | 'verified';
  detail: string;
  /** Stage `verified` only: why the operator's policy would skip this quote. */
  policy?: Omit<PolicyRefusal, 'label'>;
}

/**
 * A route whose quote verified but that a cycle would skip: `caps`, the operator's fee caps or output floor refuse
 * it (the detail names the config keys); `unpriced`, the quote lacks what the fee caps need (no setting changes it).
 */
export interface PolicyRefusal {
  label: string;
  kind: 'caps' | 'unpriced';
  detail: string;
}

/** The report of one endpoint. `usable` is true only when every check passed. */
export interface EndpointReport {
  endpoint: string;
  usable: boolean;
  reachable: boolean | null;
  keyAccepted: boolean | null;
  /** Parsed bodies / 2xx bodies (for GET /chains 1/1 or 0/1). */
  parsed: { ok: number; of: number };
  /** Verified quotes / parsed quotes; null for GET /chains. */
  verified: { ok: number; of: number } | null;
  headers: DeprecationHeaders;
  /** The first problem, in words; absent when usable. */
  problem?: string;
  routes?: RouteOutcome[];
  /** Verified routes the operator's policy would skip (the endpoint still counts as usable); absent when none. */
  policyRefusals?: PolicyRefusal[];
}

/** Inputs of {@link runApiCheck}. */
export interface ApiCheckInput {
  target: HttpTarget;
  fetch: typeof fetch;
  timeoutMs: number;
  /** Routes to quote, built once GET /chains is known (its decimals). */
  routesFor: (chains: ChainsResponse | null) => ApiCheckRoute[];
  /** Verifies a parsed quote against GET /chains (called only when GET /chains parsed). */
  verifyWith: (chains: ChainsResponse) => ApiCheckVerify;
  /** Quote endpoints to check (default both). */
  versions?: readonly QuoteApiVersion[];
}

/** Result of {@link runApiCheck}: one report per endpoint, and every exchange. */
export interface ApiCheckResult {
  endpoints: EndpointReport[];
  exchanges: ApiCheckExchange[];
}

/**
 * Runs the check (rules in the file comment).
 *
 * @returns one {@link EndpointReport} per endpoint (GET /chains first) and the exchanges; never throws for a
 *   Relay failure
 */
export async function runApiCheck(input: ApiCheckInput): Promise<ApiCheckResult> {
  const exchanges: ApiCheckExchange[] = [];
  const opts = { target: input.target, fetch: input.fetch, timeoutMs: input.timeoutMs };
  const chainsResult = await probe(opts, { method: 'GET', endpoint: 'GET /chains', pathAndQuery: '/chains' });
  exchanges.push({ name: 'chains', result: chainsResult });
  const { report: chainsReport, chains } = judgeChains(chainsResult);
  const routes = input.routesFor(chains);
  const verify = chains ? input.verifyWith(chains) : null;
  const endpoints: EndpointReport[] = [chainsReport];
  for (const version of input.versions ?? QUOTE_API_VERSIONS) {
    const api = selectQuoteApi(version);
    const outcomes: RouteOutcome[] = [];
    const seen: ProbeResult[] = [];
    for (const route of routes) {
      if ('unquotable' in route) {
        outcomes.push({ label: route.label, stage: 'unquotable', detail: route.unquotable });
        continue;
      }
      const result = await probe(opts, { method: 'POST', endpoint: api.endpoint, pathAndQuery: api.path, body: route.request });
      seen.push(result);
      exchanges.push({ name: `quote-${version}-${slug(route.label)}`, request: route.request, result });
      outcomes.push(await judgeQuote(result, route.label, route.request, api, verify));
    }
    if (seen.length === 0) {
      // No route could be quoted (e.g. GET /chains failed, so decimals are unknown): one empty request still shows
      // whether the endpoint answers and takes the key.
      const result = await probe(opts, { method: 'POST', endpoint: api.endpoint, pathAndQuery: api.path, body: {} });
      seen.push(result);
      exchanges.push({ name: `quote-${version}-empty-request`, request: {}, result });
      if (result.status === null) outcomes.unshift({ label: 'empty request', stage: 'unreachable', detail: result.error ?? 'no response' });
      else if (result.status === 401 || result.status === 403)
        outcomes.unshift({ label: 'empty request', stage: 'key_refused', detail: httpProblem(result) });
    }
    endpoints.push(summarise(api.endpoint, outcomes, seen, chains !== null));
  }
  return { endpoints, exchanges };
}

function judgeChains(result: ProbeResult): { report: EndpointReport; chains: ChainsResponse | null } {
  const base = { endpoint: 'GET /chains', verified: null, headers: readDeprecationHeaders(result.headers, 'GET /chains') };
  if (result.status === null) {
    return {
      report: {
        ...base,
        usable: false,
        reachable: false,
        keyAccepted: null,
        parsed: { ok: 0, of: 0 },
        problem: `unreachable: ${result.error}`,
      },
      chains: null,
    };
  }
  const keyAccepted = result.status !== 401 && result.status !== 403;
  if (result.status < 200 || result.status > 299) {
    return {
      report: { ...base, usable: false, reachable: true, keyAccepted, parsed: { ok: 0, of: 0 }, problem: httpProblem(result) },
      chains: null,
    };
  }
  try {
    const { chains, skipped } = parseChainsLeniently(result.json);
    const problem = skipped.length > 0 ? `${skipped.length} chain(s) did not parse, e.g. ${skipped[0]!.reason}` : undefined;
    return {
      report: { ...base, usable: true, reachable: true, keyAccepted, parsed: { ok: 1, of: 1 }, ...(problem ? { problem } : {}) },
      chains,
    };
  } catch (error) {
    const why = result.json === undefined ? 'body is not JSON' : error instanceof Error ? error.message.split('\n')[0]! : String(error);
    return {
      report: { ...base, usable: false, reachable: true, keyAccepted, parsed: { ok: 0, of: 1 }, problem: `schema: ${why}` },
      chains: null,
    };
  }
}

async function judgeQuote(
  result: ProbeResult,
  label: string,
  request: QuoteRequest,
  api: ReturnType<typeof selectQuoteApi>,
  verify: ApiCheckVerify | null,
): Promise<RouteOutcome> {
  if (result.status === null) return { label, stage: 'unreachable', detail: result.error ?? 'no response' };
  if (result.status === 401 || result.status === 403) return { label, stage: 'key_refused', detail: httpProblem(result) };
  if (result.status < 200 || result.status > 299) return { label, stage: 'api_error', detail: httpProblem(result) };
  if (result.json === undefined) return { label, stage: 'schema_failed', detail: 'body is not JSON' };
  let quote: QuoteResponse;
  try {
    quote = api.map(result.json, request).quote;
  } catch (error) {
    if (error instanceof QuoteV3UnverifiableError) return { label, stage: 'unverifiable', detail: `${error.code}: no ${error.field}` };
    const text = error instanceof RelayError ? `${error.code}: ${error.message}` : String(error);
    return { label, stage: 'schema_failed', detail: text };
  }
  if (!verify) return { label, stage: 'refused', detail: 'not verified: GET /chains is not usable' };
  const verdict = await verify(label, quote);
  if (!verdict.ok) return { label, stage: 'refused', detail: verdict.detail };
  return { label, stage: 'verified', detail: verdict.detail, ...(verdict.policy !== undefined ? { policy: verdict.policy } : {}) };
}

function summarise(endpoint: string, outcomes: RouteOutcome[], seen: ProbeResult[], chainsUsable: boolean): EndpointReport {
  const answered = seen.filter((r) => r.status !== null);
  const twoxx = answered.filter((r) => r.status! >= 200 && r.status! <= 299).length; // filtered on non-null just above
  const parsedOk = outcomes.filter((o) => o.stage === 'unverifiable' || o.stage === 'refused' || o.stage === 'verified').length;
  const verifiedOk = outcomes.filter((o) => o.stage === 'verified').length;
  const headers =
    seen.map((r) => readDeprecationHeaders(r.headers, endpoint)).find((h) => h.deprecation !== undefined || h.sunset !== undefined) ?? {};
  const firstProblem = outcomes.find((o) => o.stage !== 'verified');
  const policyRefusals = outcomes.flatMap((o) => (o.policy !== undefined ? [{ label: o.label, ...o.policy }] : []));
  const usable = outcomes.length > 0 && firstProblem === undefined && chainsUsable;
  const problem =
    outcomes.length === 0
      ? 'no configured route to quote'
      : firstProblem
        ? `${firstProblem.label}: ${firstProblem.stage.replace('_', ' ')}: ${firstProblem.detail}`
        : chainsUsable
          ? undefined
          : 'GET /chains is not usable, so nothing was verified';
  return {
    endpoint,
    usable,
    reachable: seen.length === 0 ? null : answered.length > 0,
    keyAccepted: outcomes.some((o) => o.stage === 'key_refused') ? false : answered.length === 0 ? null : true,
    parsed: { ok: parsedOk, of: twoxx },
    verified: { ok: verifiedOk, of: parsedOk },
    headers,
    ...(problem !== undefined ? { problem } : {}),
    routes: outcomes,
    ...(policyRefusals.length > 0 ? { policyRefusals } : {}),
  };
}

function httpProblem(result: ProbeResult): string {
  const body = typeof result.json === 'object' && result.json !== null ? (result.json as { errorCode?: unknown; message?: unknown }) : {}; // only read for the text
  const code = typeof body.errorCode === 'string' ? ` ${body.errorCode}` : '';
  const message = typeof body.message === 'string' ? body.message : result.bodyText.slice(0, 200);
  return `HTTP ${result.status}${code}${message ? `: ${message}` : ''}`;
}

/** A file-name-safe form of a route label. */
export function slug(label: string): string {
  return label.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/**
 * One line per endpoint: usable or not, then reachable, key, schema, verification, the deprecation headers
 * and the first problem.
 */
export function renderApiCheckLine(r: EndpointReport): string {
  const yesNo = (v: boolean | null, yes: string, no: string): string => (v === null ? 'not checked' : v ? yes : no);
  const parts = [
    `reachable ${yesNo(r.reachable, 'yes', 'no')}`,
    `key ${yesNo(r.keyAccepted, 'accepted', 'refused')}`,
    `schema ${r.parsed.of === 0 && r.parsed.ok === 0 ? 'not checked' : `parsed ${r.parsed.ok}/${r.parsed.of}`}`,
    `verification ${r.verified === null ? 'n/a' : r.verified.of === 0 ? 'not run' : `${r.verified.ok}/${r.verified.of} verified`}`,
    ...renderDeprecationHeaders(r.headers),
    ...(r.policyRefusals ? [`a cycle would skip ${r.policyRefusals.length} of ${r.verified?.ok ?? 0} verified routes (below)`] : []),
  ];
  return `${r.endpoint}: ${r.usable ? 'usable' : 'NOT usable'}; ${parts.join('; ')}${r.problem ? ` — ${r.problem}` : ''}`;
}

/**
 * One warning line per route (and kind) a cycle would skip although the endpoints quoting it work, with those
 * endpoints. Empty when the policy takes every quote.
 *
 * @example "warning: your policy refuses USDC alpha:treasury→beta:treasury on POST /quote/v2, POST /quote/v3 (the
 * endpoints work): total fee 1.10235 USD (110.23 bps of 100 USD) … exceeds cap 30 bps; raise policy.maxFees.totalBps
 * or the route's minTransfer"
 */
export function renderPolicyRefusals(endpoints: readonly EndpointReport[]): string[] {
  const byRoute = new Map<string, { label: string; kind: PolicyRefusal['kind']; endpoints: string[]; detail: string }>();
  for (const e of endpoints) {
    for (const r of e.policyRefusals ?? []) {
      const key = `${r.kind} ${r.label}`;
      const seen = byRoute.get(key);
      if (seen) seen.endpoints.push(e.endpoint);
      else byRoute.set(key, { label: r.label, kind: r.kind, endpoints: [e.endpoint], detail: r.detail });
    }
  }
  return [...byRoute.values()].map((r) => {
    const on = r.endpoints.join(', ');
    const works = r.endpoints.length === 1 ? 'the endpoint works' : 'the endpoints work';
    return r.kind === 'caps'
      ? `warning: your policy refuses ${r.label} on ${on} (${works}): ${r.detail}`
      : `warning: a cycle on ${on} would skip ${r.label} whatever the caps (${works}, but the quote lacks what the fee policy needs): ${r.detail}`;
  });
}
