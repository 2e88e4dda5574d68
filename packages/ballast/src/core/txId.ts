/**
 * Transaction ids across VM families: EVM hashes and Bitcoin txids are hex (case carries no meaning), Solana
 * signatures are base58 (case is part of the value).
 */

const HEX_RE = /^(0x)?[0-9a-fA-F]+$/;

/**
 * Whether two transaction ids name the same transaction: hex ids compare case-insensitively (with or without
 * `0x`, as APIs write Bitcoin txids both ways), anything else exactly.
 */
export function sameTxId(a: string, b: string): boolean {
  if (HEX_RE.test(a) && HEX_RE.test(b)) return a.toLowerCase().replace(/^0x/, '') === b.toLowerCase().replace(/^0x/, '');
  return a === b;
}
