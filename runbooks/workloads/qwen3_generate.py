#!/usr/bin/env python3
"""The measured workload: Qwen3-30B-A3B generating N tokens with vLLM on one or more AMD GPUs.

Run under `rocprofv3 --selected-regions ... -- python3 qwen3_generate.py --tokens 64` (the runbook
runbooks/qwen3-30b-a3b-mi300x.yaml does it for every pass):
  * vLLM is called directly from Python (no HTTP server), tensor parallel 1 by default
    (`--tensor-parallel N` for N GPUs of one node, see "Tensor parallelism" below);
  * the model is loaded and warmed up first, outside the measured region;
  * the GPU is synchronized, then the profiler is resumed with roctxProfilerResume;
  * exactly N output tokens (default 64) are generated for one prompt, greedy, ignore_eos, so the
    trace holds 1 prefill step and N-1 single-token decode steps;
  * the GPU is synchronized again and the profiler paused.

Where the region is opened (the process that launches the kernels)
-------------------------------------------------------------------
rocprofiler-sdk's region state is per process: rocprofv3 preloads its tool into every process it
starts, each tool starts paused under --selected-regions, and roctxProfilerResume resumes only the
contexts of the process that calls it (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/
rocprofiler-sdk-tool/tool.cpp, cntrl_tracing_callback; the active-context registry is a process
global in source/lib/rocprofiler-sdk/context/context.cpp). vLLM V1 runs the model in a separate
EngineCore process by default: "VLLM_ENABLE_V1_MULTIPROCESSING" defaults to 1
(vllm-project/vllm vllm/envs.py), and LLMEngine then talks to EngineCore through SyncMPClient
(vllm/v1/engine/core_client.py). Resuming in this script's process would leave the engine process
paused: an empty trace and no counters.

Two ways reach the right process; this script takes the first:
  1. In-process engine, VLLM_ENABLE_V1_MULTIPROCESSING=0 (set by the runbook). LLMEngine then uses
     InprocClient (vllm/v1/engine/core_client.py), and with tensor_parallel_size=1 the executor is
     UniProcExecutor (vllm/v1/executor/uniproc_executor.py): the worker, its model and every kernel
     launch live in this process, so roctxProfilerResume/Pause and torch.cuda.synchronize() here
     bracket exactly the measured kernels. It also keeps the profiled process the one rocprofv3
     exec'd: the EngineCore child is started with multiprocessing (fork by default,
     VLLM_WORKER_MULTIPROC_METHOD), and how rocprofiler-sdk's tool behaves in a forked-but-not-
     exec'd child is not settled by its source.
  2. Reaching the worker with LLM.collective_rpc (vllm/entrypoints/llm.py) and a worker extension
     (ParallelConfig.worker_extension_cls) that resumes inside the worker. It would keep vLLM's
     default process layout and scale to tensor_parallel_size > 1 (one region per rank), but it
     relies on the forked engine's tool state, on serializing callables or importing this module
     in the engine process, and on RPC ordering against the engine's busy loop. With one GPU it
     buys nothing, so it is not used there; with --tensor-parallel N > 1 it is the only way, and
     is used (see "Tensor parallelism").
The kernels measured are the same either way: the multiprocessing setting moves the scheduler,
not the model's GPU work.

Tensor parallelism
------------------
`--tensor-parallel N` (N > 1) passes tensor_parallel_size=N (and `--expert-parallel` passes
enable_expert_parallel=True, vLLM's spelling). vLLM then runs the model in N worker PROCESSES, one
per rank, worker r on GPU r of those visible: the default distributed executor on one node is
"mp" (vllm/config/parallel.py), MultiprocExecutor, which starts one WorkerProc per rank with
local_rank = rank (vllm/v1/executor/multiproc_executor.py), and does so whatever
VLLM_ENABLE_V1_MULTIPROCESSING says (that variable only keeps the engine core in this process).
No process of ours launches a kernel, so the region is opened in every worker instead: the
worker extension class kprof_worker_region.KprofWorkerRegion (beside this script; vLLM's
worker_extension_cls, mixed into each worker by vllm/worker/worker_base.py) synchronizes the
worker's GPU and calls roctxProfilerResume/Pause in that worker, reached through
LLM.collective_rpc with the method's NAME (a callable would need
VLLM_ALLOW_INSECURE_SERIALIZATION=1 to reach an EngineCore process: vllm/v1/serial_utils.py). The workers import that module by
name, so this script's folder goes onto PYTHONPATH for them, and VLLM_WORKER_MULTIPROC_METHOD
defaults to spawn: this script initializes HIP before LLM() (torch.cuda.is_available()), after
which vLLM forces spawn anyway (vllm/utils, _maybe_force_spawn: "CUDA is initialized"; a forked
child cannot re-initialize HIP). `--region-in workers|entry|auto` says where the region opens:
auto is entry for N = 1 (as before) and workers for N > 1; `entry` with N > 1 is the old way, and
records nothing in any rank (each rank's tool stays paused), which --check refuses.

HIP graphs
----------
`--graph-mode none` (the default, and the runbook's choice) passes vLLM
compilation_config={"cudagraph_mode": "NONE"} (vllm/config/compilation.py, CUDAGraphMode.NONE):
no HIP graphs are captured or replayed, and torch.compile still fuses the model, so the kernels
are the ones vLLM serves with, launched one by one. Graph replay is avoided because several
rocprofv3 7.x releases lost or crashed on graph-replay records (ROCm/rocm-systems PRs #4361,
#4221, #4276; queue-interception crash reports such as vllm-project/vllm#56521).
`--graph-mode eager` is vLLM's --enforce-eager, which AMD's own rocprofv3 recipes use
(ROCm/rocm-systems#5902) but which also disables torch.compile, so different (unfused) kernels
run. `--graph-mode vllm-default` leaves vLLM's choice (graphs on). Every pass of a runbook runs
the same command line, so the trace and counter passes always use the same mode.

Repeats (one-run counter rotation)
----------------------------------
`--repeat R` (default 1) generates the same request R times, one after the other, inside the one
measured region of one process: the model is loaded and warmed up once. kprof asks for it when it
rotates counter groups over successive dispatches of one run (rocprofv3 input-file `pmc_groups`,
ROCm 7.0+) and a kernel variant is too rare in one request to give every group enough samples
(e.g. the 48 prefill launches of each fused-MoE variant). Each repeat has the trace's shapes, so
its dispatches map onto the trace's as further samples.

`--check` validates the arguments and the environment without importing vLLM or touching a GPU
and prints one line; run it on a node before `kprof run`. With `--tensor-parallel N` it also
requires N visible GPUs (the KFD topology's GPUs as ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES
leave them), VLLM_WORKER_MULTIPROC_METHOD unset or spawn, and the region in the workers. Besides what a run needs, it reads the
installed vLLM's version from its package metadata and refuses `--graph-mode none` before vLLM
0.10.1: `cudagraph_mode` came with vllm-project/vllm PR #20059 ("New CLI flag cudagraph_mode is
introduced in CompilationConfig"), merged after 0.10.0, and an older vLLM drops the key silently
and keeps its graphs on. It also refuses a PyTorch wheel that bundles its own rocprofiler-sdk
(torch/lib/librocprofiler-sdk*.so) next to a rocprofv3 of another ROCm tree: two copies of the
SDK in one process clash (missing symbols, the tool registered twice), so it names the rocprofv3
and --rocm-root (rocprofv3 7.0+) to use instead.

Besides the packages and ROCTx it looks for a gfx942 GPU in the KFD topology (`/sys/class/kfd/kfd/topology/nodes`, or the folder
$QWEN3_GENERATE_KFD_TOPOLOGY names, for tests), the model's weights (a local folder or the
Hugging Face cache) and, with `rocprofv3 --list-avail`, the counters of kprof's roofline set.

Exit codes: 0 done (or check passed), 2 usage or environment error (nothing was measured; the
reason is one line on stderr), 1 runtime failure.
"""

