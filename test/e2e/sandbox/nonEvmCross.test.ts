/**
 * End-to-end: Solana ⇄ Bitcoin through the sandbox (both nodes plus the anvil chains; Bitcoin blocks mined by
 * the test). The order names an EVM chain as the solver's (real non-EVM orders do), both legs' extraData are
 * empty, and refunds name each chain's own wallet. Also the `neverFill` fault on a Bitcoin deposit.
 */
import { networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import {
  BITCOIN_ID,
  bitcoinUtxos,
  broadcastBitcoin,
  BTC,
  chains,
  ECPair,
  expectedOut,
  failed,
  fundedSolanaWallet,
  quote,
  sendSolanaDeposit,
  signPsbt,
  SOL,
  SOLANA_ID,
  status,
  statusUntil,
  terminal,
  verify,
} from './nonEvmKit.ts';

let s: Sandbox;

beforeAll(async () => {
  s = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 0, faults: { fillDelayMs: 0 } });
});
afterAll(async () => {
  await s?.stop();
});

const freshBitcoinAddress = () =>
  payments.p2wpkh({ pubkey: ECPair.makeRandom({ network: networks.regtest }).publicKey, network: networks.regtest }).address!; // p2wpkh of a key has an address

/** A quote request paying `amountSats` of BTC from the sandbox's Bitcoin treasury to its Solana treasury, in SOL. */
const bitcoinToSolana = (amountSats: bigint) => ({
  user: s.bitcoin!.treasury.address,
  recipient: s.solana!.treasury.address,
  originChainId: BITCOIN_ID,
  destinationChainId: SOLANA_ID,
  originCurrency: BTC,
  destinationCurrency: SOL,
  amount: amountSats.toString(),
});

describe('sandbox with Solana and Bitcoin', () => {
  it('GET /chains lists both non-EVM chains after the EVM ones', async () => {
    const doc = await chains(s);
    expect(doc.chains.map((c) => [c.id, c.vmType, c.protocol?.v2?.chainId])).toEqual([
      [31001, 'evm', 'alpha'],
      [31002, 'evm', 'beta'],
      [SOLANA_ID, 'svm', 'solana'],
      [BITCOIN_ID, 'bvm', 'bitcoin'],
    ]);
  });

  it('Solana → Bitcoin: SOL deposit verifies and is filled in BTC by a mined transaction', async () => {
    const user = await fundedSolanaWallet(s, 10_000_000_000n);
    const to = freshBitcoinAddress();
    const amount = 4_000_000_000n; // 4 SOL ≈ 600 USD
    const q = await quote(s, {
      user: user.publicKey.toBase58(),
      recipient: to,
      originChainId: SOLANA_ID,
      destinationChainId: BITCOIN_ID,
      originCurrency: SOL,
      destinationCurrency: BTC,
      amount: amount.toString(),
    });
    const order = q.protocol!.v2!.orderData;
    expect(order.solverChainId).toBe('alpha');
    expect([order.output.extraData, ...order.inputs[0]!.refunds.map((r) => r.extraData)]).toEqual(['0x', '0x', '0x']);
    expect(order.inputs[0]!.refunds.map((r) => r.recipient)).toEqual([user.publicKey.toBase58(), to]);
    const expectations = {
      user: user.publicKey.toBase58(),
      recipient: to,
      amount,
      originChainId: SOLANA_ID,
      destinationChainId: BITCOIN_ID,
      destinationCurrency: BTC,
    };
    expect(failed(await verify(s, q, expectations, { lookupTables: {} }))).toEqual([]);
    const signature = await sendSolanaDeposit(s, q, user);
    const submitted = await statusUntil(s, q.requestId!, (st) => st.status === 'submitted');
    expect(submitted.inTxHashes).toEqual([signature]);
    s.bitcoin!.node.mine(1);
    expect((await terminal(s, q.requestId!)).status).toBe('success');
    expect(s.bitcoin!.node.balance(to)).toBe(expectedOut(q));
  });

  it('Bitcoin → Solana: BTC deposit verifies, fills SOL after one block', async () => {
    const treasury = s.bitcoin!.treasury;
    const recipient = s.solana!.treasury.address;
    const amount = 1_000_000n; // 0.01 BTC ≈ 600 USD
    const q = await quote(s, bitcoinToSolana(amount));
    const expectations = {
      user: treasury.address,
      recipient,
      amount,
      originChainId: BITCOIN_ID,
      destinationChainId: SOLANA_ID,
      destinationCurrency: SOL,
    };
    expect(failed(await verify(s, q, expectations, await bitcoinUtxos(s, treasury.address)))).toEqual([]);
    const before = s.solana!.node.balance(recipient);
    const { hex, txid } = signPsbt(q, treasury.wif);
    await broadcastBitcoin(s, hex);
    expect((await statusUntil(s, q.requestId!, (st) => st.status !== 'waiting')).status).toBe('pending');
    s.bitcoin!.node.mine(1);
    const done = await terminal(s, q.requestId!);
    expect(done).toMatchObject({ status: 'success', inTxHashes: [txid] });
    expect(s.solana!.node.balance(recipient) - before).toBe(expectedOut(q));
  });

  it('neverFill: a confirmed Bitcoin deposit stays pending, nothing is paid', async () => {
    s.setFaults({ neverFill: true });
    const treasury = s.bitcoin!.treasury;
    const recipient = s.solana!.treasury.address;
    const q = await quote(s, bitcoinToSolana(500_000n));
    const before = s.solana!.node.balance(recipient);
    await broadcastBitcoin(s, signPsbt(q, treasury.wif).hex);
    await statusUntil(s, q.requestId!, (st) => st.status === 'pending');
    s.bitcoin!.node.mine(2);
    await new Promise((r) => setTimeout(r, 600));
    expect((await status(s, q.requestId!)).status).toBe('pending');
    expect(s.solana!.node.balance(recipient)).toBe(before);
    s.resetFaults();
  });
});
