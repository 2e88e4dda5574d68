// SPDX-License-Identifier: UNLICENSED
pragma solidity ^0.8.24;

import {RelayRouter} from "./RelayRouter.sol";

/// @title ApprovalProxy (sandbox)
/// @notice Local stand-in for the approval proxy GET /chains lists as `contracts.approvalProxy` and
///         `contracts.v3.approvalProxy` (relayprotocol/relay-periphery README "Standard Approval Flow"): the caller
///         approves this contract, then `transferAndMulticall` pulls `amounts[i]` of `tokens[i]` from the caller
///         into the router (`transferFrom(msg.sender, router, amount)`) and asks the router to run `calls`.
///         Both public shapes are served: `transferAndMulticall(address[],uint256[],(address,bool,uint256,bytes)[],
///         address,address)` (0x30875056) and the v3 form with a trailing `bytes metadata` (0xf9e4bab4, as real
///         quotes that swap on the origin chain call it).
/// @dev SANDBOX ONLY. Permit flows are not implemented. Token calls accept tokens that return no value.
contract ApprovalProxy {
    /// @notice The router tokens are moved to and whose `multicall` runs the calls.
    address payable public immutable router;

    error AddressCannotBeZero();
    error ArrayLengthsMismatch();
    error RefundToCannotBeZeroAddress();
    error TransferFailed();

    constructor(address payable router_) {
        if (router_ == address(0)) revert AddressCannotBeZero();
        router = router_;
    }

    /// @notice Pulls the tokens from `msg.sender` into the router, then runs `calls` on the router (`msg.value`
    ///         is forwarded). Needs a prior `approve(this, amount)` per token.
    function transferAndMulticall(
        address[] calldata tokens,
        uint256[] calldata amounts,
        RelayRouter.Call3Value[] calldata calls,
        address refundTo,
        address nftRecipient
    ) external payable returns (RelayRouter.Result[] memory) {
        return _transferAndMulticall(tokens, amounts, calls, refundTo, nftRecipient);
    }

    /// @notice v3 form: as above; `refundTo` must not be zero and `metadata` is only carried along.
    function transferAndMulticall(
        address[] calldata tokens,
        uint256[] calldata amounts,
        RelayRouter.Call3Value[] calldata calls,
        address refundTo,
        address nftRecipient,
        bytes calldata /* metadata */
    ) external payable returns (RelayRouter.Result[] memory) {
        if (refundTo == address(0)) revert RefundToCannotBeZeroAddress();
        return _transferAndMulticall(tokens, amounts, calls, refundTo, nftRecipient);
    }

    function _transferAndMulticall(
        address[] calldata tokens,
        uint256[] calldata amounts,
        RelayRouter.Call3Value[] calldata calls,
        address refundTo,
        address nftRecipient
    ) private returns (RelayRouter.Result[] memory) {
        if (tokens.length != amounts.length) revert ArrayLengthsMismatch();
        for (uint256 i = 0; i < tokens.length; i++) {
            // transferFrom(address,address,uint256)
            _callToken(tokens[i], abi.encodeWithSelector(0x23b872dd, msg.sender, router, amounts[i]));
        }
        return RelayRouter(router).multicall{value: msg.value}(calls, refundTo, nftRecipient);
    }

    /// @dev Calls a token and accepts both `true` and empty return data (tokens that return nothing).
    function _callToken(address token, bytes memory data) private {
        if (token.code.length == 0) revert TransferFailed();
        (bool ok, bytes memory ret) = token.call(data);
        if (!ok || (ret.length != 0 && !abi.decode(ret, (bool)))) revert TransferFailed();
    }
}
