/**
 * Output-script helpers for the sandbox's Bitcoin node: the script type under Esplora's names
 * (`v0_p2wpkh`, `v1_p2tr`, `op_return`, …), the data an OP_RETURN carries, and the script in Esplora's
 * assembly notation (`OP_0 OP_PUSHBYTES_20 <hex>`). Pure: no I/O.
 */
import { opcodes } from 'bitcoinjs-lib';

/** Script types as Esplora's `scriptpubkey_type` names them. */
export type EsploraScriptType = 'p2pk' | 'p2pkh' | 'p2sh' | 'v0_p2wpkh' | 'v0_p2wsh' | 'v1_p2tr' | 'op_return' | 'empty' | 'unknown';

const OP_0 = 0x00;
const OP_PUSHDATA1 = 0x4c;
const OP_PUSHDATA2 = 0x4d;
const OP_PUSHDATA4 = 0x4e;
const OP_1NEGATE = 0x4f;
const OP_RESERVED = 0x50;
const OP_1 = 0x51;
const OP_16 = 0x60;
const OP_RETURN = 0x6a;
const OP_DUP = 0x76;
const OP_EQUAL = 0x87;
const OP_EQUALVERIFY = 0x88;
const OP_HASH160 = 0xa9;
const OP_CHECKSIG = 0xac;

/**
 * The type of an output script, by its exact byte pattern.
 *
 * @param script scriptPubKey bytes
 * @returns Esplora's name for it; `unknown` for anything not listed (including future witness versions)
 */
export function classifyScript(script: Uint8Array): EsploraScriptType {
  const n = script.length;
  if (n === 0) return 'empty';
  if (script[0] === OP_RETURN) return 'op_return';
  if (
    n === 25 &&
    script[0] === OP_DUP &&
    script[1] === OP_HASH160 &&
    script[2] === 20 &&
    script[23] === OP_EQUALVERIFY &&
    script[24] === OP_CHECKSIG
  ) {
    return 'p2pkh';
  }
  if (n === 23 && script[0] === OP_HASH160 && script[1] === 20 && script[22] === OP_EQUAL) return 'p2sh';
  if (n === 22 && script[0] === OP_0 && script[1] === 20) return 'v0_p2wpkh';
  if (n === 34 && script[0] === OP_0 && script[1] === 32) return 'v0_p2wsh';
  if (n === 34 && script[0] === OP_1 && script[1] === 32) return 'v1_p2tr';
  if ((n === 35 && script[0] === 33) || (n === 67 && script[0] === 65)) {
    if (script[n - 1] === OP_CHECKSIG) return 'p2pk';
  }
  return 'unknown';
}

/**
 * The witness program of a P2WPKH, P2WSH or P2TR script (the 20 or 32 bytes after version and push).
 *
 * @returns the program, or null for other script types
 */
export function witnessProgram(script: Uint8Array): Uint8Array | null {
  const type = classifyScript(script);
  if (type === 'v0_p2wpkh' || type === 'v0_p2wsh' || type === 'v1_p2tr') return script.subarray(2);
  return null;
}

/** One element of a parsed script: a data push (with its opcode) or a bare opcode. */
type ScriptOp = { op: number; data: Uint8Array } | { op: number; data: null };

/**
 * Splits a script into pushes and opcodes.
 *
 * @returns the elements parsed, and whether a push ran past the end of the script (parsing stops there)
 */
