/**
 * Counts failed chain RPC calls per chain (`ballast_rpc_errors_total{chain}`) at the adapter seam, so every
 * caller (balance and gas reads, verification reads, broadcasts, lookups, reorg and deposit checks) is covered
 * without each one counting. Wraps an adapter in a Proxy: every other property (including VM-specific ones such
 * as an EVM adapter's `confirmations`) passes through unchanged.
 *
 * Counted: a throw from `readDecimals`, `originFacts`, `planItem`, `broadcast`, `head`, `lookup`, `recheck`,
 * `findDeposit`, `txBlock`, and of the capabilities (src/chains/capabilities.ts) `readNativeBalance` and
 * `gasPaid`; a `readBalances` answer of `{ ok: false }` or with any holding unread (one count per read). Not
 * counted: `sign` (local), `waitForInclusion` (a timeout is not a node error), `knows` (false on error by
 * contract), and the other capabilities (signing, cancels, the allowance audit's reads, which never throw).
 */
import type { ChainAdapter } from './adapter.ts';
import type { ChainCapabilities } from './capabilities.ts';

/** Adapter and capability methods whose throw is a failed node call. */
const THROWING_CALLS = new Set<string>([
  'readNativeBalance',
  'readDecimals',
  'originFacts',
  'planItem',
  'broadcast',
  'head',
  'lookup',
  'recheck',
  'findDeposit',
  'txBlock',
  'gasPaid',
]);

/**
 * Wraps `adapter` so failed node calls call `onError(adapter.name)`.
 *
 * @returns an adapter of the same type and behaviour (errors are rethrown unchanged)
 */
export function countRpcErrors<A extends ChainAdapter>(adapter: A, onError: (chain: string) => void): A {
  const count = () => {
    try {
      onError(adapter.name);
    } catch {
      // a metrics failure must not change the call's outcome
    }
  };
  /** `fn` called on `self`, counting a throw. */
  const counted =
    (fn: (...a: unknown[]) => unknown, self: object) =>
    async (...args: unknown[]) => {
      try {
        return await fn.apply(self, args);
      } catch (error) {
        count();
        throw error;
      }
    };
  /** Wraps one capability role so its node calls in {@link THROWING_CALLS} count their throws. */
  const countRole = <T extends object>(role: T): T =>
    new Proxy(role, {
      get(target, prop, receiver) {
        const value: unknown = Reflect.get(target, prop, receiver);
        if (typeof value !== 'function' || typeof prop !== 'string' || !THROWING_CALLS.has(prop)) return value;
        return counted(value as (...a: unknown[]) => unknown, target);
      },
    });
  let capabilities: ChainCapabilities | undefined; // wrapped on first use
  return new Proxy(adapter, {
    get(target, prop, receiver) {
      if (prop === 'capabilities') {
        capabilities ??= Object.fromEntries(
          Object.entries(target.capabilities).map(([role, impl]) => [role, impl === undefined ? impl : countRole(impl as object)]),
        ) as ChainCapabilities;
        return capabilities;
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (prop === 'readBalances') {
        return async (...args: Parameters<ChainAdapter['readBalances']>) => {
          let read: Awaited<ReturnType<ChainAdapter['readBalances']>>;
          try {
            read = await target.readBalances(...args);
          } catch (error) {
            count(); // adapters should not throw here; count it all the same
            throw error;
          }
          if (!read.ok || read.amounts.some((a) => a.amount === null)) count();
          return read;
        };
      }
      if (!THROWING_CALLS.has(prop)) return value;
      return counted(value as (...a: unknown[]) => unknown, target);
    },
  });
}

/** Wraps every adapter of a chain map with {@link countRpcErrors}. */
export function countRpcErrorsAll(chains: ReadonlyMap<string, ChainAdapter>, onError: (chain: string) => void): Map<string, ChainAdapter> {
  return new Map([...chains].map(([name, adapter]) => [name, countRpcErrors(adapter, onError)]));
}
