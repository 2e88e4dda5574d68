/**
 * Webhook delivery of the sandbox (docs/relay-contract.md "Events" → "Webhooks"): on each status change of a request, POST a
 * `request.status.updated` payload to the configured URL with `X-Signature-Timestamp` (unix seconds of
 * sending) and `X-Signature-SHA256` (hex HMAC-SHA256 with the API key over `<timestamp>.<body>`). A delivery
 * answered non-2xx, or that fails on the network, is retried up to 10 times with exponential backoff (docs/relay-contract.md
 * "Limits": "Webhook retries: up to 10, exponential backoff"), signed afresh each time. Deliveries of one
 * request go out in order: the next waits until the previous one was accepted or gave up.
 *
 * Faults (src/sandbox/faults.ts): `webhookDrop` (not sent), `webhookDuplicate` (sent twice), `webhookDelayMs`
 * (sent late).
 */
import type { Logger } from 'pino';
import { BallastError } from '@ballast/protocol/core/errors.ts';
import { signWebhook } from '@ballast/protocol/relay/webhookSignature.ts';
import type { SandboxFaults } from '../faults.ts';
import type { RequestRecord } from '../api/requestStore.ts';
import { webhookBody, webhookData, type WebhookData } from './payload.ts';
import { sleep } from '../solver/sleep.ts';

/** Webhook delivery asked for without a secret to sign with. Code `SANDBOX_WEBHOOK_NO_SECRET`. */
export class SandboxWebhookError extends BallastError {
  readonly code = 'SANDBOX_WEBHOOK_NO_SECRET';
}

/** Retries after the first attempt (docs/relay-contract.md "Limits"). */
export const WEBHOOK_MAX_RETRIES = 10;
/** Attempts kept for `attempts()` (the oldest are forgotten beyond it). */
const KEPT_ATTEMPTS = 1000;

/** Options of the sandbox's webhook delivery (startSandbox `webhook`). Times in milliseconds. */
export interface SandboxWebhookOptions {
  /** Where to POST, e.g. `http://127.0.0.1:9464/webhooks/relay`. */
  url: string;
  /** HMAC secret (default: the sandbox's `apiKey`; one of them is required). */
  secret?: string;
  /** Wait before the first retry; doubled for each next one (default 1000). */
  baseDelayMs?: number;
  /** Longest wait between two attempts (default 600 000). */
  maxDelayMs?: number;
  /** Retries after the first attempt (default 10, docs/relay-contract.md "Limits"). */
  maxRetries?: number;
  /** Time limit of one attempt (default 10 000). */
  timeoutMs?: number;
}

/** One attempt (or a dropped delivery), as the sandbox recorded it. */
export interface WebhookAttempt {
  requestId: string;
  status: string;
  /** 1 for the first attempt of a delivery. */
  attempt: number;
  /** HTTP status answered, or null on a network error (see `error`) or a dropped delivery. */
  httpStatus: number | null;
  error?: string;
  /** Not sent: the `webhookDrop` fault. */
  dropped?: boolean;
  /** The second copy sent under the `webhookDuplicate` fault. */
  duplicate?: boolean;
  /** The headers and body sent (to check the signature). */
  sent?: { timestamp: string; signature: string; body: string };
}

/** What the sender needs from the sandbox. */
export interface WebhookSenderDeps {
  logger: Logger;
  /** The faults in force (read at each delivery). */
  faults: () => SandboxFaults;
  nowMs: () => number;
}

/** Delivers the sandbox's webhooks. */
export class WebhookSender {
  readonly #opts: Required<Omit<SandboxWebhookOptions, 'secret'>> & { secret: string };
  readonly #deps: WebhookSenderDeps;
  readonly #chains = new Map<string, Promise<void>>();
  readonly #attempts: WebhookAttempt[] = [];
  readonly #stop = new AbortController();

