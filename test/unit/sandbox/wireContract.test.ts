/**
 * Contract between two independent readings of the Relay API: the client's schemas (@ballast/protocol
 * relay/schemas.ts, relay/webhookSchemas.ts) and the sandbox's own (packages/sandbox/src/api/wire/). What the
 * sandbox builds — a quote from each origin VM it serves, a status record, a request record, a webhook delivery —
 * must parse with the client's schemas, and a request the client sends must parse with the sandbox's request
 * schema. A misreading on either side shows up here as a parse failure.
 */
import { describe, expect, it } from 'vitest';
import {
  IntentStatusSchema,
  QuoteRequestSchema,
  QuoteResponseSchema,
  RequestsResponseSchema,
  type QuoteRequest,
} from '../../../packages/protocol/src/relay/schemas.ts';
import { RequestStatusUpdatedSchema, statusFromEvent } from '../../../packages/protocol/src/relay/webhookSchemas.ts';
import { requestJson, statusJson } from '../../../packages/sandbox/src/api/records.ts';
import { RequestStore } from '../../../packages/sandbox/src/api/requestStore.ts';
import { SandboxQuoteRequestSchema } from '../../../packages/sandbox/src/api/wire/quoteRequest.ts';
import { parseQuoteRequest } from '../../../packages/sandbox/src/quote/request.ts';
import { SandboxApiError } from '../../../packages/sandbox/src/quote/errors.ts';
import { webhookBody, webhookData } from '../../../packages/sandbox/src/webhooks/payload.ts';
import { build, NOW_SEC, PRICES, RECIPIENT, TABLE, USDC, USER, usdcRequest, ZERO } from './quote/fixtures.ts';
import { BITCOIN_ID, bitcoinToEvm, buildVm, SOLANA_ID, solanaToEvm, SVM_USER, VM_CHAINS } from './quote/vmFixtures.ts';

/** The JSON the sandbox would answer, read back as the client reads it. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('sandbox responses parse with the client schemas', () => {
  it('an EVM-origin quote parses, protocol data included, with the amounts and order the sandbox built', async () => {
    const built = await build();
    const quote = QuoteResponseSchema.parse(wire(built.response));
    expect(quote.details.currencyIn.amount).toBe('1000000000');
    expect(quote.protocol?.v2?.orderId).toBe(built.order.orderId);
    expect(quote.protocol?.v2?.orderData.inputs[0]?.payment.chainId).toBe('alpha');
    expect(quote.steps.map((s) => s.id)).toContain('deposit');
  });

  it('a Solana-origin quote parses', async () => {
    const built = await buildVm(solanaToEvm);
    const quote = QuoteResponseSchema.parse(wire(built.response));
    expect(quote.details.currencyIn.currency.chainId).toBe(SOLANA_ID);
    expect(quote.protocol?.v2?.orderData.output.payments[0]?.recipient).toBe(RECIPIENT);
  });

  it('a Bitcoin-origin quote parses, its deposit step carrying a PSBT', async () => {
    const built = await buildVm(bitcoinToEvm);
    const quote = QuoteResponseSchema.parse(wire(built.response));
    expect(quote.details.currencyIn.currency.chainId).toBe(BITCOIN_ID);
    const items = quote.steps.flatMap((s) => s.items);
    expect(items.some((i) => typeof i.data['psbt'] === 'string')).toBe(true);
  });

  it('a status record, a request record and a webhook delivery parse, and agree', async () => {
    const built = await build();
    const store = new RequestStore();
    const record = store.addQuote(built.order, NOW_SEC * 1000);
    const inTx = `0x${'12'.repeat(32)}`;
    const outTx = `0x${'34'.repeat(32)}`;
    expect(
      store.advance(record, 'success', { inTxHashes: [inTx], txHashes: [outTx], filledAmount: 990_000_000n }, NOW_SEC * 1000 + 5),
    ).toBe(true);

    const status = IntentStatusSchema.parse(wire(statusJson(record)));
    expect(status).toMatchObject({ status: 'success', inTxHashes: [inTx], txHashes: [outTx], updatedAt: NOW_SEC * 1000 + 5 });

    const requests = RequestsResponseSchema.parse(
      wire({ requests: [requestJson(record, { chains: TABLE, prices: PRICES, vm: { chains: VM_CHAINS } })] }),
    );
    expect(requests.requests[0]).toMatchObject({ id: record.requestId, status: 'success' });

    const delivery = RequestStatusUpdatedSchema.parse(JSON.parse(webhookBody(webhookData(record, null), NOW_SEC * 1000 + 9)));
    expect(delivery.timestamp).toBe(NOW_SEC * 1000 + 9);
    expect(delivery.data.requestId).toBe(record.requestId);
    expect(statusFromEvent(delivery)).toMatchObject({ status: status.status, inTxHashes: status.inTxHashes, txHashes: status.txHashes });
  });
});

describe('client requests parse with the sandbox request schema', () => {
  it('a request as the client sends it (Solana routing limits included) is read field for field', () => {
    const sent: QuoteRequest = QuoteRequestSchema.parse({
      ...solanaToEvm,
      includeProtocolData: true,
      refundTo: SVM_USER,
      referrer: 'ballast',
      slippageTolerance: '50',
      maxRouteLength: 3,
      includedOriginSwapSources: ['raydium'],
    });
    expect(SandboxQuoteRequestSchema.parse(wire(sent))).toEqual(sent);
    expect(parseQuoteRequest(wire(usdcRequest({ user: USER })))).toEqual(usdcRequest({ user: USER }));
  });

  it('refuses an unknown tradeType with a 400 naming the field', () => {
    const body = { ...usdcRequest(), tradeType: 'EXPECTED_INPUT' };
    expect(SandboxQuoteRequestSchema.safeParse(body).success).toBe(false);
    let thrown: unknown;
    try {
      parseQuoteRequest(body);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SandboxApiError);
    expect(thrown).toMatchObject({ status: 400, code: null });
    expect((thrown as Error).message).toMatch(/^Invalid quote request: tradeType: /);
  });
});
