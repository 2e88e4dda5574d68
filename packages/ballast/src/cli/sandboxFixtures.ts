/**
 * `ballast sandbox --write-fixtures DIR`: asks a running sandbox for one quote with protocol data, as Ballast
 * would (docs/relay-contract.md "POST /quote/v2", "GET /chains"), saves the two responses as received, and builds the
 * `verify-quote` command line that checks them (docs/relay-contract.md "Local quote verification").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRelayClient } from '../relay/client.ts';
import type { QuoteRequest } from '@ballast/protocol/relay/schemas.ts';
import type { SandboxHandle } from './sandboxHandle.ts';

/** Input of the saved quote: 100 USDC (6 decimals), base units. */
const AMOUNT = 100_000_000n;
/** Loss the printed command accepts: the guaranteed output must be at least 99 % of the input (100 bps). */
const ACCEPTED_LOSS_BPS = 100n;

/** What {@link writeSandboxFixtures} wrote. */
export interface SandboxFixtures {
  /** Paths as given under `dir`: the POST /quote/v2 and GET /chains responses, JSON as received. */
  quoteFile: string;
  chainsFile: string;
  /** The quote request that was sent. */
  request: QuoteRequest;
  /** When the quote was received, unix seconds: the `--now` of the printed command. */
  quotedAtSec: number;
  /** Smallest acceptable guaranteed output, base units (the input less {@link ACCEPTED_LOSS_BPS}). */
  minOut: bigint;
}

/**
 * Requests one quote from the sandbox — USDC on its first chain → USDC on its second, `EXACT_INPUT`, with
 * `includeProtocolData`, from and to the treasury dev wallet (anvil dev key 0) — and writes `quote.json` and
 * `chains.json` into `dir` (created if missing).
 *
 * @throws RelayApiError / RelaySchemaError when the sandbox refuses or serves something unparsable; a file
 *   system error when `dir` cannot be written
 */
export async function writeSandboxFixtures(sandbox: SandboxHandle, dir: string): Promise<SandboxFixtures> {
  const [origin, destination] = sandbox.chains;
  if (!origin || !destination) throw new Error('the sandbox runs fewer than two chains');
  const wallet = sandbox.accounts.treasury.address;
  const request: QuoteRequest = {
    user: wallet,
    recipient: wallet,
    refundTo: wallet,
    originChainId: origin.def.chainId,
    destinationChainId: destination.def.chainId,
    originCurrency: origin.usdc,
    destinationCurrency: destination.usdc,
    amount: AMOUNT.toString(),
    tradeType: 'EXACT_INPUT',
    includeProtocolData: true,
  };
  const client = createRelayClient({ baseUrl: sandbox.apiUrl, maxRetries: 0 });
  const chains = await client.getChains();
  const quote = await client.quote(request);
  const quotedAtSec = Math.floor(Date.now() / 1000);
  mkdirSync(dir, { recursive: true });
  const quoteFile = path.join(dir, 'quote.json');
  const chainsFile = path.join(dir, 'chains.json');
  writeFileSync(quoteFile, `${JSON.stringify(quote.raw, null, 2)}\n`);
  writeFileSync(chainsFile, `${JSON.stringify(chains.raw, null, 2)}\n`);
  return { quoteFile, chainsFile, request, quotedAtSec, minOut: AMOUNT - (AMOUNT * ACCEPTED_LOSS_BPS) / 10_000n };
}

/** Quotes one shell word when it holds anything beyond a conservative safe set. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** This package's `bin/ballast.mjs`, relative to the working directory (`./packages/ballast/bin/ballast.mjs` from the repository root). */
function ballastBin(): string {
  const bin = fileURLToPath(new URL('../../bin/ballast.mjs', import.meta.url));
  const rel = path.relative(process.cwd(), bin);
  return rel.startsWith('.') || path.isAbsolute(rel) ? rel : `./${rel}`;
}

/**
 * The `verify-quote` command line that checks saved fixtures against every expectation of their request, at the
 * time they were quoted (so it gives the same verdict later).
 */
export function verifyCommandLine(f: SandboxFixtures): string {
  const args = [
    ballastBin(),
    'verify-quote',
    '--quote',
    f.quoteFile,
    '--chains',
    f.chainsFile,
    '--user',
    f.request.user,
    '--recipient',
    f.request.recipient,
    ...(f.request.refundTo !== undefined ? ['--refund-to', f.request.refundTo] : []),
    '--now',
    String(f.quotedAtSec),
    '--amount',
    f.request.amount,
    '--origin-currency',
    f.request.originCurrency,
    '--destination-chain',
    String(f.request.destinationChainId),
    '--destination-currency',
    f.request.destinationCurrency,
    '--min-out',
    f.minOut.toString(),
  ];
  return args.map(shellWord).join(' ');
}
