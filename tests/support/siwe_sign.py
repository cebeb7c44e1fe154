"""Signs a Sign-In with Ethereum message as a wallet's personal_sign does (EIP-191), with Python's eth-account: an
implementation independent of the Rust crate that verifies it.

Usage: python3 siwe_sign.py --serve

It says "ready", then answers one JSON request a line on stdin with one line: {"key", "message"} with the signature
(0x + 130 hex digits), {"key", "address": true} with the account's address. One process serves a whole test, since
starting Python with eth-account costs about a second of CPU.
"""
import json
import sys

from eth_account import Account
from eth_account.messages import encode_defunct


def answer(key, message, address):
    account = Account.from_key(key)
    if address:
        return account.address
    return "0x" + account.sign_message(encode_defunct(text=message)).signature.hex()


if sys.argv[1:] != ["--serve"]:
    sys.exit(__doc__)
print("ready", flush=True)
for line in sys.stdin:
    request = json.loads(line)
    print(answer(request["key"], request.get("message", ""), request.get("address", False)), flush=True)
