// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {TestToken} from "./TestToken.sol";

/// @title TestStablecoin
/// @notice Sandbox ERC-20 ("USD Coin", "USDC", 6 decimals) following EIP-20: a `TestToken` with fixed name,
///         symbol and decimals. Only the owner can mint.
/// @dev SANDBOX ONLY: worthless test money for local chains.
contract TestStablecoin is TestToken {
    constructor(address initialOwner) TestToken("USD Coin", "USDC", 6, initialOwner) {}
}
