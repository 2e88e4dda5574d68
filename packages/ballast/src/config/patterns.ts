/**
 * Patterns shared by the configuration schemas (a leaf module, so section schemas in their own files can use
 * them without importing schema.ts).
 */
/** Names of wallets, chains and assets: short identifiers that are also used as metric labels. */
export const NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** Non-negative whole-unit decimal amount ("50000", "0.25"). */
export const WHOLE_AMOUNT_RE = /^[0-9]+(\.[0-9]+)?$/;
/** Non-negative USD decimal amount ("25", "0.5"). */
export const USD_AMOUNT_RE = /^[0-9]+(\.[0-9]+)?$/;
/** `host:port` listen address; IPv6 hosts in brackets (`[::1]:9464`). */
export const LISTEN_RE = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/;
