/**
 * Finds the Bitcoin deposit in a quote (docs/design.md "Bitcoin step data": one `transaction` step item whose
 * `data.psbt` is hex; maybe also `from` and `chainId`), parses its PSBT and locates the output paying the
 * depository from GET /chains: rule `deposit-call`. Also resolves our own wallet (`expect.user`) to its output
 * script, which every other bvm rule compares against.
 */
import { networks, type Network } from 'bitcoinjs-lib';
import type { Chain, QuoteResponse } from '@ballast/protocol/relay/schemas.ts';
import { bitcoinNetworkOf, bitcoinOutputScript, sameScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { fail, pass } from '../ruleResult.ts';
import type { RuleResult, StepItemRef } from '../types.ts';
import { collectStepItems } from './stepItems.ts';
import { parseBvmPsbt, scriptKindOf, type BvmPsbtOutput, type ParsedBvmPsbt } from './bvmPsbt.ts';

/** One item of a `transaction` step, with its `data.psbt` when that is a string. */
export interface BvmItem {
  ref: StepItemRef;
  /** `steps[i].items[j]`, for details. */
  path: string;
  status: string;
  data: Record<string, unknown>;
  psbtHex: string | undefined;
}

/** The quote's transaction items and its step-level problems (see {@link collectBvmSteps}). */
export interface BvmSteps {
  items: BvmItem[];
  stepProblems: string[];
}

/**
 * Collects every item of every `transaction` step ({@link collectStepItems}). `signature` steps are reported in
 * `stepProblems` instead; a non-empty `depositAddress` (not locally verifiable) or a `requestId` other than the
 * quote's is reported there too, while the step's items are still collected. Item statuses are left to the
 * step rules (`bvmSteps.ts`).
 */
export function collectBvmSteps(quote: QuoteResponse): BvmSteps {
  return collectStepItems<BvmItem>(quote, { expected: 'only one transaction is expected', requireIncomplete: false }, (item, ref, path) => {
    const psbt = item.data['psbt'];
    return { ref, path, status: item.status, data: item.data, psbtHex: typeof psbt === 'string' ? psbt : undefined };
  });
}

/** Our Bitcoin wallet: the address we sent as `user`, its network and output script (P2WPKH or P2TR). */
export interface BvmWallet {
  address: string;
  network: Network;
  script: Uint8Array;
  kind: 'p2wpkh' | 'p2tr';
}

/**
 * Resolves `expect.user` to a {@link BvmWallet}.
 *
 * @returns the wallet, or a string saying why the address cannot be our depositing wallet
 */
export function readBvmWallet(user: string): BvmWallet | string {
  const network = bitcoinNetworkOf(user);
  let script: Uint8Array;
  try {
    script = bitcoinOutputScript(user);
  } catch {
    return `expect.user ${user} is not a Bitcoin address`;
  }
  const kind = scriptKindOf(script);
  if (!network || kind === 'other') return `expect.user ${user} is neither P2WPKH nor P2TR; Ballast signs only those`;
  return { address: user, network, script, kind };
}

/** The deposit found by {@link locateBvmDeposit}. */
export interface BvmDeposit {
  item: BvmItem;
  psbt: ParsedBvmPsbt;
  /** The one output paying the depository. */
  output: BvmPsbtOutput;
}

/** Outcome of {@link locateBvmDeposit}. `psbt` is set whenever the item's PSBT parsed, even if `deposit-call` failed. */
export interface LocatedBvmDeposit {
  result: RuleResult;
  deposit: BvmDeposit | null;
  item: BvmItem | null;
  psbt: ParsedBvmPsbt | null;
  /** The depository's output script; null when GET /chains names no valid Bitcoin address. */
  depositoryScript: Uint8Array | null;
}

/**
 * `deposit-call`: exactly one step item carries `data.psbt`; its `data.chainId`, when given, is the payment
 * chain's id; the PSBT parses; and exactly one output pays the depository address's script.
 *
 * @param items every transaction item of the quote
 * @param depository the payment chain's depository from GET /chains (a Bitcoin address)
 * @param chain the payment chain from GET /chains
 * @param wallet our wallet, or why `expect.user` is unusable (then addresses render on the depository's network)
 */
export function locateBvmDeposit(
  items: readonly BvmItem[],
  depository: string,
  chain: Chain,
  wallet: BvmWallet | string,
): LocatedBvmDeposit {
  let depositoryScript: Uint8Array | null = null;
  try {
    depositoryScript = bitcoinOutputScript(depository);
  } catch {
    // reported below, once the PSBT is read
  }
  const out = (detail: string, rest: Partial<LocatedBvmDeposit> = {}): LocatedBvmDeposit => ({
    result: fail('deposit-call', detail),
    deposit: null,
    item: null,
    psbt: null,
    depositoryScript,
    ...rest,
  });
  const candidates = items.filter((i) => i.psbtHex !== undefined);
  const item = candidates[0];
  if (!item) return out(`no step item carries data.psbt (${items.length} item(s)); a Bitcoin deposit is one PSBT`);
  if (candidates.length > 1) {
    return out(`${candidates.length} step items carry a PSBT (${candidates.map((c) => c.path).join(', ')}); expected exactly one`);
  }
  const chainId = item.data['chainId'];
  if (chainId !== undefined && chainId !== chain.id) {
    return out(`${item.path}.data.chainId is ${JSON.stringify(chainId)}, expected payment chain ${chain.id}`, { item });
  }
  const network = typeof wallet === 'string' ? (bitcoinNetworkOf(depository) ?? networks.bitcoin) : wallet.network;
  const parsed = parseBvmPsbt(item.psbtHex ?? '', network);
  if (!parsed.psbt) return out(`${item.path}: ${parsed.problem}`, { item });
  const psbt = parsed.psbt;
  if (!depositoryScript) {
    return out(`depository ${depository} (GET /chains, chain ${chain.id}) is not a Bitcoin address`, { item, psbt });
  }
  const script = depositoryScript;
  const paying = psbt.outputs.filter((o) => sameScript(o.script, script));
  const only = paying[0];
  if (!only) return out(`${item.path}: no PSBT output pays depository ${depository} (from GET /chains)`, { item, psbt });
  if (paying.length > 1) {
    const which = paying.map((o) => o.index).join(', ');
    return out(`${item.path}: outputs ${which} all pay depository ${depository}; expected exactly one`, { item, psbt });
  }
  return {
    result: pass(
      'deposit-call',
      `${item.path}: PSBT with ${psbt.inputs.length} input(s), ${psbt.outputs.length} output(s); output ${only.index} pays depository ${depository}`,
    ),
    deposit: { item, psbt, output: only },
    item,
    psbt,
    depositoryScript,
  };
}