  /**
   * @param opts where and how to deliver; `secret` must be set (startSandbox fills it from `apiKey`)
   * @throws SandboxWebhookError when there is no secret
   */
  constructor(opts: SandboxWebhookOptions, deps: WebhookSenderDeps) {
    if (!opts.secret) {
      throw new SandboxWebhookError('webhook delivery needs a secret: pass webhook.secret or apiKey (the key Ballast has as relay.apiKey)');
    }
    this.#opts = {
      url: opts.url,
      secret: opts.secret,
      baseDelayMs: opts.baseDelayMs ?? 1000,
      maxDelayMs: opts.maxDelayMs ?? 600_000,
      maxRetries: opts.maxRetries ?? WEBHOOK_MAX_RETRIES,
      timeoutMs: opts.timeoutMs ?? 10_000,
    };
    this.#deps = deps;
  }

  /** Queues a delivery of `record`'s current status (captured now), after the request's earlier ones. */
  enqueue(record: RequestRecord): void {
    if (this.#stop.signal.aborted) return;
    const data = webhookData(record, this.#deps.faults().unknownStatus);
    const key = record.requestId.toLowerCase();
    const previous = this.#chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.#deliver(data));
    this.#chains.set(key, next);
    void next.finally(() => {
      if (this.#chains.get(key) === next) this.#chains.delete(key);
    });
  }

  /** Every attempt so far, oldest first. */
  attempts(): readonly WebhookAttempt[] {
    return this.#attempts;
  }

  /** Resolves once every queued delivery was accepted or gave up. */
  async idle(): Promise<void> {
    while (this.#chains.size > 0) await Promise.all([...this.#chains.values()]);
  }

  /** Cancels waiting retries and attempts in progress. Idempotent. */
  async stop(): Promise<void> {
    this.#stop.abort();
    await Promise.all([...this.#chains.values()]);
  }

  async #deliver(data: WebhookData): Promise<void> {
    const faults = this.#deps.faults();
    if (faults.webhookDrop) {
      this.#record({ requestId: data.requestId, status: data.status, attempt: 1, httpStatus: null, dropped: true });
      return;
    }
    if (faults.webhookDelayMs) await sleep(faults.webhookDelayMs, this.#stop.signal);
    const accepted = await this.#withRetries(data, false);
    if (accepted && faults.webhookDuplicate) await this.#withRetries(data, true);
  }

  /** @returns true when a 2xx answer came within the retries */
  async #withRetries(data: WebhookData, duplicate: boolean): Promise<boolean> {
    for (let attempt = 1; attempt <= this.#opts.maxRetries + 1; attempt++) {
      if (this.#stop.signal.aborted) return false;
      if (attempt > 1) {
        await sleep(Math.min(this.#opts.maxDelayMs, this.#opts.baseDelayMs * 2 ** (attempt - 2)), this.#stop.signal);
        if (this.#stop.signal.aborted) return false;
      }
      const record = await this.#post(data, attempt, duplicate);
      this.#record(record);
      if (record.httpStatus !== null && record.httpStatus >= 200 && record.httpStatus < 300) return true;
      this.#deps.logger.warn(
        { requestId: data.requestId, status: data.status, attempt, httpStatus: record.httpStatus, err: record.error },
        attempt > this.#opts.maxRetries ? 'webhook delivery failed; no retries left' : 'webhook delivery failed; will retry',
      );
    }
    return false;
  }

  async #post(data: WebhookData, attempt: number, duplicate: boolean): Promise<WebhookAttempt> {
    const sentAtMs = this.#deps.nowMs();
    const body = webhookBody(data, sentAtMs);
    const timestamp = String(Math.floor(sentAtMs / 1000));
    const signature = signWebhook(this.#opts.secret, timestamp, body);
    const base = {
      requestId: data.requestId,
      status: data.status,
      attempt,
      ...(duplicate ? { duplicate } : {}),
      sent: { timestamp, signature, body },
    };
    // One controller per attempt, aborted by stop() or the attempt's time limit; its listener is removed after.
    const attemptAbort = new AbortController();
    const abort = () => attemptAbort.abort();
    const timer = setTimeout(abort, this.#opts.timeoutMs);
    this.#stop.signal.addEventListener('abort', abort, { once: true });
    try {
      const res = await fetch(this.#opts.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-signature-timestamp': timestamp, 'x-signature-sha256': signature },
        body,
        signal: attemptAbort.signal,
      });
      await res.arrayBuffer().catch(() => undefined); // the answer's body is not used
      return { ...base, httpStatus: res.status };
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
      return { ...base, httpStatus: null, error: `${error instanceof Error ? error.message : String(error)}${cause}` };
    } finally {
      clearTimeout(timer);
      this.#stop.signal.removeEventListener('abort', abort);
    }
  }

  #record(attempt: WebhookAttempt): void {
    this.#attempts.push(attempt);
    if (this.#attempts.length > KEPT_ATTEMPTS) this.#attempts.splice(0, this.#attempts.length - KEPT_ATTEMPTS);
  }
}