import argparse
import ctypes
import ctypes.util
import importlib.util
import os
import sys

# The checks of the node (beside this script; its folder is first on sys.path when it runs).
from qwen3_checks import (bundled_sdk_problem, graph_mode_problem, node_problem,
                          tensor_parallel_problem)

EXIT_USAGE = 2
PROG = "qwen3_generate.py"
GRAPH_MODES = ("none", "eager", "vllm-default")


class OneLineParser(argparse.ArgumentParser):
    """Argument errors as one line (`qwen3_generate.py: <reason>`, exit 2), like every other
    refusal of this script, so kprof's pass reason and --check output stay one line."""

    def error(self, message):
        fail_usage(message + " (see --help)")


def parse_args(argv):
    p = OneLineParser(prog=PROG, description=__doc__.splitlines()[0])
    p.add_argument("--model", default="Qwen/Qwen3-30B-A3B", help="HF model id or local path")
    p.add_argument("--prompt-tokens", type=int, default=128, help="prompt length in tokens")
    p.add_argument("--tokens", type=int, default=64, help="output tokens to generate (>= 1)")
    p.add_argument("--warmup-tokens", type=int, default=3, help="tokens of the warm-up generate")
    p.add_argument("--repeat", type=int, default=1,
                   help="generate the measured request this many times inside the region")
    p.add_argument("--graph-mode", choices=GRAPH_MODES, default="none",
                   help="HIP graphs while profiling: none (cudagraph_mode NONE, torch.compile "
                        "kept), eager (--enforce-eager), vllm-default")
    p.add_argument("--max-model-len", type=int, default=4096)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.90)
    p.add_argument("--tensor-parallel", type=int, default=1,
                   help="tensor_parallel_size: N worker processes, one per GPU (default 1)")
    p.add_argument("--expert-parallel", action="store_true",
                   help="enable_expert_parallel (MoE experts sharded over the ranks)")
    p.add_argument("--region-in", choices=("auto", "entry", "workers"), default="auto",
                   help="where roctxProfilerResume/Pause run: this process (entry), every vLLM "
                        "worker (workers), or auto (entry for 1 GPU, workers for more)")
    p.add_argument("--check", action="store_true",
                   help="validate arguments and environment only (no vLLM import, no GPU)")
    args = p.parse_args(argv)
    if args.tokens < 1 or args.prompt_tokens < 1 or args.warmup_tokens < 1 or args.repeat < 1:
        p.error("--tokens, --prompt-tokens, --warmup-tokens and --repeat must be >= 1")
    if args.prompt_tokens + args.tokens > args.max_model_len:
        p.error("--prompt-tokens + --tokens exceed --max-model-len")
    if not 0.0 < args.gpu_memory_utilization <= 1.0:
        p.error("--gpu-memory-utilization must be in (0, 1]")
    if args.tensor_parallel < 1:
        p.error("--tensor-parallel must be >= 1")
    if args.expert_parallel and args.tensor_parallel < 2:
        p.error("--expert-parallel needs --tensor-parallel 2 or more")
    if args.region_in == "auto":
        args.region_in = "workers" if args.tensor_parallel > 1 else "entry"
    return args


