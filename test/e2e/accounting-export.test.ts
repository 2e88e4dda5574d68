/**
 * `ballast export` on the sandbox, one store for five transfers: an EVM-origin fill (alpha USDC → Solana), a
 * Solana-origin fill (→ alpha), a Bitcoin-origin fill (BTC → WBTC on alpha), a refund (alpha) and a failure whose
 * deposit is withdrawn (alpha). Each format is exported per wallet and read back with csv-parse: the rows of every
 * wallet and asset add up to what its balance on chain really changed, to the base unit, with no allowance (the
 * Solana network cost holds the rent of the vault's token account the first deposit of the mint created; the
 * withdrawal transaction's gas is a fee row); `--check` reconciles with the ledger, names nothing as unrecorded and
 * exits 0 (a bad flag exits 2); a filled transfer's payment and receipt have one volume; every row is priced at its
 * quote.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { parseUnits } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../packages/sandbox/src/startSandbox.ts';
import { associatedTokenAddress, depositoryPdas } from '../../packages/protocol/src/protocol/svmDepository.ts';
import type { Reconciliation } from '../../packages/ballast/src/accounting/reconcile.ts';
import { getTransfer, listRecentTransfers } from '../../packages/ballast/src/store/transfers.ts';
import { recoverDeposits } from '../../packages/ballast/src/withdraw/recover.ts';
import { runCli, runCliInProcess } from './helpers/cli.ts';
import { tempDir } from './helpers/sandboxBallast.ts';
import { holding, NON_EVM_CONFIG, oneTransferTreasury, type Place } from './nonEvm/treasury.ts';

const tmp = tempDir('ballast-accounting-');
let s: Sandbox;
beforeAll(async () => {
  s = await startSandbox({ solana: true, bitcoin: true, bitcoinBlockMs: 500, withdrawals: { stepMs: 100, minPollMs: 100 } });
});
afterAll(async () => {
  await s?.stop();
  tmp.cleanup();
});

const DECIMALS: Readonly<Record<string, number>> = { USDC: 6, BTC: 8, WBTC: 8, ETH: 18, SOL: 9 };
const FORMATS = ['cryptio', 'bitwave', 'koinly', 'csv'] as const;

/** Net change per asset of one wallet's file, read from the format's own columns (base units). */
function netOf(format: (typeof FORMATS)[number], file: string): Map<string, bigint> {
  const net = new Map<string, bigint>();
  const add = (asset: string, volume: string, sign: bigint) => {
    if (asset === '' || volume === '') return;
    net.set(asset, (net.get(asset) ?? 0n) + sign * parseUnits(volume, DECIMALS[asset]!));
  };
  for (const r of parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[]) {
    if (format === 'cryptio') {
      add(r.incomingAsset!, r.incomingVolume!, 1n);
      add(r.outgoingAsset!, r.outgoingVolume!, -1n);
      add(r.feeAsset!, r.feeVolume!, -1n);
    } else if (format === 'koinly') {
      add(r['Received Currency']!, r['Received Amount']!, 1n);
      add(r['Sent Currency']!, r['Sent Amount']!, -1n);
      add(r['Fee Currency']!, r['Fee Amount']!, -1n);
    } else if (format === 'bitwave') {
      add(r.amountTicker!, r.amount!, r.transactionType === 'tradeAcquire' ? 1n : -1n);
    } else {
      add(r.asset!, r.amount!, r.direction === 'in' ? 1n : -1n);
    }
  }
  return net;
}

