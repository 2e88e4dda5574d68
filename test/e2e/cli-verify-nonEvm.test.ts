/**
 * `ballast verify-quote` and `ballast order-id` on Solana- and Bitcoin-origin quotes saved from the sandbox: an
 * honest quote verifies (exit 0) with the origin facts in `--origin-facts`, a tampered PSBT is refused (exit 3)
 * naming the rule, missing facts are refused, and `order-id` prints the quote's order id.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';

const tmp = tempDir('ballast-verify-nonevm-');
let sandbox: Sandbox;
let chainsFile: string;

beforeAll(async () => {
  sandbox = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 0 });
  chainsFile = path.join(tmp.dir, 'chains.json');
  writeFileSync(chainsFile, await (await fetch(`${sandbox.apiUrl}/chains`)).text());
});
afterAll(async () => {
  await sandbox?.stop();
  tmp.cleanup();
});

/** Asks the sandbox for a quote and saves it; returns the file and the parsed body. */
async function saveQuote(
  name: string,
  body: Record<string, unknown>,
): Promise<{ file: string; quote: { protocol: { v2: { orderId: string } } } }> {
  const res = await fetch(`${sandbox.apiUrl}/quote/v2`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const file = path.join(tmp.dir, `${name}.json`);
  writeFileSync(file, text);
  return { file, quote: JSON.parse(text) as { protocol: { v2: { orderId: string } } } };
}

function writeJson(name: string, value: unknown): string {
  const file = path.join(tmp.dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(value));
  return file;
}

const alpha = () => sandbox.chains.find((c) => c.def.slug === 'alpha')!;

async function bitcoinQuote(name: string) {
  const btc = sandbox.bitcoin!;
  return saveQuote(name, {
    user: btc.treasury.address,
    recipient: sandbox.accounts.treasury.address,
    originChainId: 8253038,
    destinationChainId: 31001,
    originCurrency: 'bc1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqmql8k8',
    destinationCurrency: alpha().wbtc,
    amount: '10000000',
    tradeType: 'EXACT_INPUT',
    includeProtocolData: true,
  });
}

async function utxoFacts(): Promise<string> {
  const utxos = (await (await fetch(`${sandbox.bitcoin!.esploraUrl}/address/${sandbox.bitcoin!.treasury.address}/utxo`)).json()) as {
    txid: string;
    vout: number;
    value: number;
  }[];
  return writeJson('utxos', { utxos: utxos.map((u) => ({ txid: u.txid, vout: u.vout, value: u.value })) });
}

describe('verify-quote and order-id on Solana and Bitcoin quotes', () => {
  it('verifies a Solana-origin USDC quote with its lookup tables given', async () => {
    const sol = sandbox.solana!;
    const { file, quote } = await saveQuote('solana', {
      user: sol.treasury.address,
      recipient: sandbox.accounts.treasury.address,
      originChainId: 792703809,
      destinationChainId: 31001,
      originCurrency: sol.usdcMint,
      destinationCurrency: alpha().usdc,
      amount: '1000000000',
      tradeType: 'EXACT_INPUT',
      includeProtocolData: true,
    });
    const facts = writeJson('svm-facts', { lookupTables: {} });
    const r = await runCli([
      'verify-quote',
      '--quote',
      file,
      '--chains',
      chainsFile,
      '--user',
      sol.treasury.address,
      '--recipient',
      sandbox.accounts.treasury.address,
      '--amount',
      '1000000000',
      '--origin-facts',
      facts,
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(`verified: order ${quote.protocol.v2.orderId}`);
    expect(r.stdout).toMatch(/deposit-call\s*│\s*ok\s*│[^\n]*deposit_token/);
    const id = await runCliInProcess(['order-id', '--order', file, '--chains', chainsFile]);
    expect(id.code, id.stderr).toBe(0);
    expect(id.stdout.trim()).toBe(quote.protocol.v2.orderId);
  });

  it('verifies a Bitcoin-origin quote against our unspent outputs, and refuses it without them', async () => {
    const btc = sandbox.bitcoin!;
    const { file, quote } = await bitcoinQuote('bitcoin');
    const args = [
      'verify-quote',
      '--quote',
      file,
      '--chains',
      chainsFile,
      '--user',
      btc.treasury.address,
      '--recipient',
      sandbox.accounts.treasury.address,
      '--amount',
      '10000000',
    ];
    const ok = await runCli([...args, '--origin-facts', await utxoFacts()]);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`verified: order ${quote.protocol.v2.orderId}`);
    const noFacts = await runCliInProcess(args);
    expect(noFacts.code).toBe(3);
    expect(noFacts.stdout).toMatch(/origin-inputs\s*│\s*FAIL/);
    const id = await runCliInProcess(['order-id', '--order', file, '--chains', chainsFile]);
    expect(id.stdout.trim()).toBe(quote.protocol.v2.orderId);
  });

  it('refuses a PSBT with an extra output to a stranger (exit 3, rule change)', async () => {
    sandbox.setFaults({ tamper: 'psbtExtraOutput' });
    try {
      const { file } = await bitcoinQuote('bitcoin-tampered');
      const r = await runCli([
        'verify-quote',
        '--quote',
        file,
        '--chains',
        chainsFile,
        '--user',
        sandbox.bitcoin!.treasury.address,
        '--recipient',
        sandbox.accounts.treasury.address,
        '--origin-facts',
        await utxoFacts(),
      ]);
      expect(r.code).toBe(3);
      expect(r.stdout).toMatch(/change\s*│\s*FAIL/);
      expect(r.stdout).toContain('REFUSED');
    } finally {
      sandbox.resetFaults();
    }
  });
});
