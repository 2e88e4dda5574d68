/**
 * Whether a transfer's deposit may be withdrawn, and with which fields (docs/relay-contract.md "Withdrawal endpoints",
 * eligibility check: read `protocol.isWithdrawable` and `protocol.deposit.origin` from GET /requests/v3). Pure.
 *
 * A deposit is attested only when the service's record describes exactly our deposit: the record is our
 * transfer's request, `isWithdrawable` is true, the depositor is our origin wallet, the transaction is our
 * recorded deposit transaction, and chain, currency and amount are the transfer's. The recipient is that same
 * wallet: the funds return to the treasury, never elsewhere.
 */
import { sameTxId } from '../core/txId.ts';
import type { RequestsResponse } from '@ballast/protocol/relay/schemas.ts';
import { RequestProtocolSchema, type DepositOrigin } from '../relay/withdrawalSchemas.ts';
import type { TransferRow } from '../store/transferRows.ts';

/** What a withdrawal needs, from our transfer and the service's record (defined with the store's rows). */
export type { WithdrawalFields } from '../store/withdrawalRows.ts';
import type { WithdrawalFields } from '../store/withdrawalRows.ts';

/** Facts about the transfer's origin chain and wallet, from config and GET /chains. */
export interface OriginFacts {
  /** Config name of the chain and of our wallet on it. */
  chain: string;
  wallet: string;
  /** The chain's protocol slug from GET /chains. */
  chainSlug: string;
  /** The form under which two spellings of an address or currency compare equal (the chain adapter's). */
  key: (value: string) => string;
}

/** The verdict: eligible with its fields, not (yet) withdrawable, or a record that does not describe our deposit. */
export type Eligibility =
  { kind: 'eligible'; fields: WithdrawalFields } | { kind: 'not_withdrawable'; why: string } | { kind: 'mismatch'; why: string };

/**
 * Judges a transfer's deposit against the service's request records.
 *
 * @param transfer our transfer (deposited, or ended in failure)
 * @param depositTx our recorded deposit transaction (the transfer's last origin transaction)
 * @param records GET /requests/v3?id=<the transfer's request id> records
 * @param origin facts about the origin chain and wallet
 */
export function judgeEligibility(
  transfer: TransferRow,
  depositTx: string,
  records: RequestsResponse['requests'],
  origin: OriginFacts,
): Eligibility {
  const record = records.find((r) => r.id === transfer.requestId);
  if (!record) return { kind: 'not_withdrawable', why: `GET /requests/v3 has no record for request ${transfer.requestId ?? '(none)'}` };
  if (record.protocol === undefined)
    return { kind: 'not_withdrawable', why: 'the request record has no protocol block yet (no deposit observed)' };
  const parsed = RequestProtocolSchema.safeParse(record.protocol);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      kind: 'mismatch',
      why: `the request record's protocol block is malformed at protocol.${issue?.path.join('.') ?? ''}: ${issue?.message ?? 'invalid'}`,
    };
  }
  if (!parsed.data.isWithdrawable)
    return { kind: 'not_withdrawable', why: `protocol.isWithdrawable is false (request status ${record.status})` };
  const o = parsed.data.deposit?.origin;
  if (!o) return { kind: 'mismatch', why: 'protocol.isWithdrawable is true but protocol.deposit.origin is missing' };
  const problems = originProblems(transfer, depositTx, o, origin);
  if (problems.length > 0) return { kind: 'mismatch', why: `the record does not describe our deposit: ${problems.join('; ')}` };
  return {
    kind: 'eligible',
    fields: {
      chain: origin.chain,
      chainId: transfer.originChainId,
      chainSlug: origin.chainSlug,
      wallet: origin.wallet,
      owner: o.depositor,
      recipient: o.depositor,
      currency: o.currency,
      amount: BigInt(o.amount),
      depositTx,
    },
  };
}

/** Each way `o` differs from our deposit, naming the field, what we recorded and what the record says. */
function originProblems(transfer: TransferRow, depositTx: string, o: DepositOrigin, origin: OriginFacts): string[] {
  const problems: string[] = [];
  if (origin.key(o.depositor) !== origin.key(transfer.user)) problems.push(`depositor is ${o.depositor}, our wallet is ${transfer.user}`);
  if (!sameTxId(o.transactionId, depositTx)) problems.push(`transactionId is ${o.transactionId}, our deposit is ${depositTx}`);
  if (!sameChain(o.chainId, transfer.originChainId, origin.chainSlug)) {
    problems.push(`chainId is ${JSON.stringify(o.chainId)}, our deposit is on ${transfer.originChainId} (${origin.chainSlug})`);
  }
  if (origin.key(o.currency) !== origin.key(transfer.originCurrency))
    problems.push(`currency is ${o.currency}, we deposited ${transfer.originCurrency}`);
  if (BigInt(o.amount) !== transfer.amountIn) problems.push(`amount is ${o.amount}, we deposited ${transfer.amountIn}`);
  return problems;
}

/** The record's chain id (a number, or a numeric string or protocol slug) names our origin chain. */
function sameChain(recorded: number | string, chainId: number, slug: string): boolean {
  if (typeof recorded === 'number') return recorded === chainId;
  return /^[0-9]+$/.test(recorded) ? Number(recorded) === chainId : recorded === slug;
}
