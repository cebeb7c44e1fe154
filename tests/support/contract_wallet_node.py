"""A stand-in chain node for smart-contract wallet (EIP-1271) logins: JSON-RPC over HTTP answering eth_chainId and
eth_call. It plays one contract wallet at CONTRACT that approves exactly one signature for exactly one message:
the call data is decoded with eth-abi and the message hash recomputed with eth-account (implementations independent
of the Rust code under test), so a wrongly encoded call or hash is refused as a real contract would refuse it.

Usage: python3 contract_wallet_node.py PORT CHAIN_ID CONTRACT APPROVED_SIGNATURE_HEX MESSAGE_FILE
Prints READY, then one JSON line per eth_call: {"to", "hashOk", "signatureOk"}.
A signature of b"revert" makes the contract revert.
"""
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from eth_abi import decode
from eth_account.messages import defunct_hash_message
from eth_utils import keccak

port, chain_id, contract, approved, message_file = sys.argv[1:6]
SELECTOR = keccak(text="isValidSignature(bytes32,bytes)")[:4]
MAGIC = "0x" + SELECTOR.hex() + "00" * 28


def call(params):
    to, data = params[0]["to"].lower(), bytes.fromhex(params[0]["data"][2:])
    if to != contract.lower():
        return {"result": "0x"}  # no code at that address
    if data[:4] != SELECTOR:
        return {"error": {"code": 3, "message": "execution reverted: unknown selector"}}
    digest, signature = decode(["bytes32", "bytes"], data[4:])
    with open(message_file, encoding="utf-8") as f:
        expected = defunct_hash_message(text=f.read())
    hash_ok, signature_ok = digest == expected, signature == bytes.fromhex(approved)
    print(json.dumps({"to": to, "hashOk": hash_ok, "signatureOk": signature_ok}), flush=True)
    if signature == b"revert":
        return {"error": {"code": 3, "message": "execution reverted"}}
    return {"result": MAGIC if hash_ok and signature_ok else "0x" + "00" * 32}


class Node(BaseHTTPRequestHandler):
    def do_POST(self):
        request = json.loads(self.rfile.read(int(self.headers["content-length"])))
        if request["method"] == "eth_chainId":
            answer = {"result": hex(int(chain_id))}
        elif request["method"] == "eth_call":
            answer = call(request["params"])
        else:
            answer = {"error": {"code": -32601, "message": "method not found"}}
        body = json.dumps({"jsonrpc": "2.0", "id": request.get("id"), **answer}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = HTTPServer(("127.0.0.1", int(port)), Node)
print("READY", flush=True)
server.serve_forever()
