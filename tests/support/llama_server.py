"""A real llama.cpp HTTP server on loopback (the one embedded in the PyPI wheel xllamacpp), serving the tiny model
that tiny_gguf.py writes (nothing is downloaded). Prints `READY <base url>` once it listens, then serves until
its standard input closes (the test that started it ended).

Usage: python3 llama_server.py PORT MODEL_DIR [--draft]

PORT 0 picks a free port, and picks another when the one picked was taken before the server bound it (a port
found free can be taken by any process's outgoing connection in the meantime). A server that cannot start prints
`FAILED <why>` instead, so the test that waits for its first line fails at once.

With --draft the same tiny model also serves as the draft model, so the server decodes speculatively
(llama.cpp's draft-simple type): Spec Lab's tests compare it with the plain instance.
"""
import os
import socket
import sys

import xllamacpp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tiny_gguf  # noqa: E402

port, model_dir = int(sys.argv[1]), sys.argv[2]
draft = "--draft" in sys.argv[3:]
model = os.path.join(model_dir, "tiny.gguf")
if not os.path.exists(model):
    tiny_gguf.main(model)
params = xllamacpp.CommonParams()
params.model.path = model
# The context is shared by the parallel slots: 4 × 4096 gives each slot room for a 1,000-token workload prompt,
# the chat template around it and its answer.
params.n_ctx = 16384
params.n_parallel = 4
params.endpoint_metrics = True
params.endpoint_slots = True
params.endpoint_props = True
if draft:
    # Some Cython properties hand out copies (speculative, mparams): change them, then assign them back.
    speculative = params.speculative
    speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_DRAFT_SIMPLE]
    draft_params = speculative.draft
    mparams = draft_params.mparams
    mparams.path = model
    draft_params.mparams = mparams
    draft_params.n_max = 4
    params.speculative = speculative
params.cpuparams.n_threads = 1


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


attempts = 5 if port == 0 else 1
for attempt in range(attempts):
    params.port = port or free_port()
    try:
        server = xllamacpp.Server(params)
        break
    except RuntimeError as error:
        if attempt == attempts - 1:
            print(f"FAILED port {params.port}: {error}", flush=True)
            sys.exit(1)
print(f"READY {server.listening_address}/v1", flush=True)
sys.stdin.read()
