/**
 * Wallet-level pauses from Relay address screening: every route a paused wallet sends from or receives on leaves
 * the plan (alternatives too), other wallets' routes stay; pauses live in a real SQLite store, a fill-time block
 * is recorded once, and `resume` (by wallet or by the blocked transfer) clears them.
 */
import { describe, expect, it } from 'vitest';
import type { Plan, PlannedTransfer } from '../../../packages/ballast/src/planner/types.ts';
import { pausedWallets, withoutPausedRoutes } from '../../../packages/ballast/src/cycle/pausedRoutes.ts';
import {
  listOpenWalletPauses,
  recordWalletPause,
  resolveTransferWalletPauses,
  resolveWalletPauses,
  type WalletPauseRow,
} from '../../../packages/ballast/src/store/walletPauses.ts';
import { recordFillScreeningBlock } from '../../../packages/ballast/src/executor/screeningBlock.ts';
import { statusReasons } from '../../../packages/ballast/src/executor/statusOwnership.ts';
import { createTransfer } from '../../../packages/ballast/src/store/transfers.ts';
import { target } from '../planner/presets.ts';
import { newTransfer } from '../store/helpers.ts';
import { useTestStore } from './pipelineSeeds.ts';

const HOT = '0xAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAaAa';
const COLD = '0x2222222222222222222222222222222222222222';
const wallets = [
  { name: 'hot', address: HOT },
  { name: 'cold', address: COLD },
];

function transfer(
  fromChain: string,
  fromWallet: 'hot' | 'cold',
  toChain: string,
  toWallet: 'hot' | 'cold',
  alternatives: PlannedTransfer['alternatives'] = undefined,
): PlannedTransfer {
  const addr = (w: string) => (w === 'hot' ? HOT : COLD);
  return {
    asset: 'USDC',
    from: target(fromChain, { wallet: fromWallet, address: addr(fromWallet) }),
    to: target(toChain, { wallet: toWallet, address: addr(toWallet) }),
    amountIn: 1_000_000n,
    reason: 'test',
    ...(alternatives ? { alternatives } : {}),
  } as PlannedTransfer; // the fields the pause logic reads; the rest of a planned transfer is not used
}

const pause = (over: Partial<WalletPauseRow>): WalletPauseRow => ({
  id: 1,
  address: HOT.toLowerCase(),
  stage: 'quote',
  code: 'BLOCKED_WALLET_ADDRESS',
  detail: 'x',
  transferId: null,
  createdAtMs: 1,
  ...over,
});

describe('withoutPausedRoutes with paused wallets', () => {
  it('drops every transfer sending from or receiving on the paused wallet, keeps the others, and says why', () => {
    const plan: Plan = {
      transfers: [
        transfer('alpha', 'hot', 'beta', 'cold'),
        transfer('gamma', 'cold', 'delta', 'hot'),
        transfer('alpha', 'cold', 'beta', 'cold'),
      ],
      decisions: [],
    };
    const paused = pausedWallets([pause({})], wallets);
    expect(paused).toEqual([
      { wallet: 'hot', address: HOT.toLowerCase(), stages: ['quote'], codes: ['BLOCKED_WALLET_ADDRESS'], pauseIds: [1], transferIds: [] },
    ]);
    const out = withoutPausedRoutes(plan, [], paused);
    expect(out.transfers.map((t) => `${t.from.chain}:${t.from.wallet}→${t.to.chain}:${t.to.wallet}`)).toEqual(['alpha:cold→beta:cold']);
    const details = out.decisions.filter((d) => d.kind === 'route_paused').map((d) => d.detail);
    expect(details).toHaveLength(2);
    expect(details[0]).toContain(
      'wallet hot is paused by Relay address screening, a quote was refused by screening (BLOCKED_WALLET_ADDRESS)',
    );
    expect(details[0]).toContain('ballast resume --wallet hot');
  });

  it('says the funds are in compliance review for a fill-time block, and removes a paused donor from the alternatives', () => {
    const alt = { from: target('gamma', { wallet: 'hot', address: HOT }), amountIn: 1_000_000n, why: 'spare' };
    const plan: Plan = { transfers: [transfer('alpha', 'cold', 'beta', 'cold', [alt] as PlannedTransfer['alternatives'])], decisions: [] };
    const paused = pausedWallets([pause({ stage: 'fill', code: 'BLOCKED_WALLET', transferId: 7 })], wallets);
    const out = withoutPausedRoutes(plan, [], paused);
    expect(out.transfers).toHaveLength(1);
    expect(out.transfers[0]!.alternatives).toEqual([]);
    const blocked = withoutPausedRoutes({ transfers: [transfer('alpha', 'hot', 'beta', 'cold')], decisions: [] }, [], paused);
    expect(blocked.decisions[0]!.detail).toContain(
      'a fill was blocked (BLOCKED_WALLET; transfer(s) 7): the deposit is in Relay compliance review',
    );
  });

  it('changes nothing without paused wallets', () => {
    const plan: Plan = { transfers: [transfer('alpha', 'hot', 'beta', 'cold')], decisions: [] };
    expect(withoutPausedRoutes(plan, []).transfers).toHaveLength(1);
  });
});

describe('wallet pauses in the store', () => {
  const store = useTestStore();

  it('records a fill-time block for both wallets once, says so in history, and resume --transfer lifts it', async () => {
    const { transferId: id } = await createTransfer(store.db, await newTransfer(store.db, { user: HOT, recipient: COLD }));
    const status = { failReason: 'BLOCKED_WALLET' };
    expect(await recordFillScreeningBlock(store.db, { id, user: HOT, recipient: COLD }, status, 1_000)).toBe(true);
    expect(await recordFillScreeningBlock(store.db, { id, user: HOT, recipient: COLD }, status, 1_001)).toBe(true); // webhook and poll both apply it
    expect(await recordFillScreeningBlock(store.db, { id, user: HOT, recipient: COLD }, { failReason: 'UNKNOWN' }, 1_002)).toBe(false);
    const open = await listOpenWalletPauses(store.db);
    expect(open.map((p) => [p.address, p.stage, p.code, p.transferId])).toEqual([
      [HOT.toLowerCase(), 'fill', 'BLOCKED_WALLET', id],
      [COLD, 'fill', 'BLOCKED_WALLET', id],
    ]);
    expect(statusReasons({ failReason: 'BLOCKED_WALLET' } as Parameters<typeof statusReasons>[0])).toContain(
      'held for Relay compliance review',
    );
    expect(await resolveTransferWalletPauses(store.db, id, 'settled with support', 2_000)).toHaveLength(2);
    expect(await listOpenWalletPauses(store.db)).toEqual([]);
  });

  it('resume --wallet clears only that wallet, matching EVM addresses whatever their case', async () => {
    await recordWalletPause(store.db, { address: HOT, stage: 'quote', code: 'BLOCKED_WALLET_ADDRESS', detail: 'q', nowMs: 1 });
    await recordWalletPause(store.db, { address: COLD, stage: 'quote', code: 'SANCTIONED_WALLET_ADDRESS', detail: 'q', nowMs: 2 });
    expect(await resolveWalletPauses(store.db, HOT.toUpperCase().replace('0X', '0x'), 'cleared', 3)).toHaveLength(1);
    expect((await listOpenWalletPauses(store.db)).map((p) => p.address)).toEqual([COLD]);
    expect(await resolveWalletPauses(store.db, HOT, 'again', 4)).toEqual([]);
  });
});
