// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {TestTokenBase} from "./TestToken.sol";

/// @title TestTetherToken
/// @notice Sandbox ERC-20 that behaves like Tether USD on Ethereum ("Tether USD", "USDT", 6 decimals):
///         - `approve` reverts when it would change a non-zero allowance to another non-zero value (set it to 0
///           first, then to the new value);
///         - `transfer`, `transferFrom` and `approve` return no value (callers must accept empty return data);
///         - an allowance of 2^256-1 is never decreased by `transferFrom`.
///         Only the owner can mint.
/// @dev SANDBOX ONLY: worthless test money for local chains.
contract TestTetherToken is TestTokenBase {
    string public constant name = "Tether USD";
    string public constant symbol = "USDT";
    uint8 public constant decimals = 6;

    error NonZeroAllowanceChange(address spender, uint256 allowance, uint256 requested);

    constructor(address initialOwner) TestTokenBase(initialOwner) {}

    function transfer(address to, uint256 amount) external {
        _move(msg.sender, to, amount);
    }

    function approve(address spender, uint256 amount) external {
        uint256 current = allowance[msg.sender][spender];
        if (amount != 0 && current != 0) revert NonZeroAllowanceChange(spender, current, amount);
        _approve(spender, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        _transferFrom(from, to, amount);
    }
}
