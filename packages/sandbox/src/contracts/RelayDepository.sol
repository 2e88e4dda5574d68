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
///         Funds leave as in the public contract through the allocator-signed `execute(CallRequest, bytes)`:
///         EIP-712 domain {name "RelayDepository", version "1", chainId, this contract}, types
///         `CallRequest(Call[] calls,uint256 nonce,uint256 expiration)` / `Call(address to,bytes data,uint256
///         value,bool allowFailure)`; an expired, reused (`callRequests`) or not-allocator-signed request reverts;
///         calls run in order and each successful one emits `RelayCallExecuted(id, call)` (id = the struct hash).
/// @dev SANDBOX ONLY. Besides `execute`, funds can also leave through `withdrawNative` / `withdrawErc20`,
///      callable by the owner (the sandbox solver), so the solver can return a deposit on refund. The allocator
///      must be an EOA here (65-byte ECDSA signatures; no ERC-1271). Never deploy this contract to a real network.
contract RelayDepository {
    /// @notice One call of a call request; `value` in wei.
    struct Call {
        address to;
        bytes data;
        uint256 value;
        bool allowFailure;
    }

    /// @notice Calls signed together by the allocator; `expiration` in unix seconds.
    struct CallRequest {
        Call[] calls;
        uint256 nonce;
        uint256 expiration;
    }

    /// @notice Outcome of one call of `execute`.
    struct CallResult {
        bool success;
        bytes returnData;
    }

    /// @notice A native-currency deposit; `amount` is `msg.value` in wei.
    event RelayNativeDeposit(address from, uint256 amount, bytes32 id);

    /// @notice An ERC-20 deposit of `amount` base units of `token`.
    event RelayErc20Deposit(address from, address token, uint256 amount, bytes32 id);

    /// @notice A call of an executed call request succeeded; `id` is the request's EIP-712 struct hash.
    event RelayCallExecuted(bytes32 id, Call call);

    /// @notice Sandbox-only: the owner moved funds out (`token` is the zero address for the native currency).
    event SandboxWithdrawal(address token, address to, uint256 amount, bytes32 id);

    /// @notice Sandbox-only: ownership moved.
    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    error Unauthorized();
    error AddressCannotBeZero();
    error TransferFailed();
    error InvalidSignature();
    error CallRequestExpired();
    error CallRequestAlreadyUsed();
    error CallFailed(bytes returnData);

    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant CALL_TYPEHASH = keccak256("Call(address to,bytes data,uint256 value,bool allowFailure)");
    bytes32 private constant CALL_REQUEST_TYPEHASH =
        keccak256(
            "CallRequest(Call[] calls,uint256 nonce,uint256 expiration)Call(address to,bytes data,uint256 value,bool allowFailure)"
        );
    /// @dev Upper bound of `s` in a non-malleable secp256k1 signature (EIP-2).
    uint256 private constant HALF_CURVE_ORDER = 0x7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF5D576E7357A4501DDFE92F46681B20A0;

    /// @notice The account allowed to withdraw (the sandbox solver).
    address public owner;

    /// @notice The account whose EIP-712 signature authorises `execute` (the sandbox solver).
    address public allocator;

    /// @notice Call requests already executed, by struct hash.
    mapping(bytes32 => bool) public callRequests;

    constructor(address initialOwner, address initialAllocator) {
        if (initialOwner == address(0) || initialAllocator == address(0)) revert AddressCannotBeZero();
        owner = initialOwner;
        allocator = initialAllocator;
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

    /// @notice Replaces the allocator.
    function setAllocator(address newAllocator) external onlyOwner {
        if (newAllocator == address(0)) revert AddressCannotBeZero();
        allocator = newAllocator;
    }

    /// @notice Executes a call request signed by the allocator, once, before its expiration.
    /// @param request the calls, a nonce that makes the request unique, and its expiration (unix seconds)
    /// @param signature the allocator's 65-byte EIP-712 signature over `request`
    /// @return results success and return data of each call
    function execute(CallRequest calldata request, bytes calldata signature) external returns (CallResult[] memory results) {
        bytes32 id = _hashCallRequest(request);
        if (request.expiration < block.timestamp) revert CallRequestExpired();
        bytes32 digest = keccak256(abi.encodePacked("\x19\x01", _domainSeparator(), id));
        if (_recover(digest, signature) != allocator) revert InvalidSignature();
        if (callRequests[id]) revert CallRequestAlreadyUsed();
        callRequests[id] = true;

        uint256 length = request.calls.length;
        results = new CallResult[](length);
        for (uint256 i = 0; i < length; i++) {
            Call calldata c = request.calls[i];
            (bool success, bytes memory returnData) = c.to.call{value: c.value}(c.data);
            if (!success && !c.allowFailure) revert CallFailed(returnData);
            results[i] = CallResult(success, returnData);
            if (success) emit RelayCallExecuted(id, c);
        }
    }

    /// @dev EIP-712 domain separator, computed per call so it follows the chain id.
    function _domainSeparator() private view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, keccak256("RelayDepository"), keccak256("1"), block.chainid, address(this)));
    }

    /// @dev EIP-712 struct hash of a call request (also its id in `callRequests` and `RelayCallExecuted`).
    function _hashCallRequest(CallRequest calldata request) private pure returns (bytes32) {
        uint256 length = request.calls.length;
        bytes32[] memory callHashes = new bytes32[](length);
        for (uint256 i = 0; i < length; i++) {
            Call calldata c = request.calls[i];
            callHashes[i] = keccak256(abi.encode(CALL_TYPEHASH, c.to, keccak256(c.data), c.value, c.allowFailure));
        }
        return keccak256(abi.encode(CALL_REQUEST_TYPEHASH, keccak256(abi.encodePacked(callHashes)), request.nonce, request.expiration));
    }

    /// @dev Signer of a 65-byte (r, s, v) signature; the zero address for a malformed or malleable one.
    function _recover(bytes32 digest, bytes calldata signature) private pure returns (address) {
        if (signature.length != 65) return address(0);
        bytes32 r = bytes32(signature[0:32]);
        bytes32 s = bytes32(signature[32:64]);
        uint8 v = uint8(signature[64]);
        if (uint256(s) > HALF_CURVE_ORDER || (v != 27 && v != 28)) return address(0);
        return ecrecover(digest, v, r, s);
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
