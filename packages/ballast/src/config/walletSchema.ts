/**
 * zod schema of one wallet (`wallets.<name>`), one strict object per VM family, discriminated by `vm` (default
 * `evm`). Each has exactly one key source: `privateKey` (normally `${ENV_VAR}`) or `keyFile` (the key on this host),
 * or a key service under `signer` (src/config/signerSchema.ts, docs/keys.md); and an `address` that loading compares
 * with the address derived from the key (required with a key service, checked against its public key at start). The schema checks shapes only; key
 * formats are checked when the key is loaded (`wallets.ts`), so key text never reaches a zod message.
 */
import { z } from 'zod';
import { BVM_ADDRESS_TYPES, BVM_NETWORKS } from '../chains/bvm/wallet.ts';
import { unsupportedVmMessage } from './chainSchema.ts';
import { SignerSchema } from './signerSchema.ts';

const keyFields = (keyText: string, fileText: string) => ({
  signer: SignerSchema.optional(),
  privateKey: z
    .string({ error: 'expected a string; use ${ENV_VAR}' })
    .optional()
    .describe(`${keyText}; use \${ENV_VAR}, never a literal in a shared file`),
  keyFile: z
    .string({ error: 'expected a file path' })
    .min(1)
    .optional()
    .describe(`${fileText} (mode 600 or 400); relative to the config file`),
});

const address = (what: string) =>
  z.string({ error: 'expected an address string' }).optional().describe(`expected ${what}; loading fails when the key derives another one`);

/** An EVM wallet (secp256k1 key, 0x address). */
export const EvmWalletSchema = z
  .strictObject({
    vm: z.literal('evm').default('evm').describe('VM family of the wallet; default evm'),
    ...keyFields('0x-prefixed 32-byte hex private key', 'file holding the hex private key'),
    address: address('address (0x…, EIP-55 checksum if mixed case)'),
  })
  .describe('an EVM signing wallet');

/** A Solana wallet (ed25519 secret key, base58 address). */
export const SvmWalletSchema = z
  .strictObject({
    vm: z.literal('svm').describe('Solana wallet'),
    ...keyFields(
      'base58 of the 64-byte secret key, as Phantom exports it',
      'JSON array of the 64 secret-key bytes, as `solana-keygen new -o` writes it',
    ),
    address: address('base58 address (case-sensitive)'),
  })
  .describe('a Solana signing wallet');

/** A Bitcoin wallet (WIF key, P2WPKH or P2TR key-path address). */
export const BvmWalletSchema = z
  .strictObject({
    vm: z.literal('bvm').describe('Bitcoin wallet'),
    ...keyFields('WIF private key (compressed)', 'file holding the WIF private key'),
    addressType: z
      .enum(BVM_ADDRESS_TYPES, { error: `expected one of ${BVM_ADDRESS_TYPES.join(', ')}` })
      .default('p2wpkh')
      .describe('p2wpkh (bc1q…, native segwit) or p2tr (bc1p…, taproot key path per BIP-86)'),
    network: z
      .enum(BVM_NETWORKS, { error: `expected one of ${BVM_NETWORKS.join(', ')}` })
      .default('mainnet')
      .describe('Bitcoin network; the WIF must be a key of this network (mainnet vs testnet/regtest)'),
    address: address('bech32 address, lower case'),
  })
  .describe('a Bitcoin signing wallet');

/** One wallet, by VM family. An unsupported `vm` is an error naming the supported ones. */
export const WalletSchema = z
  .discriminatedUnion('vm', [EvmWalletSchema, SvmWalletSchema, BvmWalletSchema], {
    error: (iss) => unsupportedVmMessage(iss.input, 'wallets'),
  })
  .describe('a signing wallet');

/** One wallet as written in the file. */
export type WalletConfig = z.output<typeof WalletSchema>;
/** An EVM wallet as written in the file. */
export type EvmWalletConfig = z.output<typeof EvmWalletSchema>;
/** A Solana wallet as written in the file. */
export type SvmWalletConfig = z.output<typeof SvmWalletSchema>;
/** A Bitcoin wallet as written in the file. */
export type BvmWalletConfig = z.output<typeof BvmWalletSchema>;
