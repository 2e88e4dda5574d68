/**
 * EVM depository ABI (source: relayprotocol/relay-depository): `depositNative(address depositor, bytes32 id)`
 * payable (selector 0x49290c1c), `depositErc20(address depositor, address token, uint256 amount, bytes32 id)`
 * (selector 0xe8017952), and their events (no indexed arguments).
 */
import { parseAbi } from 'viem';

/** Depository functions and events used by Ballast and by the sandbox solver. */
export const depositoryAbi = parseAbi([
  'function depositNative(address depositor, bytes32 id) payable',
  'function depositErc20(address depositor, address token, uint256 amount, bytes32 id)',
  'event RelayNativeDeposit(address from, uint256 amount, bytes32 id)',
  'event RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id)',
]);

/** Function selectors, checked against the published values in tests. */
export const DEPOSIT_NATIVE_SELECTOR = '0x49290c1c';
export const DEPOSIT_ERC20_SELECTOR = '0xe8017952';
