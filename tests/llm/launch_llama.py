"""Starts llama.cpp's HTTP server (PyPI `xllamacpp`) for AGORA HAI's real-model tests.

    python launch_llama.py MODEL.gguf PORT TEMPLATE.jinja [CONTEXT]

Prints `listening http://127.0.0.1:PORT` once the model is loaded, then serves until its standard
input closes, so the server dies with the test process that started it, however that ends.
Two threads and one slot: the CI machine has two cores.
"""

import sys

import xllamacpp


def main() -> None:
    model, port, template = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    context = int(sys.argv[4]) if len(sys.argv) > 4 else 4096
    params = xllamacpp.CommonParams()
    params.model.path = model
    params.n_ctx = context
    params.n_parallel = 1
    params.cpuparams.n_threads = 2
    params.cpuparams_batch.n_threads = 2
    params.use_jinja = True
    with open(template, encoding="utf-8") as file:
        params.chat_template = file.read()
    params.hostnames = ["127.0.0.1"]
    params.port = port
    params.endpoint_metrics = True
    # A prompt longer than the context is refused, not silently cut at its start: the tests
    # must see it if the server ever sends one.
    params.ctx_shift = False
    server = xllamacpp.Server(params)
    print(f"listening {server.listening_address}", flush=True)
    sys.stdin.read()


if __name__ == "__main__":
    main()
