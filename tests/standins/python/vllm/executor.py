"""The executor of the vLLM stand-in: where the model's workers live.

* tensor_parallel_size 1: UniProcExecutor, the worker in the engine's own process
  (vllm-project/vllm vllm/v1/executor/uniproc_executor.py).
* tensor_parallel_size N > 1 on one node: MultiprocExecutor, the default distributed executor
  backend "mp" when the world fits one node (vllm/config/parallel.py, ParallelConfig
  distributed_executor_backend). It starts one WorkerProc PROCESS per rank, local_rank = rank
  (vllm/v1/executor/multiproc_executor.py, MultiprocExecutor._init_executor and
  WorkerProc.make_worker_process), whatever VLLM_ENABLE_V1_MULTIPROCESSING says: that variable only
  decides whether the engine core (and so the executor) lives in the caller or in an EngineCore
  child. Worker r drives GPU local_rank r of the GPUs it sees (vllm/v1/worker/gpu_worker.py,
  init_device: torch.device(f"cuda:{self.local_rank}")).

The worker class mixes in ParallelConfig.worker_extension_cls, a qualified name resolved in the
worker process (vllm/worker/worker_base.py, WorkerWrapperBase.init_worker: resolve_obj_by_qualname,
then worker_class.__bases__ += (extension,)). collective_rpc runs a method (by name) or a callable
in every worker and returns one result per rank (MultiprocExecutor.collective_rpc; a callable is
cloudpickled to the workers there, a method name sent as is). The engine-core boundary is stricter
(vllm/entrypoints/llm.py of the stand-ins, _MPClient.rpc).
"""

import importlib
import multiprocessing
import os
import signal

import _rocprof_sim


class Worker:
    """What vLLM's GPU worker does to the device, reported instead of done."""

    def __init__(self, config, rank=0, local_rank=0):
        import torch

        torch.cuda._lazy_init()  # "No HIP GPUs are available" when HIP sees none
        self.config = config
        self.rank = rank
        self.local_rank = local_rank
        self.generates = 0
        _rocprof_sim.emit("load", config["model"])

    def generate(self, prompt_len, tokens):
        # One request: 1 prefill step and tokens-1 decode steps of GPU work, in this process.
        words = ["work", "generate", tokens, f"prompt={prompt_len}",
                 f"cudagraph_mode={self.config['cudagraph_mode']}",
                 f"eager={int(self.config['enforce_eager'])}"]
        if self.config["tp"] > 1:
            words += [f"rank={self.rank}", f"tp={self.config['tp']}",
                      f"ep={int(self.config['expert_parallel'])}"]
        _rocprof_sim.emit(*words)
        self.generates += 1
        # ROCPROF_SIM_RANK_DIES=R (the double's fault, core/sim/tool_process.cpp): rank R is killed
        # during its second request (the first after the warm-up), mid-pass.
        dies = os.environ.get("ROCPROF_SIM_RANK_DIES")
        if self.config["tp"] > 1 and dies == str(self.rank) and self.generates == 2:
            os.kill(os.getpid(), signal.SIGKILL)
        return list(range(tokens))


def resolve_qualname(name):
    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


def worker_class(config):
    ext = config.get("worker_extension_cls")
    if not ext:
        return Worker
    cls = resolve_qualname(ext)
    for attr in dir(cls):  # WorkerWrapperBase.init_worker refuses names the worker has
        if not attr.startswith("__") and hasattr(Worker, attr):
            raise AssertionError(f"Worker class {Worker} already has an attribute {attr}, which "
                                 f"conflicts with the worker extension class {cls}.")
    return type("WorkerWithExtension", (Worker, cls), {})


def call(worker, method, args):
    fn = getattr(worker, method) if isinstance(method, str) else method
    return fn(*args) if isinstance(method, str) else fn(worker, *args)


class UniProcExecutor:
    def __init__(self, config):
        self.worker = worker_class(config)(config)

    def generate(self, prompt_len, tokens):
        return self.worker.generate(prompt_len, tokens)

    def rpc(self, method, args):
        return [call(self.worker, method, args)]

    def close(self):
        pass


def _worker_main(conn, config, rank):
    """One WorkerProc: rank `rank` of config['tp'], on HIP device local_rank = rank."""
    try:
        gpus = _rocprof_sim.visible_gpus()
        if rank >= len(gpus):
            # torch.cuda.set_device(cuda:rank) with fewer devices visible.
            raise RuntimeError("HIP error: invalid device ordinal")
        _rocprof_sim.emit("rank", rank, config["tp"], "gpu", rank, "ppid", os.getppid())
        worker = worker_class(config)(config, rank=rank, local_rank=rank)
        conn.send(("ready", None))
    except Exception as e:  # noqa: BLE001 - reported to the executor like WorkerProc's startup
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
                conn.send(("ok", call(worker, *args)))
        except Exception as e:  # noqa: BLE001
            conn.send(("error", f"{type(e).__name__}: {e}"))


def _start_method():
    """VLLM_WORKER_MULTIPROC_METHOD (default fork), forced to spawn when this process has already
    initialized the GPU (vllm/utils, _maybe_force_spawn: "CUDA is initialized")."""
    import torch

    method = os.environ.get("VLLM_WORKER_MULTIPROC_METHOD", "fork")
    if method != "spawn" and torch.cuda._touched_by == os.getpid():
        os.environ["VLLM_WORKER_MULTIPROC_METHOD"] = "spawn"
        method = "spawn"
    return method


class MultiprocExecutor:
    def __init__(self, config):
        ctx = multiprocessing.get_context(_start_method())
        self.workers = []
        failed = None
        for rank in range(config["tp"]):
            conn, child = ctx.Pipe()
            proc = ctx.Process(target=_worker_main, args=(child, config, rank),
                               name=f"VllmWorker-{rank}", daemon=True)
            proc.start()
            self.workers.append((proc, conn))
        for proc, conn in self.workers:
            status, value = conn.recv()
            if status != "ready":
                failed = failed or value
        if failed:
            self.close()
            raise RuntimeError("WorkerProc initialization failed due to an exception in a "
                               f"background process ({failed}). See stack trace for root cause.")

    def _all(self, op, args):
        for _, conn in self.workers:
            conn.send((op, args))
        results = []
        for proc, conn in self.workers:
            try:
                status, value = conn.recv()
            except EOFError:
                # MultiprocExecutor's worker monitor (start_worker_monitor).
                proc.join()
                self.close()
                raise RuntimeError(f"Worker proc {proc.name} died unexpectedly, shutting down "
                                   "executor.") from None
            if status != "ok":
                raise RuntimeError(f"Worker failed with error '{value}', please check the stack "
                                   "trace above for the root cause")
            results.append(value)
        return results

    def generate(self, prompt_len, tokens):
        return self._all("generate", (prompt_len, tokens))[0]  # the output rank's (rank 0)

    def rpc(self, method, args):
        return self._all("rpc", (method, args))

    def close(self):
        for proc, conn in self.workers:
            if proc.is_alive():
                try:
                    conn.send(("stop", None))
                except OSError:
                    pass
        for proc, _ in self.workers:
            proc.join(timeout=10)
        self.workers = []


def make_executor(config):
    return MultiprocExecutor(config) if config["tp"] > 1 else UniProcExecutor(config)
