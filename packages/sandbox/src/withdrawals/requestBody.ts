/**
 * The body of POST /withdrawals/request (docs/relay-contract.md "Withdrawal endpoints": prepare without `signature`, execute
 * with `nonce` and `signature`, `additionalData` only when prepare gave one — the sandbox never does for EVM
 * and Solana): parsed with zod and resolved against the sandbox's chains by protocol slug. Bitcoin (and any
 * chain of vmType `bvm`) cannot withdraw, as owner chain or withdrawal chain. Pure.
 */
import { isAddress, type Hex } from 'viem';
import { z } from 'zod';
import type { SandboxChainTable } from '../quote/chainTable.ts';
import { lower } from '../quote/chainTable.ts';
import { SandboxApiError } from '../quote/errors.ts';
import { isSolanaAddress } from '../quote/vmAddress.ts';
import { vmTypeOf, type SandboxAnyChain, type SandboxNonEvmChain, type SandboxVmType } from '../quote/vmChains.ts';

const slug = (field: string) =>
  z.string({ error: `expected the protocol chain slug (chains[].protocol.v2.chainId) of the ${field}, not a number` }).min(1);

/** zod schema of the body, fields as docs/relay-contract.md "Withdrawal endpoints" names them. */
export const WithdrawalRequestBodySchema = z.object({
  chainId: slug('withdrawal chain'),
  currency: z.string({ error: 'expected the token address on the withdrawal chain, or the zero address for native' }).min(1),
  amount: z.string({ error: 'expected base units as a decimal string' }).regex(/^[0-9]+$/, 'expected base units as a decimal string'),
  ownerChainId: slug("owner's chain"),
  owner: z.string({ error: 'expected the depositor address' }).min(1),
  recipient: z.string({ error: 'expected the recipient address on the withdrawal chain' }).min(1),
  nonce: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'expected the 0x hex nonce prepare returned')
    .optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
  signature: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})+$/, 'expected a 0x-prefixed hex signature')
    .optional(),
});
/** The parsed body: every string exactly as sent (the signature covers them as sent). */
export type WithdrawalRequestBody = z.infer<typeof WithdrawalRequestBodySchema>;

/**
 * A resolved request: the chains, the normalised addresses that key hub balances and nonces (EVM lower-case
 * 0x hex, Solana exact), the amount in base units, and the body as sent.
 */
export interface ResolvedWithdrawal {
  body: WithdrawalRequestBody;
  chain: SandboxAnyChain;
  ownerChain: SandboxAnyChain;
  /** Signature family of the owner (its chain's VM). */
  ownerVm: 'evm' | 'svm';
  currency: string;
  owner: string;
  recipient: string;
  amount: bigint;
}

/** Message of the 400 answered when Bitcoin is the owner chain or the withdrawal chain. */
export const BITCOIN_REFUSAL =
  'Bitcoin owners cannot withdraw: withdrawals are not supported on Bitcoin (docs/relay-contract.md "Withdrawal endpoints"); recover the deposit another way';

/** An address in its VM's normal form, or null when it is not one. */
function normalAddress(value: string, vm: SandboxVmType): string | null {
  if (vm === 'evm') return isAddress(value, { strict: false }) ? lower(value) : null;
  if (vm === 'svm') return isSolanaAddress(value) ? value : null;
  return null;
}

const FORM: Record<SandboxVmType, string> = {
  evm: 'a 0x EVM address',
  svm: 'a base58 Solana address (case-sensitive)',
  bvm: 'an address of a chain that supports withdrawals',
};

/**
 * Parses and resolves a body.
 *
 * @param chains the EVM chain table and the non-EVM chains served
 * @throws SandboxApiError 400 `{message}` naming every bad field (unknown slug, malformed address, zero
 *   amount, additionalData the sandbox never asked for), or {@link BITCOIN_REFUSAL}
 */
export function resolveWithdrawalRequest(
  raw: unknown,
  chains: { table: SandboxChainTable; vm: readonly SandboxNonEvmChain[] },
): ResolvedWithdrawal {
  const parsed = WithdrawalRequestBodySchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join('.') || '(body)'}: ${i.message}`);
    throw new SandboxApiError(400, null, `Invalid withdrawal request: ${issues.join('; ')}`);
  }
  const body = parsed.data;
  const bySlug = (s: string): SandboxAnyChain | undefined => chains.table.find((c) => c.slug === s) ?? chains.vm.find((c) => c.slug === s);
  const chain = bySlug(body.chainId);
  const ownerChain = bySlug(body.ownerChainId);
  const bad: string[] = [];
  if (!chain) bad.push(`chainId: ${JSON.stringify(body.chainId)} is not a sandbox chain slug; see GET /chains protocol.v2.chainId`);
  if (!ownerChain)
    bad.push(`ownerChainId: ${JSON.stringify(body.ownerChainId)} is not a sandbox chain slug; see GET /chains protocol.v2.chainId`);
  if (bad.length === 0 && (vmTypeOf(chain!) === 'bvm' || vmTypeOf(ownerChain!) === 'bvm'))
    throw new SandboxApiError(400, null, BITCOIN_REFUSAL); // both found above
  const vm = chain ? vmTypeOf(chain) : null;
  const ownerVm = ownerChain ? vmTypeOf(ownerChain) : null;
  const currency = vm ? normalAddress(body.currency, vm) : null;
  const owner = ownerVm ? normalAddress(body.owner, ownerVm) : null;
  const recipient = vm ? normalAddress(body.recipient, vm) : null;
  if (vm && currency === null) bad.push(`currency: ${JSON.stringify(body.currency)} is not ${FORM[vm]} (zero address for native)`);
  if (ownerVm && owner === null) bad.push(`owner: ${JSON.stringify(body.owner)} is not ${FORM[ownerVm]} on ${body.ownerChainId}`);
  if (vm && recipient === null) bad.push(`recipient: ${JSON.stringify(body.recipient)} is not ${FORM[vm]} on ${body.chainId}`);
  const amount = BigInt(body.amount); // regex checked digits only
  if (amount === 0n) bad.push('amount: must be above 0 base units');
  if (body.additionalData !== undefined) bad.push('additionalData: prepare returns none for EVM and Solana owners; omit it');
  if (bad.length > 0 || !chain || !ownerChain || currency === null || owner === null || recipient === null) {
    throw new SandboxApiError(400, null, `Invalid withdrawal request: ${bad.join('; ')}`);
  }
  return { body, chain, ownerChain, ownerVm: ownerVm === 'svm' ? 'svm' : 'evm', currency, owner, recipient, amount };
}

/** The execute-only fields, checked present. */
export interface ExecuteFields {
  nonce: Hex;
  signature: Hex;
}

/**
 * The nonce and signature of an execute call.
 *
 * @throws SandboxApiError 400 naming the missing field
 */
export function executeFields(body: WithdrawalRequestBody): ExecuteFields {
  const missing = [
    ...(body.nonce === undefined ? ['nonce: required with a signature; use the nonce prepare returned'] : []),
    ...(body.signature === undefined ? ['signature: required with a nonce (execute); sign the withdrawal digest'] : []),
  ];
  if (missing.length > 0) throw new SandboxApiError(400, null, `Invalid withdrawal request: ${missing.join('; ')}`);
  return { nonce: body.nonce as Hex, signature: body.signature as Hex }; // regexes checked 0x hex; presence checked above
}
