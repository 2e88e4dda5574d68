// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title TestTokenBase
/// @notice Ledger shared by the sandbox ERC-20s (`TestToken`, `TestStablecoin`, `TestTetherToken`): supply,
///         balances, allowances, owner-only minting, and the internal moves their EIP-20 entry points call.
///         Name, symbol, decimals and the public `transfer`/`approve`/`transferFrom` are left to each token
///         (the Tether-style one returns no value and restricts `approve`).
/// @dev SANDBOX ONLY: worthless test money for local chains.
abstract contract TestTokenBase {
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

    /// @dev Sets the allowance of `spender` over the caller's tokens and emits Approval.
    function _approve(address spender, uint256 amount) internal {
        allowance[msg.sender][spender] = amount;
        emit Approval(msg.sender, spender, amount);
    }

    /// @dev Moves `amount` from `from` to `to` on behalf of the caller, spending its allowance
    ///      (an allowance of 2^256-1 is never decreased).
    function _transferFrom(address from, address to, uint256 amount) internal {
        uint256 allowed = allowance[from][msg.sender];
        if (allowed != type(uint256).max) {
            if (allowed < amount) revert InsufficientAllowance(msg.sender, allowed, amount);
            unchecked {
                allowance[from][msg.sender] = allowed - amount;
            }
        }
        _move(from, to, amount);
    }

    /// @dev Moves `amount` base units from `from` to `to` and emits Transfer.
    function _move(address from, address to, uint256 amount) internal {
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

/// @title TestToken
/// @notice Sandbox ERC-20 following EIP-20 whose name, symbol and decimals are set at deployment (the sandbox
///         deploys it as "Wrapped BTC", "WBTC", 8 decimals). Only the owner can mint.
/// @dev SANDBOX ONLY: worthless test money for local chains.
contract TestToken is TestTokenBase {
    string public name;
    string public symbol;
    uint8 public immutable decimals;

    constructor(string memory tokenName, string memory tokenSymbol, uint8 tokenDecimals, address initialOwner)
        TestTokenBase(initialOwner)
    {
        name = tokenName;
        symbol = tokenSymbol;
        decimals = tokenDecimals;
    }

    function transfer(address to, uint256 amount) external returns (bool) {
        _move(msg.sender, to, amount);
        return true;
    }

    function approve(address spender, uint256 amount) external returns (bool) {
        _approve(spender, amount);
        return true;
    }

    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        _transferFrom(from, to, amount);
        return true;
    }
}
