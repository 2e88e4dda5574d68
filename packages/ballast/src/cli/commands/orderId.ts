/**
 * `ballast order-id`: prints the order id of an `orderData` JSON (docs/relay-contract.md "Local quote verification" 3). The
 * file may hold a bare orderData object or a whole /quote/v2 response (its `protocol.v2.orderData` is used).
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { ChainsResponseSchema, OrderDataSchema } from '@ballast/protocol/relay/schemas.ts';
import { computeOrderId } from '@ballast/protocol/protocol/orderId.ts';
import { slugVmTypesFromChains } from '@ballast/protocol/protocol/vmTypes.ts';
import { CliError, EXIT_USAGE } from '../exitCodes.ts';
import { toJson } from '../format.ts';
import { readJsonFile } from '../readJsonFile.ts';

const OrderOrQuoteSchema = z.union([
  OrderDataSchema,
  z
    .looseObject({ protocol: z.looseObject({ v2: z.looseObject({ orderData: OrderDataSchema }) }) })
    .transform((q) => q.protocol.v2.orderData),
]);

/** Registers the command. */
export function registerOrderId(program: Command, out: (s: string) => void): void {
  program
    .command('order-id')
    .description('print the order id (EIP-712 struct hash) of an orderData JSON')
    .requiredOption('--order <file>', 'orderData JSON (or a whole /quote/v2 response)')
    .requiredOption('--chains <file>', 'GET /chains response JSON (maps chain slugs to VM types)')
    .option('--json', 'machine-readable output')
    .action((flags: { order: string; chains: string; json?: boolean }) => {
      const order = readJsonFile(flags.order, OrderOrQuoteSchema, 'orderData');
      const chains = readJsonFile(flags.chains, ChainsResponseSchema, 'GET /chains response');
      let orderId: string;
      try {
        orderId = computeOrderId(order, slugVmTypesFromChains(chains));
      } catch (error) {
        throw new CliError(`${flags.order}: ${(error as Error).message}`, EXIT_USAGE, { cause: error });
      }
      out(flags.json ? toJson({ orderId }) : orderId);
    });
}
