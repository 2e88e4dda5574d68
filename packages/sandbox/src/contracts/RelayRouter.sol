// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

/// @title RelayRouter (sandbox)
/// @notice Local stand-in for the router GET /chains lists as `contracts.erc20Router` and `contracts.v3.erc20Router`.
///         Like the public router (relayprotocol/relay-periphery `IRelayRouter` / `RelayRouterV3`) it executes
///         arbitrary calls for ANY caller, with itself as `msg.sender`: tokens sent to it, and allowances granted to
///         it, can be taken by anyone who calls `multicall`. Selectors match the public interface:
///         `multicall((address,bool,uint256,bytes)[],address,address)` (0x30be5567),
///         `cleanupErc20s(address[],address[],uint256[])` (0x3b2253c8), `cleanupNative(uint256,address)` (0x5de81e3f),
///         `cleanupNativeViaCall(uint256,address,bytes)`.
/// @dev SANDBOX ONLY. The public router's ERC-721/ERC-1155 forwarding (`nftRecipient`) is not implemented: the
///      argument is accepted and ignored. Token calls accept tokens that return no value (Tether style).
contract RelayRouter {
    /// @notice One call of a multicall: `value` wei are sent along; a failing call with `allowFailure == false`
    ///         reverts the whole multicall.
    struct Call3Value {
        address target;
        bool allowFailure;
        uint256 value;
        bytes callData;
    }

    /// @notice Outcome of one call of a multicall.
    struct Result {
        bool success;
        bytes returnData;
    }

    /// @notice Native currency left the router (same name as the public router's event).
    event SolverNativeTransfer(address to, uint256 amount);

    error ArrayLengthsMismatch();
    error CallFailed();
    error CallReverted(uint256 index, bytes returnData);
    error NativeTransferFailed();
    error TransferFailed();

    receive() external payable {}

    /// @notice Runs `calls` in order with this contract as `msg.sender`, then sends any native currency left
    ///         here to `refundTo` (`msg.sender` when zero).
    /// @return returnData success flag and return data of each call
    function multicall(Call3Value[] calldata calls, address refundTo, address /* nftRecipient */)
        external
        payable
        returns (Result[] memory returnData)
    {
        uint256 length = calls.length;
        returnData = new Result[](length);
        for (uint256 i = 0; i < length; i++) {
            Call3Value calldata c = calls[i];
            (bool ok, bytes memory data) = c.target.call{value: c.value}(c.callData);
            if (!ok && !c.allowFailure) revert CallReverted(i, data);
            returnData[i] = Result(ok, data);
        }
        cleanupNative(0, refundTo);
    }

    /// @notice Sends `amounts[i]` of `tokens[i]` held here to `recipients[i]`; an amount of 0 sends the whole balance.
    function cleanupErc20s(address[] calldata tokens, address[] calldata recipients, uint256[] calldata amounts) external {
        if (tokens.length != amounts.length || amounts.length != recipients.length) revert ArrayLengthsMismatch();
        for (uint256 i = 0; i < tokens.length; i++) {
            uint256 amount = amounts[i] == 0 ? _balanceOf(tokens[i]) : amounts[i];
            if (amount > 0) _callToken(tokens[i], abi.encodeWithSelector(0xa9059cbb, recipients[i], amount)); // transfer(address,uint256)
        }
    }

    /// @notice Sends `amount` wei held here (0 = all) to `recipient` (`msg.sender` when zero).
    function cleanupNative(uint256 amount, address recipient) public {
        address to = recipient == address(0) ? msg.sender : recipient;
        uint256 value = amount == 0 ? address(this).balance : amount;
        if (value == 0) return;
        (bool ok, ) = to.call{value: value}("");
        if (!ok) revert NativeTransferFailed();
        emit SolverNativeTransfer(to, value);
    }

    /// @notice Sends `amount` wei held here (0 = all) along with a call of `data` on `to` (e.g. a depository's
    ///         `depositNative`).
    function cleanupNativeViaCall(uint256 amount, address to, bytes calldata data) external {
        uint256 value = amount == 0 ? address(this).balance : amount;
        if (value == 0) return;
        (bool ok, ) = to.call{value: value}(data);
        if (!ok) revert CallFailed();
    }

    function _balanceOf(address token) private view returns (uint256) {
        (bool ok, bytes memory ret) = token.staticcall(abi.encodeWithSelector(0x70a08231, address(this))); // balanceOf(address)
        if (!ok || ret.length < 32) revert TransferFailed();
        return abi.decode(ret, (uint256));
    }

    /// @dev Calls a token and accepts both `true` and empty return data (tokens that return nothing).
    function _callToken(address token, bytes memory data) private {
        if (token.code.length == 0) revert TransferFailed();
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}