function parseScript(script: Uint8Array): { ops: ScriptOp[]; truncated: boolean } {
  const ops: ScriptOp[] = [];
  const truncated = { ops, truncated: true };
  let i = 0;
  while (i < script.length) {
    const op = script[i]!; // i < length
    i += 1;
    let len = -1;
    if (op > OP_0 && op < OP_PUSHDATA1) len = op;
    else if (op === OP_PUSHDATA1) {
      if (i + 1 > script.length) return truncated;
      len = script[i]!; // bounds checked just above
      i += 1;
    } else if (op === OP_PUSHDATA2) {
      if (i + 2 > script.length) return truncated;
      len = script[i]! | (script[i + 1]! << 8); // bounds checked just above
      i += 2;
    } else if (op === OP_PUSHDATA4) {
      if (i + 4 > script.length) return truncated;
      len = (script[i]! | (script[i + 1]! << 8) | (script[i + 2]! << 16)) + script[i + 3]! * 0x1000000; // bounds checked
      i += 4;
    }
    if (len >= 0) {
      if (i + len > script.length) return truncated;
      ops.push({ op, data: script.subarray(i, i + len) });
      i += len;
    } else {
      ops.push({ op, data: null });
    }
  }
  return { ops, truncated: false };
}

/**
 * The data an OP_RETURN output carries: every push after the OP_RETURN, concatenated (the usual single push
 * of, e.g., a 66-byte order-id memo comes back as those 66 bytes); OP_1..OP_16 and OP_1NEGATE count as
 * one-byte pushes of their number.
 *
 * @returns the data (possibly empty), or null when the script is not OP_RETURN, a push is truncated, or a
 *   non-push opcode follows
 */
export function opReturnData(script: Uint8Array): Uint8Array | null {
  if (script[0] !== OP_RETURN) return null;
  const parsed = parseScript(script.subarray(1));
  if (parsed.truncated) return null;
  const parts: Uint8Array[] = [];
  for (const item of parsed.ops) {
    if (item.data !== null) parts.push(item.data);
    else if (item.op === OP_1NEGATE) parts.push(Uint8Array.of(0x81));
    else if (item.op >= OP_1 && item.op <= OP_16) parts.push(Uint8Array.of(item.op - OP_1 + 1));
    else if (item.op !== OP_0 && item.op !== OP_RESERVED) return null; // Core's IsPushOnly: every opcode up to OP_16
  }
  return Uint8Array.from(Buffer.concat(parts));
}

/** Opcode names from bitcoinjs, reversed (value → name), first name wins. */
const OPCODE_NAMES: Map<number, string> = (() => {
  const names = new Map<number, string>();
  // A numeric TypeScript enum: its entries include the reverse (value → name) mappings, skipped here.
  for (const [name, value] of Object.entries(opcodes)) if (typeof value === 'number' && !names.has(value)) names.set(value, name);
  names.set(OP_0, 'OP_0');
  names.set(OP_1NEGATE, 'OP_PUSHNUM_NEG1');
  for (let v = OP_1; v <= OP_16; v++) names.set(v, `OP_PUSHNUM_${v - OP_1 + 1}`);
  names.set(0xb1, 'OP_CLTV');
  names.set(0xb2, 'OP_CSV');
  return names;
})();

/**
 * A script in Esplora's assembly notation (as rust-bitcoin prints it), e.g.
 * `OP_0 OP_PUSHBYTES_20 751e76…`, `OP_RETURN OP_PUSHDATA1 3078…`, `OP_PUSHNUM_1 OP_PUSHBYTES_32 …`.
 *
 * @returns the text; a truncated push ends with `<push past end>`
 */
export function scriptAsm(script: Uint8Array): string {
  const parsed = parseScript(script);
  const words = parsed.ops.map((item) => {
    if (item.data === null) return OPCODE_NAMES.get(item.op) ?? `OP_UNKNOWN_${item.op}`;
    const hex = Buffer.from(item.data).toString('hex');
    if (item.op < OP_PUSHDATA1) return `OP_PUSHBYTES_${item.op} ${hex}`;
    const name = item.op === OP_PUSHDATA1 ? 'OP_PUSHDATA1' : item.op === OP_PUSHDATA2 ? 'OP_PUSHDATA2' : 'OP_PUSHDATA4';
    return `${name} ${hex}`;
  });
  if (parsed.truncated) words.push('<push past end>');
  return words.join(' ');
}
