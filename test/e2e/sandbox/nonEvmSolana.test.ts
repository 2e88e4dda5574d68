/**
 * End-to-end: the sandbox API and solver with Solana (litesvm node) next to the anvil chains. Each route is
 * quoted, the quote passes Ballast's verifier (Solana origins with their lookup tables read: none named), the
 * deposit is signed with plain web3.js or viem, and the solver fills: balances move on both sides and the status
 * ends `success`. Also: request validation, the SOLANA_TX_TOO_LARGE re-quote sequence, refunds and failures of
 * Solana deposits, POST /transactions/index with a signature, and tampered Solana quotes refused before signing.
 */
import type { Keypair } from '@solana/web3.js';
import { erc20Abi, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestsResponseSchema } from '../../../packages/protocol/src/relay/schemas.ts';
import { startSandbox, type Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import {
  chains,
  expectedOut,
  failed,
  fundedSolanaWallet,
  postQuote,
  quote,
  quoteBody,
  sendEvmSteps,
  sendSolanaDeposit,
  SOL,
  SOLANA_ID,
  status,
  terminal,
  verify,
  ZERO,
} from './nonEvmKit.ts';

let s: Sandbox;

beforeAll(async () => {
  s = await startSandbox({ solana: true, faults: { fillDelayMs: 0 } });
});
afterAll(async () => {
  await s?.stop();
});

const alpha = () => s.chains[0]!;
const beta = () => s.chains[1]!;
const usdcOf = (who: Address) =>
  beta().publicClient.readContract({ address: beta().usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

/** A Solana-origin request body from `user` to the EVM extra account on beta. */
function fromSolana(user: Keypair, currency: string, amount: bigint, over: Record<string, unknown> = {}) {
  return {
    user: user.publicKey.toBase58(),
    recipient: s.accounts.extra[0]!.address,
    originChainId: SOLANA_ID,
    destinationChainId: beta().def.chainId,
    originCurrency: currency,
    destinationCurrency: currency === SOL ? ZERO : beta().usdc,
    amount: amount.toString(),
    ...over,
  };
}

describe('sandbox with Solana', () => {
  it('GET /chains lists solana (svm, depository program, SOL 9 dp, test USDC 6 dp) with the EVM solver', async () => {
    const doc = await chains(s);
    const solana = doc.chains.find((c) => c.id === SOLANA_ID)!;
    expect(solana).toMatchObject({
      name: 'solana',
      vmType: 'svm',
      protocol: { v2: { chainId: 'solana', depository: s.solana!.depositoryProgramId } },
    });
    expect(solana.currency).toMatchObject({ symbol: 'SOL', address: SOL, decimals: 9 });
    expect(solana.erc20Currencies!.map((c) => [c.symbol, c.address, c.decimals])).toEqual([['USDC', s.solana!.usdcMint, 6]]);
    expect(solana.solverAddresses).toEqual([s.accounts.solver.address.toLowerCase()]);
    expect(doc.chains.map((c) => c.vmType)).toEqual(['evm', 'evm', 'svm']);
  });

  it('EVM → Solana: alpha USDC to the Solana treasury verifies, deposits with viem and fills USDC on Solana', async () => {
    const recipient = s.solana!.treasury.address;
    const amount = 250_000_000n;
    const q = await quote(s, {
      user: s.accounts.treasury.address,
      recipient,
      originChainId: alpha().def.chainId,
      destinationChainId: SOLANA_ID,
      originCurrency: alpha().usdc,
      destinationCurrency: s.solana!.usdcMint,
      amount: amount.toString(),
    });
    const expectations = {
      user: s.accounts.treasury.address,
      recipient,
      originChainId: alpha().def.chainId,
      originCurrency: alpha().usdc,
      amount,
      destinationChainId: SOLANA_ID,
      destinationCurrency: s.solana!.usdcMint,
    };
    const verdict = await verify(s, q, expectations, {});
    expect(failed(verdict)).toEqual([]);
    const order = q.protocol!.v2!.orderData;
    expect(order.solverChainId).toBe('alpha');
    expect(order.inputs[0]!.refunds.map((r) => [r.chainId, r.recipient, r.extraData.length])).toEqual([
      ['alpha', s.accounts.treasury.address.toLowerCase(), 66],
      ['solana', recipient, 2],
    ]);
    const before = s.solana!.node.tokenBalance(recipient, s.solana!.usdcMint);
    const depositTx = await sendEvmSteps(s, q);
    const done = await terminal(s, q.requestId!);
    expect(done.status).toBe('success');
    expect(done.inTxHashes).toEqual([depositTx]);
    expect(done.txHashes[0]).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    expect(s.solana!.node.tokenBalance(recipient, s.solana!.usdcMint) - before).toBe(expectedOut(q));
  });

  it('Solana → EVM: SOL to ETH on beta verifies, signs with web3.js, and pays ETH; the vault keeps the SOL', async () => {
    const user = await fundedSolanaWallet(s, 5_000_000_000n);
    const amount = 1_000_000_000n;
    const q = await quote(s, fromSolana(user, SOL, amount));
    const recipient = s.accounts.extra[0]!.address;
    const expectations = {
      user: user.publicKey.toBase58(),
      recipient,
      originChainId: SOLANA_ID,
      originCurrency: SOL,
      amount,
      destinationChainId: beta().def.chainId,
      destinationCurrency: ZERO,
    };
    expect(failed(await verify(s, q, expectations, { lookupTables: {} }))).toEqual([]);
    const item = q.steps[0]!.items[0]!.data as {
      instructions: { programId: string; data: string }[];
      addressLookupTableAddresses: string[];
    };
    expect(item.addressLookupTableAddresses).toEqual([]);
    expect(item.instructions.map((ix) => [ix.programId, ix.data.slice(0, 16)])).toEqual([
      [s.solana!.depositoryProgramId, '0d9e0ddf5fd51c06'],
    ]);

    const vault = s.solana!.node.depository.vault;
    const [vaultBefore, ethBefore] = [s.solana!.node.balance(vault), await beta().publicClient.getBalance({ address: recipient })];
    const signature = await sendSolanaDeposit(s, q, user);
    const done = await terminal(s, q.requestId!);
    expect(done).toMatchObject({ status: 'success', inTxHashes: [signature], originChainId: SOLANA_ID });
    expect(s.solana!.node.balance(vault) - vaultBefore).toBe(amount);
    expect((await beta().publicClient.getBalance({ address: recipient })) - ethBefore).toBe(expectedOut(q));
    expect(s.solana!.node.balance(user.publicKey.toBase58())).toBe(5_000_000_000n - amount - 5_000n);

    const byUser = RequestsResponseSchema.parse(await (await fetch(`${s.apiUrl}/requests/v3?user=${user.publicKey.toBase58()}`)).json());
    expect(byUser.requests.map((r) => r.id)).toEqual([q.requestId]);
    const lower = RequestsResponseSchema.parse(
      await (await fetch(`${s.apiUrl}/requests/v3?user=${user.publicKey.toBase58().toLowerCase()}`)).json(),
    );
    expect(lower.requests).toEqual([]); // base58 is case-sensitive
  });

  it('Solana USDC → beta USDC: deposit_token from the user, fill in USDC; POST /transactions/index knows the signature', async () => {
    const user = await fundedSolanaWallet(s, 1_000_000_000n, 500_000_000n);
    const amount = 100_000_000n;
    const q = await quote(s, fromSolana(user, s.solana!.usdcMint, amount));
    const recipient = s.accounts.extra[0]!.address;
    const verdict = await verify(
      s,
      q,
      { user: user.publicKey.toBase58(), recipient, amount, destinationCurrency: beta().usdc },
      { lookupTables: {} },
    );
    expect(failed(verdict)).toEqual([]);
    const before = await usdcOf(recipient);
    const signature = await sendSolanaDeposit(s, q, user);
    expect((await terminal(s, q.requestId!)).status).toBe('success');
    expect((await usdcOf(recipient)) - before).toBe(expectedOut(q));
    expect(s.solana!.node.tokenBalance(user.publicKey.toBase58(), s.solana!.usdcMint)).toBe(400_000_000n);

    const index = (txHash: string) =>
      fetch(`${s.apiUrl}/transactions/index`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ chainId: SOLANA_ID, txHash }),
      });
    const hit = await index(signature);
    expect([hit.status, await hit.json()]).toEqual([200, { message: 'Transaction indexed', deposits: 1 }]);
    const unknown = await index('1'.repeat(64));
    expect(unknown.status).toBe(404);
    expect((await index(`0x${'ab'.repeat(32)}`)).status).toBe(400);
  });

  it('validates Solana addresses per VM: no 0x address, base58 of 32 bytes only, recipient required across VMs', async () => {
    const user = s.solana!.treasury.address;
    const cases: [Record<string, unknown>, string][] = [
      [fromSolana(s.solana!.treasury.keypair, SOL, 1_000_000_000n, { user: s.accounts.treasury.address }), 'user'],
      [fromSolana(s.solana!.treasury.keypair, SOL, 1_000_000_000n, { user: `${user.slice(0, -1)}l` }), 'user'], // 'l' is not base58
      [fromSolana(s.solana!.treasury.keypair, SOL, 1_000_000_000n, { recipient: user }), 'recipient'],
      [{ ...fromSolana(s.solana!.treasury.keypair, SOL, 1_000_000_000n), recipient: undefined }, 'recipient'],
      [
        {
          user: s.accounts.treasury.address,
          recipient: s.accounts.treasury.address,
          originChainId: alpha().def.chainId,
          destinationChainId: SOLANA_ID,
          originCurrency: alpha().usdc,
          destinationCurrency: s.solana!.usdcMint,
          amount: '1000000',
        },
        'recipient',
      ],
    ];
    for (const [body, field] of cases) {
      const { status: code, json } = await postQuote(s, quoteBody(body));
      expect([code, json.errorCode, json.errorData], JSON.stringify(json)).toEqual([400, 'INVALID_ADDRESS', field]);
      expect(String(json.message)).toContain(field);
    }
    const badMint = await postQuote(s, quoteBody(fromSolana(s.solana!.treasury.keypair, s.solana!.usdcMint.toLowerCase(), 1_000_000n)));
    expect([badMint.status, badMint.json.errorCode]).toEqual([400, 'UNSUPPORTED_CURRENCY']);
  });

  it('SOLANA_TX_TOO_LARGE: maxRouteLength 4 and 3 are refused with the size, a single swap source fits; the sandbox records the sequence', async () => {
    s.setFaults({ solanaTxTooLarge: { fitsAtMaxRouteLength: null, fitsWithSingleSource: true } });
    try {
      const user = s.solana!.treasury.keypair;
      const before = ((await (await fetch(`${s.apiUrl}/_sandbox/solana-quotes`)).json()) as { requests: unknown[] }).requests.length;
      for (const maxRouteLength of [4, 3]) {
        const { status: code, json } = await postQuote(s, quoteBody(fromSolana(user, SOL, 1_000_000_000n, { maxRouteLength })));
        expect([code, json.errorCode]).toEqual([400, 'SOLANA_TX_TOO_LARGE']);
        const [, size, over] = /(\d+) bytes, (\d+) bytes over the 1232-byte limit/.exec(String(json.message)) ?? [];
        expect(Number(size) - Number(over)).toBe(1232);
        expect(Number(over)).toBeGreaterThan(0);
      }
      const ok = await postQuote(
        s,
        quoteBody(fromSolana(user, SOL, 1_000_000_000n, { maxRouteLength: 3, includedOriginSwapSources: ['orca'] })),
      );
      expect(ok.status).toBe(200);
      const log = (
        (await (await fetch(`${s.apiUrl}/_sandbox/solana-quotes`)).json()) as {
          requests: { maxRouteLength: number | null; includedOriginSwapSources: string[] | null; outcome: string; sizeBytes: number }[];
        }
      ).requests.slice(before);
      expect(log.map((r) => [r.maxRouteLength, r.includedOriginSwapSources, r.outcome])).toEqual([
        [4, null, 'SOLANA_TX_TOO_LARGE'],
        [3, null, 'SOLANA_TX_TOO_LARGE'],
        [3, ['orca'], 'ok'],
      ]);
      expect(log[2]!.sizeBytes).toBeLessThanOrEqual(1232);
    } finally {
      s.resetFaults();
    }
  });

  it.each([
    ['svmExtraTransfer', 'no-unexpected-steps'],
    ['svmVault', 'deposit-call'],
    ['svmAmount', 'deposit-kind'],
    ['minimumAmount', 'min-output'],
    ['orderSignature', 'order-signature'],
  ] as const)('a quote tampered with %s is refused on %s (nothing is signed)', async (tamper, rule) => {
    s.setFaults({ tamper, tamperCount: 1, fillDelayMs: 0 });
    const user = s.solana!.treasury.keypair;
    const amount = 1_000_000_000n;
    const q = await quote(s, fromSolana(user, SOL, amount));
    const recipient = s.accounts.extra[0]!.address;
    const verdict = await verify(s, q, { user: user.publicKey.toBase58(), recipient, amount, minOut: 1_000n }, { lookupTables: {} });
    expect(verdict.ok).toBe(false);
    expect(failed(verdict)).toContain(rule);
    expect((await status(s, q.requestId!)).status).toBe('waiting');
    s.resetFaults();
    s.setFaults({ fillDelayMs: 0 });
  });

  it('refund fault: a Solana deposit is returned to refundTo (the user) in SOL; failure fault: it stays in the vault, withdrawable', async () => {
    const user = await fundedSolanaWallet(s, 3_000_000_000n);
    const address = user.publicKey.toBase58();
    s.setFaults({ refund: true, fillDelayMs: 0 });
    const refunded = await quote(s, { ...fromSolana(user, SOL, 1_000_000_000n), refundTo: address });
    await sendSolanaDeposit(s, refunded, user);
    const r = await terminal(s, refunded.requestId!);
    expect(r.status).toBe('refund');
    expect(s.solana!.node.balance(address)).toBe(3_000_000_000n - 5_000n); // deposit back; only the fee is gone

    s.setFaults({ refund: false, failure: true });
    const kept = await quote(s, fromSolana(user, SOL, 1_000_000_000n));
    const vaultBefore = s.solana!.node.balance(s.solana!.node.depository.vault);
    await sendSolanaDeposit(s, kept, user);
    expect((await terminal(s, kept.requestId!)).status).toBe('failure');
    expect(s.solana!.node.balance(s.solana!.node.depository.vault) - vaultBefore).toBe(1_000_000_000n);
    const record = RequestsResponseSchema.parse(await (await fetch(`${s.apiUrl}/requests/v3?id=${kept.requestId}`)).json()).requests[0]!;
    expect(record.protocol).toMatchObject({
      isWithdrawable: true,
      deposit: { origin: { depositor: address, chainId: SOLANA_ID, currency: SOL } },
    });
    s.resetFaults();
  });
});
