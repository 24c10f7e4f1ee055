"""vllm.LLM, offline: the engine in this process or in an EngineCore child process."""

import multiprocessing
import os

import _rocprof_sim
from vllm import envs


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


class _Worker:
    """What vLLM's GPU worker does to the device, reported instead of done."""

    def __init__(self, config):
        import torch

        torch.cuda._lazy_init()  # "No HIP GPUs are available" when HIP sees none
        self.config = config
        _rocprof_sim.emit("load", config["model"])

    def generate(self, prompt_len, tokens):
        # One request: 1 prefill step and tokens-1 decode steps of GPU work, in this process.
        _rocprof_sim.emit("work", "generate", tokens, f"prompt={prompt_len}",
                          f"cudagraph_mode={self.config['cudagraph_mode']}",
                          f"eager={int(self.config['enforce_eager'])}")
        return list(range(tokens))


def _engine_core_main(conn, config):
    """The EngineCore process: owns the worker, serves requests until told to stop."""
    try:
        worker = _Worker(config)
        conn.send(("ready", None))
    except Exception as e:  # noqa: BLE001 - reported to the parent like EngineCore's startup
        conn.send(("error", f"{type(e).__name__}: {e}"))
        return
    while True:
        op, args = conn.recv()
        if op == "stop":
            return
        try:
            if op == "generate":
                conn.send(("ok", worker.generate(*args)))
            elif op == "rpc":
                method, rargs = args
                fn = getattr(worker, method) if isinstance(method, str) else method
                conn.send(("ok", fn(*rargs) if isinstance(method, str) else fn(worker, *rargs)))
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}"))


class _InprocClient:
    def __init__(self, config):
        self.worker = _Worker(config)

    def generate(self, prompt_len, tokens):
        return self.worker.generate(prompt_len, tokens)

    def rpc(self, method, args):
        fn = getattr(self.worker, method) if isinstance(method, str) else method
        return fn(*args) if isinstance(method, str) else fn(self.worker, *args)

    def close(self):
        pass


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
        return self._call("rpc", (method, args))

    def close(self):
        if self.proc.is_alive():
            self.conn.send(("stop", None))
            self.proc.join(timeout=10)


class LLM:
    def __init__(self, model, tensor_parallel_size=1, enforce_eager=False,
                 compilation_config=None, **kwargs):
        if tensor_parallel_size != 1:
            raise NotImplementedError("the vLLM stand-in models tensor_parallel_size=1 only")
        mode = None
        if isinstance(compilation_config, dict):
            mode = compilation_config.get("cudagraph_mode")
        if enforce_eager:
            mode = "NONE"  # vLLM: enforce_eager turns graphs (and torch.compile) off
        config = {"model": model, "enforce_eager": bool(enforce_eager),
                  "cudagraph_mode": mode or "default"}
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
        return [self._client.rpc(method, tuple(args))]

    def __del__(self):
        try:
            self._client.close()
        except Exception:  # noqa: BLE001
            pass
