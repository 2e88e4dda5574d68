/**
 * processTransfer when the run's leader term ends mid-execution (src/cycle/handOver.ts, src/executor/termEnded.ts):
 * the attempt is `handed_over`, logged once at warn, and no row says `origin_failed`; the rows stay as the replica
 * that took over left them. The same store conflict while the run still leads stays an error (`origin_failed`).
 * Real executor, EVM adapter and SQLite store on the in-memory chains and Relay service (test/unit/cycle/pipelineWorld.ts);
 * the term is the context's `leading` check, turned false the way the run-term check turns when the term ends.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { ChainAdapter } from '../../../packages/ballast/src/chains/adapter.ts';
import { processTransfer, type ProcessTransferDeps } from '../../../packages/ballast/src/cycle/processTransfer.ts';
import { listRecentTransfers, markTxConfirmed } from '../../../packages/ballast/src/store/transfers.ts';
import { pipelineSuite, processArgs, type PipelineWorld } from './pipelineWorld.ts';

const suite = pipelineSuite();

interface Line {
  level: number;
  msg: string;
}
const WARN = 40; // pino's levels
const ERROR = 50;

/** The world's dependencies with a log kept in memory, a term that `end()` ends, and alpha's adapter changed by `wrap`. */
function withTerm(w: PipelineWorld, wrap: (alpha: ChainAdapter, end: () => void) => ChainAdapter) {
  const lines: Line[] = [];
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Line) });
  const term = new AbortController();
  let leads = true;
  // What the term's end does to a run (src/app/leaderGuard.ts): the run-term check answers false, the signal aborts.
  const end = () => {
    leads = false;
    term.abort();
  };
  const chains = new Map(w.deps.chains);
  chains.set('alpha', wrap(w.deps.chains.get('alpha')!, end)); // the world configures alpha
  const deps: ProcessTransferDeps = { ...w.deps, chains, logger, signal: term.signal, leading: () => leads };
  return { deps, lines };
}

async function transferStatuses(w: PipelineWorld): Promise<string[]> {
  return (await listRecentTransfers(w.db, 10)).map((t) => t.status);
}

/** After broadcasting, the replica that took over (with the same store) recorded the transaction's receipt first. */
function confirmedByTheOtherReplica(w: PipelineWorld, onSent: () => void) {
  return (alpha: ChainAdapter): ChainAdapter => {
    let lastHash = '';
    return {
      ...alpha,
      sign: async (...a: Parameters<ChainAdapter['sign']>) => {
        const signed = await alpha.sign(...a);
        lastHash = signed.txHash;
        return signed;
      },
      broadcast: async (rawTx: string) => {
        await alpha.broadcast(rawTx);
        const tx = await w.db.get<{ id: number }>('SELECT id FROM transfer_txs WHERE tx_hash = ?', lastHash); // one column
        await markTxConfirmed(w.db, tx!.id, { status: 'confirmed', blockNumber: 1n, nowMs: w.world.nowMs });
        onSent();
      },
    };
  };
}

describe('processTransfer when the leader term ends', () => {
  it('ended before the first signature: handed_over, no transfer row at all (no origin_failed history row), nothing sent', async () => {
    const w = await suite.world('term-before-signing');
    const { deps, lines } = withTerm(w, (alpha, end) => ({
      ...alpha,
      planItem: async (...a: Parameters<ChainAdapter['planItem']>) => {
        const planned = await alpha.planItem(...a);
        end(); // the term ends while the first item is planned against the chain
        return planned;
      },
    }));
    const attempt = await processTransfer(deps, processArgs(w, 'execute'));

    expect(attempt.outcome, attempt.error).toBe('handed_over');
    expect(attempt.transferId).toBeUndefined();
    expect(attempt.error).toMatch(/^term ended before a transfer was written ahead; nothing was signed or broadcast/);
    expect(await transferStatuses(w)).toEqual([]); // today: one row, origin_failed
    expect(w.world.chains.alpha.mempool.size).toBe(0);
    const warned = lines.filter((l) => l.level === WARN).map((l) => l.msg);
    expect(warned).toContain(
      'term ended before a transfer was written ahead; nothing was signed or broadcast, and the replica that leads now plans it afresh (nothing lost)',
    );
    expect(lines.filter((l) => l.level >= ERROR).map((l) => l.msg)).toEqual([]);
  });

  it('ended after a broadcast the other replica already recorded: handed_over at warn, rows as that replica left them', async () => {
    const w = await suite.world('term-after-broadcast');
    const { deps, lines } = withTerm(w, (alpha, end) => confirmedByTheOtherReplica(w, end)(alpha));
    const attempt = await processTransfer(deps, processArgs(w, 'execute'));

    expect(attempt.outcome, attempt.error).toBe('handed_over');
    const [row] = await listRecentTransfers(w.db, 10);
    expect(attempt.transferId).toBe(row!.id);
    expect(attempt.error).toMatch(/is confirmed, not signed; sent not recorded/); // the store's conflict, kept as the detail
    expect(row!.status).toBe('prepared'); // not origin_failed: left for the replica that leads now
    expect(row!.txs.map((t) => t.status)).toEqual(['confirmed']);
    const warned = lines.filter((l) => l.level === WARN).map((l) => l.msg);
    expect(warned).toContain(`term ended; transfer ${row!.id} is left to the replica that leads now (nothing lost)`);
    expect(lines.filter((l) => l.level >= ERROR).map((l) => l.msg)).toEqual([]); // today: 'execution failed'
  });

  it('the same conflict while the run still leads stays an error: origin_failed, logged at error', async () => {
    const w = await suite.world('conflict-while-leading');
    const { deps, lines } = withTerm(
      w,
      confirmedByTheOtherReplica(w, () => {}),
    );
    const attempt = await processTransfer(deps, processArgs(w, 'execute'));

    expect(attempt.outcome).toBe('origin_failed');
    expect(attempt.error).toMatch(/^execution error: .*is confirmed, not signed/);
    expect(lines.filter((l) => l.level >= ERROR).map((l) => l.msg)).toContain('execution failed');
  });
});
