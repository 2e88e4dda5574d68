/**
 * The sandbox's hub balances (docs/relay-contract.md "Withdrawal endpoints"): what attested deposits credited, per (protocol
 * chain slug, owner, currency). `amount` is available to withdraw; `locked` is held by withdrawal jobs in flight and
 * either leaves (the owner executed the withdrawal) or comes back (the job expired or failed). Amounts are
 * bigint base units; owner and currency keys are in the chain's form (EVM lower-case 0x hex, others exact).
 */

/** One hub balance. */
export interface HubBalance {
  chain: string;
  owner: string;
  currency: string;
  /** Available (unlocked), base units. */
  amount: bigint;
  /** Held by withdrawal jobs in flight, base units. */
  locked: bigint;
}

/** Where a hub balance lives: protocol chain slug, owner and currency, already normalised by the caller. */
export interface HubKey {
  chain: string;
  owner: string;
  currency: string;
}

/** Stable codes of {@link HubLedgerError}. */
export type HubLedgerErrorCode = 'HUB_INSUFFICIENT_BALANCE' | 'HUB_INSUFFICIENT_LOCKED' | 'HUB_BAD_AMOUNT';

/** A ledger operation that would make a balance negative or used a non-positive amount. */
export class HubLedgerError extends Error {
  readonly code: HubLedgerErrorCode;
  constructor(code: HubLedgerErrorCode, message: string) {
    super(message);
    this.name = 'HubLedgerError';
    this.code = code;
  }
}

const keyOf = (k: HubKey): string => `${k.chain}\u0000${k.owner}\u0000${k.currency}`;

/** In-memory hub balances. Not persistent. */
export class HubLedger {
  readonly #balances = new Map<string, HubBalance>();

  #entry(k: HubKey): HubBalance {
    const key = keyOf(k);
    let b = this.#balances.get(key);
    if (!b) {
      b = { chain: k.chain, owner: k.owner, currency: k.currency, amount: 0n, locked: 0n };
      this.#balances.set(key, b);
    }
    return b;
  }

  /** Available amount of a key (0 when none), base units. */
  available(k: HubKey): bigint {
    return this.#balances.get(keyOf(k))?.amount ?? 0n;
  }

  /**
   * Adds `amount` to the available balance (an attested deposit).
   *
   * @throws HubLedgerError `HUB_BAD_AMOUNT` when `amount` is not positive
   */
  credit(k: HubKey, amount: bigint): void {
    positive(amount);
    this.#entry(k).amount += amount;
  }

  /**
   * Moves `amount` from available to locked (a withdrawal job starts).
   *
   * @throws HubLedgerError `HUB_INSUFFICIENT_BALANCE` when less is available; `HUB_BAD_AMOUNT` when not positive
   */
  lock(k: HubKey, amount: bigint): void {
    positive(amount);
    const b = this.#entry(k);
    if (b.amount < amount) throw new HubLedgerError('HUB_INSUFFICIENT_BALANCE', `hub balance ${b.amount} is below ${amount}`);
    b.amount -= amount;
    b.locked += amount;
  }

  /**
   * Moves `amount` from locked back to available (the job expired or failed).
   *
   * @throws HubLedgerError `HUB_INSUFFICIENT_LOCKED` when less is locked
   */
  unlock(k: HubKey, amount: bigint): void {
    const b = this.#locked(k, amount);
    b.locked -= amount;
    b.amount += amount;
  }

  /**
   * Removes `amount` from locked (the owner executed the withdrawal: the funds left the depository).
   *
   * @throws HubLedgerError `HUB_INSUFFICIENT_LOCKED` when less is locked
   */
  consume(k: HubKey, amount: bigint): void {
    this.#locked(k, amount).locked -= amount;
  }

  /** Every balance ever touched, in insertion order (copies). */
  list(): HubBalance[] {
    return [...this.#balances.values()].map((b) => ({ ...b }));
  }

  #locked(k: HubKey, amount: bigint): HubBalance {
    positive(amount);
    const b = this.#entry(k);
    if (b.locked < amount) throw new HubLedgerError('HUB_INSUFFICIENT_LOCKED', `locked hub balance ${b.locked} is below ${amount}`);
    return b;
  }
}

function positive(amount: bigint): void {
  if (amount <= 0n) throw new HubLedgerError('HUB_BAD_AMOUNT', `hub amounts must be positive, got ${amount}`);
}
