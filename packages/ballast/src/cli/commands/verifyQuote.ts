/**
 * `ballast verify-quote`: verifies a saved POST /quote/v2 response against a saved GET /chains response
 * (docs/relay-contract.md "Local quote verification"). Exit 0 verified, 3 refused, 2 unreadable input.
 */
import type { Command } from 'commander';
import { ChainsResponseSchema, QuoteResponseSchema } from '@ballast/protocol/relay/schemas.ts';
import { verifyQuote, type QuoteExpectations } from '../../verify/verifyQuote.ts';
import { CliError, EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../exitCodes.ts';
import { table, toJson } from '../format.ts';
import { readJsonFile } from '../readJsonFile.ts';
import { OriginFactsFileSchema } from '../originFactsFile.ts';
import type { DepositLimits } from '../../verify/deposit/types.ts';

interface VerifyQuoteFlags {
  quote: string;
  chains: string;
  user: string;
  recipient: string;
  refundTo?: string;
  now?: string;
  json?: boolean;
  amount?: string;
  originCurrency?: string;
  destinationChain?: string;
  destinationCurrency?: string;
  minOut?: string;
  wallet?: string[];
  maxDeadlineSec?: string;
  originFacts?: string;
  maxMicroLamportsPerCu?: string;
  maxComputeUnits?: string;
  maxFeeRate?: string;
  minFeeRate?: string;
  maxMinerFee?: string;
  maxMinerFeeBps?: string;
}

function uintFlag(value: string | undefined, flag: string): bigint | undefined {
  if (value === undefined) return undefined;
  if (!/^[0-9]+$/.test(value)) throw new CliError(`${flag} must be an integer in base units, got "${value}"`, EXIT_USAGE);
  return BigInt(value);
}

/** Registers the command. */
export function registerVerifyQuote(program: Command, out: (s: string) => void): void {
  program
    .command('verify-quote')
    .description('verify a saved /quote/v2 response against a saved GET /chains response; signs nothing')
    .requiredOption('--quote <file>', 'POST /quote/v2 response JSON')
    .requiredOption('--chains <file>', 'GET /chains response JSON')
    .requiredOption('--user <address>', 'our depositing wallet (the quote request `user`)')
    .requiredOption('--recipient <address>', 'our destination wallet')
    .option(
      '--refund-to <address>',
      'the quote request `refundTo`: every origin refund must pay exactly this address (ballast sends the --user wallet)',
    )
    .option('--now <unixSeconds>', 'evaluate deadlines at this time instead of the clock')
    .option('--amount <baseUnits>', 'expected input payment amount')
    .option('--origin-currency <address>', 'expected input payment currency')
    .option('--destination-chain <chainId>', 'expected destination chain id (numeric)')
    .option('--destination-currency <address>', 'expected output currency')
    .option('--min-out <baseUnits>', 'smallest acceptable guaranteed output (minimumAmount)')
    .option('--wallet <address...>', 'our other wallets: refunds may pay these besides --user and --recipient')
    .option('--max-deadline-sec <seconds>', 'refuse deadlines further ahead than this (default 86400)')
    .option(
      '--origin-facts <file>',
      'what the origin chain says, as JSON: Solana {"lookupTables": {"<table>": ["<address>", …]}}, Bitcoin {"utxos": [{"txid", "vout", "value", "confirmed"?, "parentOurs"?}] (our unspent outputs; confirmed unless "confirmed": false), "tipHeight"?, "feeEstimate"?: {"targetBlocks", "satPerVb"}, "reservedOutpoints"?: ["<txid>:<vout>"] (spent by our in-flight deposits)}',
    )
    .option('--max-micro-lamports-per-cu <n>', 'Solana: highest compute-unit price allowed (default 1000000)')
    .option('--max-compute-units <n>', 'Solana: highest compute-unit limit allowed (default 1400000)')
    .option('--max-fee-rate <satPerVb>', 'Bitcoin: highest fee rate allowed, sat/vB (default 200)')
    .option('--min-fee-rate <satPerVb>', "Bitcoin: lowest fee rate allowed, sat/vB (default 1; raised to the origin facts' feeEstimate)")
    .option('--max-miner-fee <sats>', 'Bitcoin: highest miner fee allowed, satoshis (default 100000)')
    .option('--max-miner-fee-bps <bps>', 'Bitcoin: highest miner fee allowed, bps of the payment (default 500)')
    .option('--json', 'machine-readable output')
    .action(async (flags: VerifyQuoteFlags) => {
      const quote = readJsonFile(flags.quote, QuoteResponseSchema, 'POST /quote/v2 response');
      const chains = readJsonFile(flags.chains, ChainsResponseSchema, 'GET /chains response');
      const nowSec = flags.now === undefined ? Math.floor(Date.now() / 1000) : Number(uintFlag(flags.now, '--now'));
      const destinationChainId =
        flags.destinationChain === undefined ? undefined : Number(uintFlag(flags.destinationChain, '--destination-chain'));
      const expect: QuoteExpectations = {
        user: flags.user,
        recipient: flags.recipient,
        ...(flags.refundTo !== undefined ? { refundTo: flags.refundTo } : {}),
        ...(flags.amount !== undefined ? { amount: uintFlag(flags.amount, '--amount') } : {}),
        ...(flags.originCurrency ? { originCurrency: flags.originCurrency } : {}),
        ...(destinationChainId !== undefined ? { destinationChainId } : {}),
        ...(flags.destinationCurrency ? { destinationCurrency: flags.destinationCurrency } : {}),
        ...(flags.minOut !== undefined ? { minOut: uintFlag(flags.minOut, '--min-out') } : {}),
        ...(flags.wallet?.length ? { ourWallets: flags.wallet } : {}),
        ...(flags.maxDeadlineSec !== undefined ? { maxDeadlineSec: Number(uintFlag(flags.maxDeadlineSec, '--max-deadline-sec')) } : {}),
      };
      if (expect.maxDeadlineSec === 0) throw new CliError('--max-deadline-sec must be a positive number of seconds', EXIT_USAGE);
      const origin = flags.originFacts === undefined ? undefined : readJsonFile(flags.originFacts, OriginFactsFileSchema, 'origin facts');
      const limits: Partial<DepositLimits> = {
        ...(flags.maxMicroLamportsPerCu !== undefined
          ? { svmMaxMicroLamportsPerCu: uintFlag(flags.maxMicroLamportsPerCu, '--max-micro-lamports-per-cu') }
          : {}),
        ...(flags.maxComputeUnits !== undefined
          ? { svmMaxComputeUnits: Number(uintFlag(flags.maxComputeUnits, '--max-compute-units')) }
          : {}),
        ...(flags.maxFeeRate !== undefined ? { bvmMaxFeeRateSatPerVb: Number(uintFlag(flags.maxFeeRate, '--max-fee-rate')) } : {}),
        ...(flags.minFeeRate !== undefined ? { bvmMinFeeRateSatPerVb: Number(uintFlag(flags.minFeeRate, '--min-fee-rate')) } : {}),
        ...(flags.maxMinerFee !== undefined ? { bvmMaxMinerFeeSats: uintFlag(flags.maxMinerFee, '--max-miner-fee') } : {}),
        ...(flags.maxMinerFeeBps !== undefined ? { bvmMaxMinerFeeBps: Number(uintFlag(flags.maxMinerFeeBps, '--max-miner-fee-bps')) } : {}),
      };
      const verdict = await verifyQuote({ quote, chains, expect, nowSec, ...(origin ? { origin } : {}), limits });
      if (flags.json) {
        out(toJson(verdict));
      } else {
        out(
          table(
            ['rule', 'ok', 'detail'],
            verdict.rules.map((r) => [r.rule, r.ok ? 'ok' : 'FAIL', r.detail]),
          ),
        );
        out(verdict.ok ? `verified: order ${verdict.orderId}` : 'REFUSED: do not sign this quote');
      }
      process.exitCode = verdict.ok ? EXIT_OK : EXIT_REFUSED;
    });
}
