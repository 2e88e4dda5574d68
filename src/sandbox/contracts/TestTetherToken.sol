// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title TestTetherToken
/// @notice Sandbox ERC-20 that behaves like Tether USD on Ethereum ("Tether USD", "USDT", 6 decimals):
///         - `approve` reverts when it would change a non-zero allowance to another non-zero value (set it to 0
///           first, then to the new value);
///         - `transfer`, `transferFrom` and `approve` return no value (callers must accept empty return data);
///         - an allowance of 2^256-1 is never decreased by `transferFrom`.
///         Only the owner can mint.
/// @dev SANDBOX ONLY: worthless test money for local chains.
contract TestTetherToken {
    string public constant name = "Tether USD";
    string public constant symbol = "USDT";
    uint8 public constant decimals = 6;

    uint256 public totalSupply;
    address public owner;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error Unauthorized();
    error InsufficientBalance(address account, uint256 balance, uint256 needed);
    error InsufficientAllowance(address spender, uint256 allowance, uint256 needed);
    error InvalidReceiver(address receiver);
    error NonZeroAllowanceChange(address spender, uint256 allowance, uint256 requested);

    constructor(address initialOwner) {
        owner = initialOwner;
    }

    /// @notice Creates `amount` base units for `to`. Owner only.
    function mint(address to, uint256 amount) external {
        if (msg.sender != owner) revert Unauthorized();
        if (to == address(0)) revert InvalidReceiver(to);
        totalSupply += amount;
        unchecked {
            balanceOf[to] += amount; // cannot overflow: bounded by totalSupply
        }
        emit Transfer(address(0), to, amount);
    }

    function transfer(address to, uint256 amount) external {
        _move(msg.sender, to, amount);
    }

    function approve(address spender, uint256 amount) external {
        uint256 current = allowance[msg.sender][spender];
        if (amount != 0 && current != 0) revert NonZeroAllowanceChange(spender, current, amount);
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
    }

    function transferFrom(address from, address to, uint256 amount) external {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
            unchecked {
                allowance[from][msg.sender] = allowed - amount;
            }
        }
        _move(from, to, amount);
    }

    function _move(address from, address to, uint256 amount) private {
        if (to == address(0)) revert InvalidReceiver(to);
        uint256 balance = balanceOf[from];
        if (balance < amount) revert InsufficientBalance(from, balance, amount);
        unchecked {
            balanceOf[from] = balance - amount;
            balanceOf[to] += amount; // cannot overflow: bounded by totalSupply
        }
        emit Transfer(from, to, amount);
    }
}
