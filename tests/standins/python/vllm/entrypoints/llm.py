"""vllm.LLM, offline: the engine in this process or in an EngineCore child process; its executor
holds the worker(s) (vllm/executor.py of the stand-ins)."""

import multiprocessing
import os

from vllm import envs
from vllm.executor import make_executor


class _Completion:
    def __init__(self, token_ids):
        self.token_ids = token_ids
        self.text = ""


class RequestOutput:
    def __init__(self, prompt_token_ids, token_ids):
        self.prompt_token_ids = prompt_token_ids
        self.outputs = [_Completion(token_ids)]


class _Tokenizer:
    """Deterministic word ids; the stand-in has no vocabulary."""

    def encode(self, text, add_special_tokens=True):
        return [sum(map(ord, w)) % 151936 for w in text.split()]


def _engine_core_main(conn, config):
    """The EngineCore process: owns the executor, serves requests until told to stop."""
    if config["tp"] > 1:
        # Its executor starts the worker processes, which a daemonic process may not do
        # (multiprocessing); they are still ended with it (they are daemonic themselves).
        multiprocessing.current_process().daemon = False
    try:
        executor = make_executor(config)
        conn.send(("ready", None))
    except Exception as e:  # noqa: BLE001 - reported to the parent like EngineCore's startup
        conn.send(("error", f"{type(e).__name__}: {e}"))
        return
    while True:
        op, args = conn.recv()
        if op == "stop":
            executor.close()
            return
        try:
            if op == "generate":
                conn.send(("ok", executor.generate(*args)))
            elif op == "rpc":
                conn.send(("ok", executor.rpc(*args)))
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}"))


class _InprocClient:
    def __init__(self, config):
        self.executor = make_executor(config)

    def generate(self, prompt_len, tokens):
        return self.executor.generate(prompt_len, tokens)

    def rpc(self, method, args):
        return self.executor.rpc(method, args)

    def close(self):
        self.executor.close()


class _MPClient:
    def __init__(self, config):
        ctx = multiprocessing.get_context(os.environ.get("VLLM_WORKER_MULTIPROC_METHOD", "fork"))
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_engine_core_main, args=(child, config),
                                name="EngineCore_0", daemon=True)
        self.proc.start()
        status, value = self.conn.recv()
        if status != "ready":
            self.proc.join()
            raise RuntimeError(f"Engine core initialization failed: {value}")

    def _call(self, op, args):
        self.conn.send((op, args))
        status, value = self.conn.recv()
        if status != "ok":
            raise RuntimeError(value)
        return value

    def generate(self, prompt_len, tokens):
        return self._call("generate", (prompt_len, tokens))

    def rpc(self, method, args):
        # Requests to a separate engine core are msgpack-encoded; a callable only passes with the
        # pickle fallback (vllm-project/vllm vllm/v1/serial_utils.py, MsgpackEncoder.enc_hook; the
        # message is upstream's, missing space included).
        if not isinstance(method, str) and os.environ.get(
                "VLLM_ALLOW_INSECURE_SERIALIZATION") != "1":
            raise TypeError(f"Object of type {type(method)} is not serializableSet "
                            "VLLM_ALLOW_INSECURE_SERIALIZATION=1 to allow fallback to "
                            "pickle-based serialization.")
        return self._call("rpc", (method, args))

    def close(self):
        if self.proc.is_alive():
            self.conn.send(("stop", None))
            self.proc.join(timeout=10)


class LLM:
    def __init__(self, model, tensor_parallel_size=1, enforce_eager=False,
                 compilation_config=None, enable_expert_parallel=False,
                 worker_extension_cls="", **kwargs):
        if tensor_parallel_size < 1:
            raise ValueError("tensor_parallel_size must be >= 1")
        mode = None
        if isinstance(compilation_config, dict):
            mode = compilation_config.get("cudagraph_mode")
        if enforce_eager:
            mode = "NONE"  # vLLM: enforce_eager turns graphs (and torch.compile) off
        config = {"model": model, "enforce_eager": bool(enforce_eager),
                  "cudagraph_mode": mode or "default", "tp": int(tensor_parallel_size),
                  "expert_parallel": bool(enable_expert_parallel),
                  "worker_extension_cls": worker_extension_cls}
        self._client = (_MPClient(config) if envs.enable_v1_multiprocessing()
                        else _InprocClient(config))

    def get_tokenizer(self):
        return _Tokenizer()

    def generate(self, prompts, sampling_params, use_tqdm=True):
        outs = []
        for p in prompts:
            ids = p["prompt_token_ids"]
            outs.append(RequestOutput(ids, self._client.generate(len(ids),
                                                                 sampling_params.max_tokens)))
        return outs

    def collective_rpc(self, method, timeout=None, args=(), kwargs=None):
        """One result per worker (rank order), as vllm/entrypoints/llm.py LLM.collective_rpc."""
        return self._client.rpc(method, tuple(args))

    def __del__(self):
        try:
            self._client.close()
        except Exception:  # noqa: BLE001
            pass