def fail_usage(message):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def roctx_candidates():
    """librocprofiler-sdk-roctx.so (ROCm 6.2+) or the legacy libroctx64.so: by bare name first
    (LD_LIBRARY_PATH and the loader's cache), then under $ROCM_PATH/lib."""
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    for name in ("librocprofiler-sdk-roctx.so", "librocprofiler-sdk-roctx.so.1", "libroctx64.so"):
        yield name
        yield os.path.join(rocm, "lib", name)
        found = ctypes.util.find_library(name[3:-3])
        if found:
            yield found


def load_roctx():
    """roctxProfilerResume/Pause from the ROCTx library; None when not available."""
    for candidate in roctx_candidates():
        try:
            lib = ctypes.CDLL(candidate)
        except OSError:
            continue
        if hasattr(lib, "roctxProfilerResume") and hasattr(lib, "roctxProfilerPause"):
            for fn in (lib.roctxProfilerResume, lib.roctxProfilerPause):
                fn.argtypes = [ctypes.c_uint64]
                fn.restype = ctypes.c_int
            return lib
    return None


def visible_device_problem():
    """A reason no GPU would be visible, read from the isolation variables as ROCm applies them
    (ROCR_VISIBLE_DEVICES filters, HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES index what is left;
    https://rocm.docs.amd.com/projects/HIP/en/latest/reference/env_variables.html), or None."""
    rocr = os.environ.get("ROCR_VISIBLE_DEVICES")
    hip_name = "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in os.environ else \
        "CUDA_VISIBLE_DEVICES"
    hip = os.environ.get(hip_name)
    if rocr is not None and not [x for x in rocr.split(",") if x.strip()]:
        return "ROCR_VISIBLE_DEVICES is set but empty: no GPU would be visible"
    if rocr is None or hip is None:
        return None
    left = len([x for x in rocr.split(",") if x.strip()])
    for entry in hip.split(","):
        entry = entry.strip()
        if not entry.isdigit() or int(entry) >= left:
            return (f"{hip_name}={hip} indexes the {left} device(s) ROCR_VISIBLE_DEVICES={rocr} "
                    f"leaves, so '{entry}' is no device; set only ROCR_VISIBLE_DEVICES")
    return None


def environment_problem(args):
    """The first reason this script cannot measure here, or None. Imports nothing heavy."""
    mp = os.environ.get("VLLM_ENABLE_V1_MULTIPROCESSING")
    if mp != "0" and args.region_in == "entry":
        return (f"VLLM_ENABLE_V1_MULTIPROCESSING={mp if mp is not None else '(unset, vLLM default 1)'}"
                ": vLLM would run the model in its EngineCore process, which never resumes the "
                "profiler; set VLLM_ENABLE_V1_MULTIPROCESSING=0 (the runbook's workload.env does)")
    for module, what in (("torch", "PyTorch (ROCm build)"), ("vllm", "vLLM (ROCm build)")):
        if importlib.util.find_spec(module) is None:
            return f"{what} is not installed for {sys.executable}; nothing can be measured"
    problem = visible_device_problem()
    if problem:
        return problem
    if load_roctx() is None:
        return ("roctx library not found (librocprofiler-sdk-roctx.so or libroctx64.so on "
                "LD_LIBRARY_PATH or under $ROCM_PATH/lib); the measured region could not be "
                "marked")
    return None


