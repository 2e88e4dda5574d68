/**
 * Typed ABIs of the sandbox contracts in this folder, for viem calls. The JSON ABIs produced by the compiler
 * (see `compile.ts`) are used for deployment; the e2e test checks that every entry here exists in them.
 *
 * - Depository: the public Relay EVM depository ABI (`src/protocol/depositoryAbi.ts`) plus the sandbox-only
 *   owner functions of `RelayDepository.sol`.
 * - Stablecoin: viem's EIP-20 `erc20Abi` plus `mint` and `owner` of `TestStablecoin.sol`.
 * - Tether-style token (`TestTetherToken.sol`): EIP-20 except that `transfer`, `transferFrom` and `approve`
 *   return nothing, plus `mint` and `owner`.
 * - Router and approval proxy (`RelayRouter.sol`, `ApprovalProxy.sol`): the public relay-periphery selectors.
 * - Multicall3: use viem's `multicall3Abi`; `Multicall3.sol` implements the functions viem calls.
 */
import { erc20Abi, parseAbi } from 'viem';
import { depositoryAbi } from '@ballast/protocol/protocol/depositoryAbi.ts';

/** Canonical Multicall3 address; the sandbox installs `Multicall3.sol`'s runtime code here on every chain. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/** Decimals of the sandbox stablecoin "USDC" (amounts are base units: 1 USDC = 1 000 000). */
export const SANDBOX_USDC_DECIMALS = 6;

/** Decimals of the sandbox Tether-style token "USDT" (1 USDT = 1 000 000 base units). */
export const SANDBOX_USDT_DECIMALS = 6;

/** Decimals of the sandbox wrapped bitcoin "WBTC" (a `TestToken.sol` deployment; 1 WBTC = 100 000 000 base units). */
export const SANDBOX_WBTC_DECIMALS = 8;

/** Sandbox-only functions, events and errors of `RelayDepository.sol` (owner = the sandbox solver). */
export const sandboxDepositoryOwnerAbi = parseAbi([
  'function depositErc20(address depositor, address token, bytes32 id)',
  'function owner() view returns (address)',
  'function withdrawNative(address to, uint256 amount, bytes32 id)',
  'function withdrawErc20(address token, address to, uint256 amount, bytes32 id)',
  'function transferOwnership(address newOwner)',
  'event SandboxWithdrawal(address token, address to, uint256 amount, bytes32 id)',
  'event OwnershipTransferred(address indexed previousOwner, address indexed newOwner)',
  'error Unauthorized()',
  'error AddressCannotBeZero()',
  'error TransferFailed()',
]);

/**
 * Full ABI of the sandbox `RelayDepository`: deposits (public Relay ABI, selectors 0x49290c1c / 0xe8017952)
 * plus the owner-only `withdrawNative(to, amountWei, id)` / `withdrawErc20(token, to, amountBaseUnits, id)`
 * the solver uses to return funds on refund.
 */
export const sandboxDepositoryAbi = [...depositoryAbi, ...sandboxDepositoryOwnerAbi] as const;

/** Owner-only minting and custom errors of `TestStablecoin.sol`. */
export const testStablecoinExtraAbi = parseAbi([
  'function mint(address to, uint256 amount)',
  'function owner() view returns (address)',
  'error Unauthorized()',
  'error InsufficientBalance(address account, uint256 balance, uint256 needed)',
  'error InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error InvalidReceiver(address receiver)',
]);

/** Full ABI of the sandbox stablecoin: EIP-20 (viem `erc20Abi`) + `mint(to, amountBaseUnits)` (owner only) + `owner()`. */
export const testStablecoinAbi = [...erc20Abi, ...testStablecoinExtraAbi] as const;

/**
 * Full ABI of the sandbox's configurable token (`TestToken.sol`, deployed as "Wrapped BTC" / "WBTC" with 8
 * decimals): the same functions, events and errors as {@link testStablecoinAbi}; name, symbol and decimals are
 * constructor arguments.
 */
export const testTokenAbi = testStablecoinAbi;

/**
 * Full ABI of the sandbox Tether-style token (`TestTetherToken.sol`): like Tether USD on Ethereum, `transfer`,
 * `transferFrom` and `approve` return NO value, and `approve` reverts with `NonZeroAllowanceChange` when it
 * would change a non-zero allowance to another non-zero value. Read functions, events and `mint` (owner only)
 * as in {@link testStablecoinAbi}.
 */
export const testTetherAbi = parseAbi([
  'function name() view returns (string)',
  'function symbol() view returns (string)',
  'function decimals() view returns (uint8)',
  'function totalSupply() view returns (uint256)',
  'function balanceOf(address account) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function transfer(address to, uint256 amount)',
  'function transferFrom(address from, address to, uint256 amount)',
  'function approve(address spender, uint256 amount)',
  'function mint(address to, uint256 amount)',
  'function owner() view returns (address)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
  'error Unauthorized()',
  'error InsufficientBalance(address account, uint256 balance, uint256 needed)',
  'error InsufficientAllowance(address spender, uint256 allowance, uint256 needed)',
  'error InvalidReceiver(address receiver)',
  'error NonZeroAllowanceChange(address spender, uint256 allowance, uint256 requested)',
]);

/**
 * ABI of the sandbox router (`RelayRouter.sol`, listed as `erc20Router` and `v3.erc20Router`): executes any
 * caller's calls with itself as `msg.sender` (relayprotocol/relay-periphery `IRelayRouter`: `multicall`
 * 0x30be5567, `cleanupErc20s` 0x3b2253c8, `cleanupNative` 0x5de81e3f, plus `cleanupNativeViaCall`).
 * Amounts are base units / wei; an amount of 0 in a cleanup means the whole balance.
 */
export const relayRouterAbi = parseAbi([
  'struct Call3Value { address target; bool allowFailure; uint256 value; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function multicall(Call3Value[] calls, address refundTo, address nftRecipient) payable returns (Result[] returnData)',
  'function cleanupErc20s(address[] tokens, address[] recipients, uint256[] amounts)',
  'function cleanupNative(uint256 amount, address recipient)',
  'function cleanupNativeViaCall(uint256 amount, address to, bytes data)',
  'event SolverNativeTransfer(address to, uint256 amount)',
  'error ArrayLengthsMismatch()',
  'error CallFailed()',
  'error CallReverted(uint256 index, bytes returnData)',
  'error NativeTransferFailed()',
  'error TransferFailed()',
]);

/**
 * ABI of the sandbox approval proxy (`ApprovalProxy.sol`, listed as `approvalProxy` and `v3.approvalProxy`):
 * `transferAndMulticall(tokens, amounts, calls, refundTo, nftRecipient)` (0x30875056) and the v3 form with a
 * trailing `bytes metadata` (0xf9e4bab4) pull `amounts[i]` base units of `tokens[i]` from the caller into the
 * router, then run `calls` there; `router()` names that router.
 */
export const approvalProxyAbi = parseAbi([
  'struct Call3Value { address target; bool allowFailure; uint256 value; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function router() view returns (address)',
  'function transferAndMulticall(address[] tokens, uint256[] amounts, Call3Value[] calls, address refundTo, address nftRecipient) payable returns (Result[])',
  'function transferAndMulticall(address[] tokens, uint256[] amounts, Call3Value[] calls, address refundTo, address nftRecipient, bytes metadata) payable returns (Result[])',
  'error AddressCannotBeZero()',
  'error ArrayLengthsMismatch()',
  'error RefundToCannotBeZeroAddress()',
  'error TransferFailed()',
]);
