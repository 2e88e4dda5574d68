/**
 * Tampering of Solana- and Bitcoin-origin quotes after they were built and signed, so that a client's local
 * verification (docs/relay-contract.md "Local quote verification"; the Solana and Bitcoin deposit rules) must catch it. Each
 * kind changes one thing of the origin transaction and leaves the order alone:
 *
 * | kind | what changes | rule that must refuse it |
 * |---|---|---|
 * | psbtExtraOutput | an output paying a stranger 1000 sat, taken from the change | change |
 * | psbtAmount | the depository output 1000 sat lower, the change 1000 sat higher | deposit-kind |
 * | psbtDepository | the deposit output pays a stranger instead of the depository | deposit-call |
 * | psbtNoOpReturn | the order-id OP_RETURN output removed | deposit-id |
 * | psbtForeignInput | a stranger's coin added as the last input, its value added to the change | origin-inputs |
 * | psbtChangeStranger | the change output pays a stranger | change |
 * | psbtHighFee | the change cut so the fee rate is about 1000 sat/vB | fee-cap |
 * | psbtMinerFee | the change cut so the miner fee is 39 % of the payment (issue 22's reproduced case) | miner-fee-cap |
 * | svmExtraTransfer | a System transfer of 1 lamport from the user to a stranger, after the deposit | no-unexpected-steps |
 * | svmVault | the deposit's vault account (index 3) → a stranger's key | deposit-call |
 * | svmAmount | the deposit instruction's amount + 1 | deposit-kind |
 *
 * Order-level kinds of `TAMPER_KINDS` that need no EVM step (`minimumAmount`, `expiredDeadline`, `farDeadline`,
 * `paymentWeight`, `solver`, `orderSignature`, `detailsOutAmount`, `orderId`) apply too: the order is re-sealed
 * (id recomputed, written into the Solana instruction or the Bitcoin OP_RETURN, re-signed), like `tamper.ts`.
 */
import { PublicKey, SystemProgram } from '@solana/web3.js';
import { sha256 } from '@noble/hashes/sha2';
import { networks, payments, Psbt } from 'bitcoinjs-lib';
import { ECPairFactory } from 'ecpair';
import * as ecc from 'tiny-secp256k1';
import { bytesToHex, hexToBytes, type Hex, type LocalAccount } from 'viem';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import { isOpReturnScript, orderIdMemoScript } from '@ballast/protocol/protocol/bitcoinDeposit.ts';
import { signOrderId } from '@ballast/protocol/protocol/orderSignature.ts';
import type { AnyTamperKind } from '../faults.ts';
import { randomBytes32 } from './buildQuote.ts';
import type { SandboxChainTable } from './chainTable.ts';
import { STRANGER_ACCOUNT, STRANGER_ADDRESS } from './tamper.ts';
import type { BvmStepDataJson, ProtocolV2Json, SandboxQuoteResponse, SvmStepDataJson } from './types.ts';
import { regtestOutputScript } from './vmAddress.ts';
import { anySlugVmTypes, type SandboxNonEvmChain } from './vmChains.ts';

const seed = (label: string) => sha256(new TextEncoder().encode(label));
/** A Solana key nobody trusts (public key of a fixed seed). */
export const SVM_STRANGER = new PublicKey(seed('ballast-sandbox-svm-stranger')).toBase58();
/** A regtest P2WPKH address nobody trusts (key = sha256 of a fixed label). */
export const BVM_STRANGER = (() => {
  const key = ECPairFactory(ecc).fromPrivateKey(seed('ballast-sandbox-bvm-stranger'));
  const pay = payments.p2wpkh({ pubkey: key.publicKey, network: networks.regtest });
  if (!pay.address || !pay.output) throw new Error('p2wpkh of a public key always has an address and an output');
  return { address: pay.address, script: pay.output };
})();

/** What tampering needs beyond the quote. */
export interface VmTamperContext {
  chains: SandboxChainTable;
  vmChains: readonly SandboxNonEvmChain[];
  solver: LocalAccount;
  /** Current time, unix seconds. */
  nowSec: number;
  random?: () => Hex;
}

/** A Solana- or Bitcoin-origin quote. */
export type VmOriginQuote = SandboxQuoteResponse<SvmStepDataJson> | SandboxQuoteResponse<BvmStepDataJson>;

/** Result of {@link tamperVmQuote}. `applied` is false (with a reason) when the kind does not fit the quote. */
export interface VmTamperResult<Q> {
  response: Q;
  applied: boolean;
  reason: string;
}

type PsbtOut = { script: Uint8Array; value: bigint };
type PsbtIn = { hash: Uint8Array; index: number; sequence: number; witnessUtxo: PsbtOut };

