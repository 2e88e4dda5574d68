/**
 * Typed ABIs of the sandbox contracts in this folder, for viem calls. The JSON ABIs produced by the compiler
 * (see `compile.ts`) are used for deployment; the e2e test checks that every entry here exists in them.
 *
 * - Depository: the public Relay EVM depository ABI (`src/protocol/depositoryAbi.ts`) plus the sandbox-only
 *   owner functions of `RelayDepository.sol`.
 * - Stablecoin: viem's EIP-20 `erc20Abi` plus `mint` and `owner` of `TestStablecoin.sol`.
 * - Multicall3: use viem's `multicall3Abi`; `Multicall3.sol` implements the functions viem calls.
 */
import { erc20Abi, parseAbi } from 'viem';
import { depositoryAbi } from '../../protocol/depositoryAbi.ts';

/** Canonical Multicall3 address; the sandbox installs `Multicall3.sol`'s runtime code here on every chain. */
export const MULTICALL3_ADDRESS = '0xcA11bde05977b3631167028862bE2a173976CA11' as const;

/** Decimals of the sandbox stablecoin "USDC" (amounts are base units: 1 USDC = 1 000 000). */
export const SANDBOX_USDC_DECIMALS = 6;

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
