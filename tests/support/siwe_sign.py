"""Signs a Sign-In with Ethereum message as a wallet's personal_sign does (EIP-191), with Python's eth-account: an
implementation independent of the Rust crate that verifies it.

Usage: python3 siwe_sign.py PRIVATE_KEY_HEX < message      (prints the address, then 0x + 130 hex digits)
"""
import sys

from eth_account import Account
from eth_account.messages import encode_defunct

account = Account.from_key(sys.argv[1])
message = sys.stdin.buffer.read().decode("utf-8")
if len(sys.argv) > 2 and sys.argv[2] == "--address":
    print(account.address)
else:
    print("0x" + account.sign_message(encode_defunct(text=message)).signature.hex())