/** Rebuilds a PSBT after `edit` changed its inputs and outputs (witnessUtxo kept per input). */
export function editPsbt(hex: string, edit: (inputs: PsbtIn[], outputs: PsbtOut[]) => void): string {
  const before = Psbt.fromHex(hex, { network: networks.regtest });
  const inputs: PsbtIn[] = before.txInputs.map((txIn, i) => {
    const utxo = before.data.inputs[i]?.witnessUtxo;
    if (!utxo) throw new Error(`sandbox PSBT input ${i} has no witnessUtxo`); // buildDepositPsbt always sets it
    return {
      hash: txIn.hash,
      index: txIn.index,
      sequence: txIn.sequence ?? 0xffffffff,
      witnessUtxo: { script: utxo.script, value: utxo.value },
    };
  });
  const outputs: PsbtOut[] = before.txOutputs.map((o) => ({ script: o.script, value: o.value }));
  edit(inputs, outputs);
  const after = new Psbt({ network: networks.regtest });
  for (const input of inputs) after.addInput(input);
  for (const output of outputs) after.addOutput(output);
  return after.toHex();
}

/** The deposit instruction of Solana step data: the one whose data is 48 bytes (96 hex digits). */
function depositInstruction(data: SvmStepDataJson): SvmStepDataJson['instructions'][number] | undefined {
  return data.instructions.find((ix) => ix.data.length === 96);
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Writes the order id into the origin step: the Solana deposit data's id, or the Bitcoin OP_RETURN. */
function writeOrderId(q: VmOriginQuote, orderId: Hex): void {
  const data = q.steps[0]?.items[0]?.data;
  if (!data) return;
  if ('psbt' in data) {
    data.psbt = editPsbt(data.psbt, (_ins, outs) => {
      const memo = outs.find((o) => isOpReturnScript(o.script));
      if (memo) memo.script = orderIdMemoScript(orderId);
    });
    return;
  }
  const ix = depositInstruction(data);
  if (ix) ix.data = ix.data.slice(0, 32) + orderId.slice(2).toLowerCase();
}

async function reseal(q: VmOriginQuote, v2: ProtocolV2Json, ctx: VmTamperContext): Promise<void> {
  v2.orderId = computeOrderId(v2.orderData, anySlugVmTypes(ctx.chains, ctx.vmChains));
  writeOrderId(q, v2.orderId);
  v2.orderSignature = await signOrderId(ctx.solver, v2.orderId);
}

/** Applies a PSBT tamper; returns a reason when it does not fit. */
function tamperPsbt(data: BvmStepDataJson, kind: AnyTamperKind, depository: Uint8Array, amount: bigint): string | null {
  let problem: string | null = null;
  data.psbt = editPsbt(data.psbt, (ins, outs) => {
    const deposit = outs.find((o) => sameBytes(o.script, depository) && o.value === amount);
    const change = outs.find((o) => o !== deposit && !isOpReturnScript(o.script));
    const userScript = ins[0]?.witnessUtxo.script;
    switch (kind) {
      case 'psbtExtraOutput':
        if (!change || change.value < 2_000n) return void (problem = 'psbtExtraOutput needs a change output of at least 2000 sat');
        change.value -= 1_000n;
        outs.push({ script: BVM_STRANGER.script, value: 1_000n });
        return;
      case 'psbtAmount':
        if (!deposit) return void (problem = 'no deposit output');
        deposit.value -= 1_000n;
        if (change) change.value += 1_000n;
        return;
      case 'psbtDepository':
        if (!deposit) return void (problem = 'no deposit output');
        deposit.script = BVM_STRANGER.script;
        return;
      case 'psbtNoOpReturn': {
        const at = outs.findIndex((o) => isOpReturnScript(o.script));
        if (at < 0) return void (problem = 'the PSBT has no OP_RETURN');
        outs.splice(at, 1);
        return;
      }
      case 'psbtForeignInput':
        if (!change) return void (problem = 'psbtForeignInput needs a change output to carry the extra value');
        ins.push({
          hash: hexToBytes(`0x${'cd'.repeat(32)}`),
          index: 0,
          sequence: 0xfffffffd,
          witnessUtxo: { script: BVM_STRANGER.script, value: 50_000n },
        });
        change.value += 50_000n;
        return;
      case 'psbtChangeStranger':
        if (!change || !userScript || !sameBytes(change.script, userScript))
          return void (problem = 'psbtChangeStranger needs a change output');
        change.script = BVM_STRANGER.script;
        return;
      case 'psbtHighFee': {
        // ~1000 sat/vB on a transaction of at most ~400 vB: 400 000 sat more fee than the honest one.
        const extra = 400_000n;
        if (!change || change.value < extra + 330n) return void (problem = 'psbtHighFee needs a change output above 400330 sat');
        change.value -= extra;
        return;
      }
      case 'psbtMinerFee': {
        // The fee becomes 39 % of the payment: inputs − outputs = 0.39 × amount, the rest of the change kept.
        const inSat = ins.reduce((sum, i) => sum + i.witnessUtxo.value, 0n);
        const outSat = outs.reduce((sum, o) => sum + o.value, 0n);
        const extra = (amount * 39n) / 100n - (inSat - outSat);
        if (!change || extra <= 0n || change.value < extra + 330n)
          return void (problem = `psbtMinerFee needs a change output above ${extra + 330n} sat`);
        change.value -= extra;
        return;
      }
      default:
        problem = `${kind} is not a Bitcoin tamper`;
    }
  });
  return problem;
}

/** Applies a Solana instruction tamper; returns a reason when it does not fit. */
function tamperInstructions(data: SvmStepDataJson, kind: AnyTamperKind, user: string): string | null {
  const deposit = depositInstruction(data);
  if (!deposit) return 'no deposit instruction';
  switch (kind) {
    case 'svmExtraTransfer': {
      const ix = SystemProgram.transfer({ fromPubkey: new PublicKey(user), toPubkey: new PublicKey(SVM_STRANGER), lamports: 1 });
      data.instructions.push({
        keys: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
        programId: ix.programId.toBase58(),
        data: Buffer.from(ix.data).toString('hex'),
      });
      return null;
    }
    case 'svmVault': {
      const vault = deposit.keys[3];
      if (!vault) return 'the deposit instruction has no vault account';
      vault.pubkey = SVM_STRANGER;
      return null;
    }
    case 'svmAmount': {
      const bytes = hexToBytes(`0x${deposit.data}`);
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      view.setBigUint64(8, view.getBigUint64(8, true) + 1n, true);
      deposit.data = bytesToHex(bytes).slice(2);
      return null;
    }
    default:
      return `${kind} is not a Solana tamper`;
  }
}

/**
 * Returns a tampered copy of a Solana- or Bitcoin-origin quote; the input is not modified.
 *
 * @param kind one of the kinds above (a VM kind of the other VM, or an EVM-only kind, is not applied)
 * @returns the copy and whether the kind applied (with the reason when not)
 */
export async function tamperVmQuote<Q extends VmOriginQuote>(
  response: Q,
  kind: AnyTamperKind,
  ctx: VmTamperContext,
): Promise<VmTamperResult<Q>> {
  const q = structuredClone(response);
  const notApplied = (reason: string): VmTamperResult<Q> => ({ response: q, applied: false, reason });
  const v2 = q.protocol?.v2;
  const data = q.steps[0]?.items[0]?.data;
  if (!v2 || !data) return notApplied('the quote has no protocol.v2 or no step data (request includeProtocolData: true)');
  const payment = v2.orderData.output.payments[0];
  const input = v2.orderData.inputs[0];
  if (!payment || !input) throw new Error('sandbox orders have one input and one output payment'); // buildOrderData invariant
  let problem: string | null = null;
  switch (kind) {
    case 'minimumAmount':
      payment.minimumAmount = '1';
      q.details.currencyOut.minimumAmount = '1';
      break;
    case 'expiredDeadline':
      v2.orderData.output.deadline = ctx.nowSec - 60;
      break;
    case 'farDeadline':
      v2.orderData.output.deadline = 2 ** 32 - 1;
      for (const refund of input.refunds) refund.deadline = 2 ** 32 - 1;
      break;
    case 'paymentWeight':
      input.payment.weight = '2';
      break;
    case 'solver':
      v2.orderData.solver = STRANGER_ADDRESS;
      break;
    case 'orderSignature':
      v2.orderSignature = await signOrderId(STRANGER_ACCOUNT, v2.orderId);
      return { response: q, applied: true, reason: '' };
    case 'detailsOutAmount':
      q.details.currencyOut.amount = (BigInt(q.details.currencyOut.amount) * 1000n).toString();
      return { response: q, applied: true, reason: '' };
    case 'orderId':
      v2.orderId = (ctx.random ?? randomBytes32)();
      writeOrderId(q, v2.orderId);
      v2.orderSignature = await signOrderId(ctx.solver, v2.orderId);
      return { response: q, applied: true, reason: '' };
    default:
      if ('psbt' in data) {
        const depository = ctx.vmChains.find((c) => c.slug === input.payment.chainId)?.depository;
        const script = depository === undefined ? null : regtestOutputScript(depository);
        problem = script ? tamperPsbt(data, kind, script, BigInt(input.payment.amount)) : 'the payment chain has no regtest depository';
      } else {
        problem = tamperInstructions(data, kind, q.details.sender);
      }
      return problem === null ? { response: q, applied: true, reason: '' } : notApplied(problem);
  }
  await reseal(q, v2, ctx);
  return { response: q, applied: true, reason: '' };
}
