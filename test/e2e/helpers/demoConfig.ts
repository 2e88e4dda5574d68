/**
 * config/demo.yaml for a sandbox started without its Solana or Bitcoin node: the wallets, chains and asset
 * entries of a VM family the sandbox does not serve are left out (their `${SANDBOX_…}` variables do not exist),
 * and an asset left with a single holding is dropped (nothing to balance against), with its transfer limits.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import type { Sandbox } from '../../../packages/sandbox/src/startSandbox.ts';
import { ROOT } from './cli.ts';

type Doc = Record<string, unknown>;
type Entry = { chain: string };

/** The parsed demo config with only what `sandbox` serves. */
export function demoConfigFor(sandbox: Pick<Sandbox, 'solana' | 'bitcoin'>): Doc {
  const doc = parse(readFileSync(path.join(ROOT, 'packages/ballast/config/demo.yaml'), 'utf8')) as Doc;
  const served = (vm: unknown) =>
    vm === undefined || vm === 'evm' || (vm === 'svm' && sandbox.solana !== undefined) || (vm === 'bvm' && sandbox.bitcoin !== undefined);
  const keep = <T extends { vm?: unknown }>(record: Record<string, T>) =>
    Object.fromEntries(Object.entries(record).filter(([, v]) => served(v.vm)));
  const chains = keep(doc.chains as Record<string, { vm?: unknown }>);
  const assets: Record<string, Entry[]> = {};
  for (const [asset, entries] of Object.entries(doc.assets as Record<string, Entry[]>)) {
    const left = entries.filter((e) => e.chain in chains);
    if (left.length === entries.length || left.length > 1) assets[asset] = left;
  }
  return withoutUnknownLimits({ ...doc, wallets: keep(doc.wallets as Record<string, { vm?: unknown }>), chains, assets });
}

/** `doc` with `policy.transferLimits` of assets it no longer holds left out (the loader refuses those). */
export function withoutUnknownLimits(doc: Doc): Doc {
  const policy = doc.policy as { transferLimits?: Record<string, unknown> } | undefined;
  if (!policy?.transferLimits) return doc;
  const assets = doc.assets as Record<string, unknown>;
  const transferLimits = Object.fromEntries(Object.entries(policy.transferLimits).filter(([asset]) => asset in assets));
  return { ...doc, policy: { ...policy, transferLimits } };
}
