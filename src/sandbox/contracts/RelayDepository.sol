// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @dev The three ERC-20 entry points the depository calls.
interface ISandboxErc20 {
    function transfer(address to, uint256 amount) external returns (bool);
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function allowance(address holder, address spender) external view returns (uint256);
}

/// @title RelayDepository (sandbox)
/// @notice Local stand-in for the Relay EVM depository. The deposit functions and events have the same
///         signatures, selectors and `from` rule as the public relay-depository contract:
///         `depositNative(address,bytes32)` (0x49290c1c) and `depositErc20(address,address,uint256,bytes32)`
///         (0xe8017952) emit `RelayNativeDeposit` / `RelayErc20Deposit` with no indexed arguments, and
///         `from` is `depositor`, or `msg.sender` when `depositor` is the zero address.
/// @dev SANDBOX ONLY. Instead of the production allocator-signed `execute(CallRequest, signature)`, funds
///      leave through `withdrawNative` / `withdrawErc20`, callable by the owner (the sandbox solver), so the
///      solver can return a deposit on refund. Never deploy this contract to a real network.
contract RelayDepository {
    /// @notice A native-currency deposit; `amount` is `msg.value` in wei.
    event RelayNativeDeposit(address from, uint256 amount, bytes32 id);

    /// @notice An ERC-20 deposit of `amount` base units of `token`.
    event RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id);

    /// @notice Sandbox-only: the owner moved funds out (`token` is the zero address for the native currency).
    event SandboxWithdrawal(address token, address to, uint256 amount, bytes32 id);

    /// @notice Sandbox-only: ownership moved.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error Unauthorized();
    error AddressCannotBeZero();
    error TransferFailed();

    /// @notice The account allowed to withdraw (the sandbox solver).
    address public owner;

    constructor(address initialOwner) {
        if (initialOwner == address(0)) revert AddressCannotBeZero();
        owner = initialOwner;
        emit OwnershipTransferred(address(0), initialOwner);
    }

    modifier onlyOwner() {
        if (msg.sender != owner) revert Unauthorized();
        _;
    }

    /// @notice Deposits `msg.value` wei for order `id`.
    /// @param depositor account credited; zero credits `msg.sender`
    function depositNative(address depositor, bytes32 id) external payable {
        emit RelayNativeDeposit(_creditedAccount(depositor), msg.value, id);
    }

    /// @notice Pulls `amount` base units of `token` from `msg.sender` (needs a prior approve) for order `id`.
    /// @param depositor account credited; zero credits `msg.sender`
    function depositErc20(address depositor, address token, uint256 amount, bytes32 id) public {
        _callToken(token, abi.encodeCall(ISandboxErc20.transferFrom, (msg.sender, address(this), amount)));
        emit RelayErc20Deposit(_creditedAccount(depositor), token, amount, id);
    }

    /// @notice Same as the four-argument form, with `amount` = the caller's whole allowance to this contract.
    function depositErc20(address depositor, address token, bytes32 id) external {
        depositErc20(depositor, token, ISandboxErc20(token).allowance(msg.sender, address(this)), id);
    }

    /// @notice Sandbox-only: sends `amount` wei to `to` (refunds). `id` is echoed in the event.
    function withdrawNative(address payable to, uint256 amount, bytes32 id) external onlyOwner {
        if (to == address(0)) revert AddressCannotBeZero();
        (bool ok, ) = to.call{value: amount}("");
        if (!ok) revert TransferFailed();
        emit SandboxWithdrawal(address(0), to, amount, id);
    }

    /// @notice Sandbox-only: sends `amount` base units of `token` to `to` (refunds). `id` is echoed in the event.
    function withdrawErc20(address token, address to, uint256 amount, bytes32 id) external onlyOwner {
        if (to == address(0)) revert AddressCannotBeZero();
        _callToken(token, abi.encodeCall(ISandboxErc20.transfer, (to, amount)));
        emit SandboxWithdrawal(token, to, amount, id);
    }

    /// @notice Sandbox-only: hands the withdraw right to `newOwner`.
    function transferOwnership(address newOwner) external onlyOwner {
        if (newOwner == address(0)) revert AddressCannotBeZero();
        emit OwnershipTransferred(owner, newOwner);
        owner = newOwner;
    }

    function _creditedAccount(address depositor) private view returns (address) {
        return depositor == address(0) ? msg.sender : depositor;
    }

    /// @dev Calls a token and accepts both `true` and empty return data (tokens that return nothing).
    function _callToken(address token, bytes memory data) private {
        if (token.code.length == 0) revert TransferFailed();
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}