def llm_graph_kwargs(mode):
    if mode == "none":
        return {"compilation_config": {"cudagraph_mode": "NONE"}}
    if mode == "eager":
        return {"enforce_eager": True}
    return {}


def main(argv):
    args = parse_args(argv)
    problem = environment_problem(args) or graph_mode_problem(args.graph_mode)
    if args.check:
        problem = problem or tensor_parallel_problem(args) or bundled_sdk_problem()
        if problem:
            fail_usage(f"check failed: {problem}")
        problem = node_problem(args)
        if problem:
            fail_usage(f"check failed: {problem}")
        repeat = f" x{args.repeat}" if args.repeat > 1 else ""
        engine = ("in-process vLLM engine" if args.tensor_parallel == 1 else
                  f"tensor parallel {args.tensor_parallel}"
                  f"{' with expert parallel' if args.expert_parallel else ''}, region in every "
                  "worker")
        print(f"{PROG}: check ok: {args.model}, {args.tokens} tokens after a "
              f"{args.prompt_tokens}-token prompt{repeat}, graph mode {args.graph_mode}, "
              f"{engine}, ROCTx found, gfx942 GPU, weights found, roofline counters "
              "available")
        return 0
    if problem:
        fail_usage(problem)

    import torch
    from vllm import LLM, SamplingParams

    if not torch.cuda.is_available():
        fail_usage("no GPU visible to PyTorch (HIP: hipErrorNoDevice); check ROCR_VISIBLE_DEVICES")
    roctx = load_roctx()

    # In-process engine and tensor_parallel_size=1: every kernel is launched by this process (see
    # the module docstring), so the region and the synchronizations below are in the right place.
    # With more ranks the workers launch them, and open the region themselves (worker extension).
    extra = {}
    if args.expert_parallel:
        extra["enable_expert_parallel"] = True
    if args.region_in == "workers":
        extra["worker_extension_cls"] = "kprof_worker_region.KprofWorkerRegion"
        here = os.path.dirname(os.path.abspath(__file__))
        old = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = here + (os.pathsep + old if old else "")
    if args.tensor_parallel > 1:
        os.environ.setdefault("VLLM_WORKER_MULTIPROC_METHOD", "spawn")
    llm = LLM(model=args.model, tensor_parallel_size=args.tensor_parallel, dtype="bfloat16",
              max_model_len=args.max_model_len,
              gpu_memory_utilization=args.gpu_memory_utilization, enable_prefix_caching=False,
              **llm_graph_kwargs(args.graph_mode), **extra)
    tokenizer = llm.get_tokenizer()
    # A fixed prompt of exactly prompt_tokens token ids, so every run has the same shapes.
    base = tokenizer.encode("The quick brown fox jumps over the lazy dog. ", add_special_tokens=False)
    prompt_ids = (base * (args.prompt_tokens // len(base) + 1))[: args.prompt_tokens]
    prompt = {"prompt_token_ids": prompt_ids}

    def params(n):
        return SamplingParams(max_tokens=n, min_tokens=n, ignore_eos=True, temperature=0.0)

    # Warm-up, outside the region: compiles Triton kernels, allocates the KV cache.
    llm.generate([prompt], params(args.warmup_tokens), use_tqdm=False)

    def region(begin):
        if args.region_in == "workers":
            # Every rank synchronizes its GPU and resumes (pauses) its own tool: one result per rank.
            done = llm.collective_rpc("kprof_region_begin" if begin else "kprof_region_end")
            if len(done) != args.tensor_parallel:
                raise RuntimeError(f"region reached {len(done)} of {args.tensor_parallel} workers")
            return
        torch.cuda.synchronize()
        (roctx.roctxProfilerResume if begin else roctx.roctxProfilerPause)(0)

    region(True)
    # One request, N tokens: vLLM schedules 1 prefill step then N-1 single-token decode steps;
    # --repeat runs that same request again, in order (no batching across repeats).
    outs = [llm.generate([prompt], params(args.tokens), use_tqdm=False)
            for _ in range(args.repeat)]
    region(False)

    for out in outs:
        generated = len(out[0].outputs[0].token_ids)
        if generated != args.tokens:
            print(f"{PROG}: generated {generated} tokens, expected {args.tokens}",
                  file=sys.stderr)
            return 1
    times = f" {args.repeat} times" if args.repeat > 1 else ""
    print(f"generated {args.tokens} tokens for a {args.prompt_tokens}-token prompt{times}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
