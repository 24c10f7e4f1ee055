#!/usr/bin/env python3
# Test fixture: runbooks/workloads/qwen3_generate.py as it was before it ran vLLM in-process, kept
# verbatim below this header. It resumes the profiler in its own process while vLLM V1 (default
# VLLM_ENABLE_V1_MULTIPROCESSING=1) runs the model in an EngineCore child process, so under
# --selected-regions the trace is empty. tests/sim/standins_test.cpp checks that the double and
# kprof fail it that way.
"""The measured workload: Qwen3-30B-A3B generating N tokens with vLLM on one AMD GPU.

What the seed's run did (shared/seed/reading-gpu-kernel-traces.txt), as a script kprof can run
under rocprofv3:
  * vLLM is called directly from Python (no HTTP server);
  * the model is loaded and warmed up first, outside the measured region;
  * the GPU is synchronized, then the profiler is resumed with roctxProfilerResume (rocprofv3
    --selected-regions records only between resume and pause);
  * exactly N output tokens (default 64) are generated one at a time for a single prompt, greedy,
    ignore_eos, so the trace holds 1 prefill step and N-1 single-token decode steps;
  * the GPU is synchronized again and the profiler paused.

Exit codes: 0 done, 2 when vLLM, torch or a GPU is missing (nothing is measured then), 1 on a
runtime failure. Runs under `rocprofv3 --selected-regions ... -- python3 qwen3_generate.py`.
"""

import argparse
import ctypes
import ctypes.util
import os
import sys

EXIT_USAGE = 2


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="Qwen/Qwen3-30B-A3B", help="HF model id or local path")
    p.add_argument("--prompt-tokens", type=int, default=128, help="prompt length in tokens")
    p.add_argument("--tokens", type=int, default=64, help="output tokens to generate (>= 1)")
    p.add_argument("--warmup-tokens", type=int, default=3, help="tokens of the warm-up generate")
    p.add_argument("--enforce-eager", action="store_true", help="disable HIP graphs in vLLM")
    p.add_argument("--max-model-len", type=int, default=4096)
    p.add_argument("--gpu-memory-utilization", type=float, default=0.90)
    args = p.parse_args(argv)
    if args.tokens < 1 or args.prompt_tokens < 1:
        p.error("--tokens and --prompt-tokens must be >= 1")
    return args


def fail_usage(message):
    print(f"qwen3_generate.py: {message}", file=sys.stderr)
    sys.exit(EXIT_USAGE)


def load_roctx():
    """roctxProfilerResume/Pause from the ROCm library; None when not available.

    rocprofiler-sdk ships librocprofiler-sdk-roctx.so (ROCm 6.2+); older ROCm has libroctx64.so.
    """
    names = ["librocprofiler-sdk-roctx.so", "librocprofiler-sdk-roctx.so.1", "libroctx64.so"]
    rocm = os.environ.get("ROCM_PATH", "/opt/rocm")
    for name in names:
        for candidate in (os.path.join(rocm, "lib", name), name, ctypes.util.find_library(name[3:-3])):
            if not candidate:
                continue
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


def main(argv):
    args = parse_args(argv)
    try:
        import torch  # noqa: F401
    except ImportError:
        fail_usage("PyTorch is not installed; this workload needs vLLM on a ROCm GPU node")
    try:
        from vllm import LLM, SamplingParams
    except ImportError:
        fail_usage("vLLM is not installed (pip install vllm, ROCm build); nothing was measured")
    import torch

    if not torch.cuda.is_available():
        fail_usage("no GPU visible to PyTorch (HIP); run this on an AMD GPU node")
    roctx = load_roctx()
    if roctx is None:
        fail_usage("roctx library not found (librocprofiler-sdk-roctx.so or libroctx64.so under "
                   "$ROCM_PATH/lib); the measured region could not be marked")

    llm = LLM(model=args.model, tensor_parallel_size=1, dtype="bfloat16",
              enforce_eager=args.enforce_eager, max_model_len=args.max_model_len,
              gpu_memory_utilization=args.gpu_memory_utilization, enable_prefix_caching=False)
    tokenizer = llm.get_tokenizer()
    # A fixed prompt of exactly prompt_tokens token ids, so every run has the same shapes.
    base = tokenizer.encode("The quick brown fox jumps over the lazy dog. ", add_special_tokens=False)
    prompt_ids = (base * (args.prompt_tokens // len(base) + 1))[: args.prompt_tokens]
    prompt = {"prompt_token_ids": prompt_ids}

    def params(n):
        return SamplingParams(max_tokens=n, min_tokens=n, ignore_eos=True, temperature=0.0)

    # Warm-up: compiles Triton kernels, captures graphs, allocates the KV cache.
    llm.generate([prompt], params(args.warmup_tokens), use_tqdm=False)
    torch.cuda.synchronize()

    roctx.roctxProfilerResume(0)
    # One request, N tokens: vLLM schedules 1 prefill step then N-1 single-token decode steps.
    out = llm.generate([prompt], params(args.tokens), use_tqdm=False)
    torch.cuda.synchronize()
    roctx.roctxProfilerPause(0)

    generated = len(out[0].outputs[0].token_ids)
    if generated != args.tokens:
        print(f"qwen3_generate.py: generated {generated} tokens, expected {args.tokens}",
              file=sys.stderr)
        return 1
    print(f"generated {generated} tokens for a {args.prompt_tokens}-token prompt")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
