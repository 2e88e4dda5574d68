/**
 * The simulated parties and contracts of one seed: private keys and addresses derived from the seed (so a run is
 * reproducible without any well-known development key), the chains named by a scenario with their ids and slugs,
 * and the one simulated token (same address and decimals on every chain).
 */
import { getAddress, keccak256, pad, stringToHex, type Address, type Hex } from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';

/** A simulated chain: the scenario's name, an EIP-155 id and a protocol slug. */
export interface SimChain {
  name: string;
  chainId: number;
  slug: string;
}

/** The simulated token: symbol, decimals, USD price (decimal string) and its address (the same on every chain). */
export interface SimToken {
  symbol: string;
  decimals: number;
  priceUsd: string;
  address: Address;
}

/** Keys, accounts and contract addresses of one seed. Addresses are lower-case 0x hex. */
export interface SimIdentity {
  seed: number;
  /** The treasury's private key (what the Ballast config's wallet is given). */
  treasuryKey: Hex;
  treasury: PrivateKeyAccount;
  solver: PrivateKeyAccount;
  /** Where payments out of the treasury go, and where receipts come from (an account with unbounded funds). */
  counterparty: Address;
  depository: Address;
  erc20Router: Address;
  approvalProxy: Address;
}

/** A 32-byte value derived from the seed and a label. */
export function derive(seed: number, label: string): Hex {
  return keccak256(stringToHex(`ballast-simulate/${seed}/${label}`));
}

/** A lower-case address derived from the seed and a label. */
export function deriveAddress(seed: number, label: string): Address {
  return getAddress(`0x${derive(seed, label).slice(26)}`).toLowerCase() as Address; // 20 bytes of a hash, checked
}

/** The identity of a seed (deterministic). */
export function simIdentity(seed: number): SimIdentity {
  const treasuryKey = derive(seed, 'treasury-key');
  return {
    seed,
    treasuryKey,
    treasury: privateKeyToAccount(treasuryKey),
    solver: privateKeyToAccount(derive(seed, 'solver-key')),
    counterparty: deriveAddress(seed, 'counterparty'),
    depository: deriveAddress(seed, 'depository'),
    erc20Router: deriveAddress(seed, 'erc20-router'),
    approvalProxy: deriveAddress(seed, 'approval-proxy'),
  };
}

/** The simulated chains for scenario chain names, in order: ids 910001, 910002, … and slugs `sim-<name>`. */
export function simChains(names: readonly string[]): SimChain[] {
  return names.map((name, i) => ({ name, chainId: 910_001 + i, slug: `sim-${name.toLowerCase().replace(/[^a-z0-9-]/g, '-')}` }));
}

/** The token of a seed with the scenario's symbol, decimals and price. */
export function simToken(seed: number, symbol: string, decimals: number, priceUsd = '1'): SimToken {
  return { symbol, decimals, priceUsd, address: deriveAddress(seed, `token-${symbol}`) };
}

/** `extraData` of an order leg: the chain's v3 `erc20Router` left-padded to 32 bytes (docs/relay-contract.md "protocol.v2"). */
export function routerExtraData(id: SimIdentity): Hex {
  return pad(id.erc20Router, { size: 32 });
}

/**
 * The GET /chains document of the simulated chains (docs/relay-contract.md "Chain object"): the token as the only
 * ERC-20, the router contracts, the solver, and protocol.v2 with slug and depository.
 */
export function simChainsDocument(chains: readonly SimChain[], token: SimToken, id: SimIdentity) {
  const native = {
    id: 'eth',
    symbol: 'ETH',
    name: 'Ether',
    address: '0x0000000000000000000000000000000000000000',
    decimals: 18,
    supportsBridging: true,
  };
  const erc20 = {
    id: token.symbol.toLowerCase(),
    symbol: token.symbol,
    name: token.symbol,
    address: token.address,
    decimals: token.decimals,
    supportsBridging: true,
  };
  const routers = { erc20Router: id.erc20Router, approvalProxy: id.approvalProxy };
  return {
    chains: chains.map((c) => ({
      id: c.chainId,
      name: c.slug,
      displayName: c.name,
      httpRpcUrl: 'http://127.0.0.1:9',
      wsRpcUrl: '',
      explorerUrl: '',
      explorerName: '',
      vmType: 'evm',
      depositEnabled: true,
      tokenSupport: 'All',
      disabled: false,
      partialDisableLimit: 0,
      blockProductionLagging: false,
      currency: native,
      withdrawalFee: 0,
      depositFee: 0,
      surgeEnabled: false,
      featuredTokens: [],
      erc20Currencies: [erc20],
      solverCurrencies: [native, erc20],
      contracts: { multicall3: '0xca11bde05977b3631167028862be2a173976ca11', ...routers, v3: routers, 'v3.2': routers },
      solverAddresses: [id.solver.address.toLowerCase()],
      tags: ['simulated'],
      protocol: { v2: { chainId: c.slug, depository: id.depository } },
    })),
  };
}