describe('ballast export on the sandbox', () => {
  it('exports five transfers in every format; each wallet and asset adds up to its change on chain', { timeout: 180_000 }, async () => {
    const store = path.join(tmp.dir, 'books.db');
    const sol = s.solana!;
    const btc = s.bitcoin!;
    const alpha = s.chains.find((c) => c.def.slug === 'alpha')!;
    const treasury = s.accounts.treasury.address;
    const eth = () => alpha.publicClient.getBalance({ address: treasury });
    const balances = async () => ({
      alphaUsdc: await holding(s, 'USDC', 'alpha').balance(),
      alphaWbtc: await holding(s, 'BTC', 'alpha').balance(),
      alphaEth: await eth(),
      solUsdc: await holding(s, 'USDC', 'solana').balance(),
      solSol: sol.node.balance(sol.treasury.address),
      btc: btc.node.specBalance(btc.treasury.address),
    });
    const before = await balances();

    const tracking = { pollMs: 200, timeoutSec: 20 };
    const chains = { ...(NON_EVM_CONFIG.chains as Record<string, Record<string, unknown>>) };
    chains.bitcoin = { ...chains.bitcoin, inclusionWaitSec: 1 };
    const move = async (asset: 'USDC' | 'BTC', from: Place, to: Place, amount: bigint, extra: { reserve?: bigint } = {}) => {
      const t = await oneTransferTreasury(
        s,
        tmp.dir,
        { asset, from, to, amount, tracking, chains, withdrawals: { pollMs: 150, rateLimitedPollMs: 400, maxWaitSec: 60 }, ...extra },
        { store },
      );
      return t.ballast;
    };
    const once = async (b: Awaited<ReturnType<typeof move>>) => {
      try {
        return (await b.runCycle('once')).attempts.map((a) => a.outcome);
      } finally {
        await b.close();
      }
    };

    expect(await once(await move('USDC', 'alpha', 'solana', 1_000_000_000n))).toEqual(['success']);
    expect(await once(await move('USDC', 'solana', 'alpha', 1_000_000_000n))).toEqual(['success']);
    expect(await once(await move('BTC', 'bitcoin', 'alpha', 10_000_000n, { reserve: 100_000n }))).toEqual(['success']);

    s.setFaults({ refund: true, fillDelayMs: 0 });
    const refunding = await move('USDC', 'alpha', 'solana', 500_000_000n);
    try {
      for (let i = 0; i < 20 && (await listRecentTransfers(refunding.db, 1))[0]?.refund == null; i++) {
        await refunding.runCycle('once');
        await new Promise((r) => setTimeout(r, 200));
      }
    } finally {
      await refunding.close();
    }

    s.setFaults({ refund: false, failure: true });
    const failing = await move('USDC', 'alpha', 'solana', 1_000_000_000n);
    let withdrawTx: `0x${string}`;
    try {
      const failed = await failing.runCycle('once');
      expect(
        failed.attempts.map((a) => a.outcome),
        JSON.stringify(failed.attempts, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)),
      ).toEqual(['failure']);
      s.setFaults({ failure: false });
      const [report] = await recoverDeposits(failing.ctx);
      expect(report).toMatchObject({ outcome: 'executed' });
      const t = await getTransfer(failing.db, report!.transferId);
      expect(t!.resolution).toMatch(/^withdrawn: job /);
      withdrawTx = report!.txHash as `0x${string}`;
      const statuses = (await listRecentTransfers(failing.db, 10)).map((x) => [x.status, x.refund?.amount ?? null]);
      expect(statuses).toEqual([
        ['failure', null],
        ['refund', 500_000_000n],
        ['success', null],
        ['success', null],
        ['success', null],
      ]);
    } finally {
      await failing.close();
    }
    await new Promise((r) => setTimeout(r, 1_200)); // two Bitcoin blocks: the last change output is mined
    const after = await balances();
    const receipt = await alpha.publicClient.getTransactionReceipt({ hash: withdrawTx });
    // The first Solana deposit of the mint created the depository vault's token account: its rent is in the SOL change.
    const vaultRent = sol.node.balance(associatedTokenAddress(depositoryPdas(sol.depositoryProgramId).vault, sol.usdcMint));
    expect(before.solSol - after.solSol > vaultRent && vaultRent > 0n).toBe(true);

    // What each wallet's balance really did, per asset.
    const onChain: Record<string, Record<string, bigint>> = {
      [`alpha:${treasury}`]: {
        USDC: after.alphaUsdc - before.alphaUsdc,
        WBTC: after.alphaWbtc - before.alphaWbtc,
        ETH: after.alphaEth - before.alphaEth,
      },
      [`solana:${sol.treasury.address}`]: { USDC: after.solUsdc - before.solUsdc, SOL: after.solSol - before.solSol },
      [`bitcoin:${btc.treasury.address}`]: { BTC: after.btc - before.btc },
    };

    for (const format of FORMATS) {
      for (const [wallet, assets] of Object.entries(onChain)) {
        const out = path.join(tmp.dir, `${format}-${wallet.split(':')[0]}.csv`);
        const res = await runCliInProcess(['export', '--format', format, '--db', store, '--wallet', wallet, '--out', out]);
        expect(res.code, res.stderr).toBe(0);
        const net = netOf(format, out);
        for (const [asset, change] of Object.entries(assets))
          expect([format, wallet, asset, net.get(asset) ?? 0n]).toEqual([format, wallet, asset, change]);
        expect([...net.keys()].sort()).toEqual(
          Object.keys(assets)
            .filter((a) => assets[a] !== 0n)
            .sort(),
        );
      }
    }

    // The check as a real process: every line adds up, exit 0, nothing named as not recorded.
    const checked = await runCli(['export', '--format', 'csv', '--db', store, '--check']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(checked.stdout).toMatch(/every one adds up to the ledger to the base unit/);
    expect(checked.stdout).not.toContain('not recorded in the store');
    for (const bad of [
      ['--format', 'xlsx'],
      ['--format', 'csv', '--since', '1d', '--until', '2d'],
      ['--format', 'csv', '--until', 'yesterday'],
    ]) {
      const res = await runCliInProcess(['export', ...bad, '--db', store]);
      expect([bad.join(' '), res.code]).toEqual([bad.join(' '), 2]);
    }
    expect((await runCliInProcess(['export', '--format', 'csv', '--until', 'yesterday', '--db', store])).stderr).toContain(
      '--until: "yesterday"',
    );
    const json = await runCliInProcess(['export', '--format', 'csv', '--db', store, '--check', '--json']);
    const summary = JSON.parse(json.stdout) as { rows: number; csv: string; check: Reconciliation };
    expect(summary.check.ok).toBe(true);
    expect(summary.check.unpriced).toEqual([]);
    expect(summary.check.gaps).toEqual([]);
    expect(summary.check.lines.map((l) => `${l.wallet.chain} ${l.asset}`).sort()).toEqual(
      ['alpha ETH', 'alpha USDC', 'alpha WBTC', 'bitcoin BTC', 'solana SOL', 'solana USDC'].sort(),
    );

    // The rows: a fill paired at one volume, a refund and a withdrawal paired, every row priced at its quote.
    const rows = parse(summary.csv, { columns: true }) as Record<string, string>[];
    expect(rows).toHaveLength(summary.rows);
    const pairs = new Map<string, Record<string, string>[]>();
    for (const r of rows.filter((x) => x.pair_id !== '')) pairs.set(r.pair_id!, [...(pairs.get(r.pair_id!) ?? []), r]);
    expect([...pairs.keys()].map((k) => k.replace(/^ballast-\d+-/, '')).sort()).toEqual(['receipt', 'receipt', 'refund', 'withdrawal']);
    for (const [id, legs] of pairs) {
      expect(legs.map((l) => l.direction).sort(), id).toEqual(['in', 'out']);
      expect(legs[0]!.amount, id).toBe(legs[1]!.amount);
    }
    expect(rows.filter((r) => r.fee_kind!.startsWith('relay_')).length).toBeGreaterThan(0);
    // The withdrawal's gas as the receipt gives it, on its transaction.
    expect(rows.filter((r) => r.fee_kind === 'withdrawal_network').map((r) => [r.asset, r.amount_base_units, r.tx_hash])).toEqual([
      ['ETH', String(receipt.gasUsed * receipt.effectiveGasPrice), withdrawTx],
    ]);
    for (const r of rows) {
      expect(r.usd_value, `${r.kind} ${r.fee_kind}`).not.toBe('');
      expect(r.note).toContain(`requestId ${r.request_id}`);
      if (r.usd_source!.startsWith('quote')) {
        // value = volume × rate at quote time, within the rate's rounding (12 decimals) and the value's (6).
        const value = parseUnits(r.usd_value!, 18);
        const product = (parseUnits(r.amount!, 18) * parseUnits(r.usd_unit_rate!, 18)) / 10n ** 18n;
        const diff = value > product ? value - product : product - value;
        expect(diff <= 10n ** 12n, `${r.kind} ${r.amount} × ${r.usd_unit_rate} vs ${r.usd_value}`).toBe(true);
      }
    }
  });
});
