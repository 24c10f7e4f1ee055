"""The checks qwen3_generate.py makes of the node it is to measure on (its --check, and the vLLM
version rule every run applies): the installed vLLM and PyTorch, the GPUs, the weights, the
counters, and what tensor parallelism needs. Each returns one line saying what is wrong, or None.
Kept apart from the script so that the script stays the measured workload; the reasons and their
sources are in the script's docstring.
"""

import glob
import importlib.metadata
import importlib.util
import os
import re
import shutil
import subprocess

CUDAGRAPH_MODE_SINCE = (0, 10, 1)  # vllm-project/vllm PR #20059, first released in 0.10.1


def installed_version(dist):
    """(major, minor, patch) and the text of an installed distribution's version, read from its
    package metadata (nothing is imported); None when it has none (not installed, or a stand-in
    without metadata)."""
    try:
        text = importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None
    m = re.match(r"(\d+)\.(\d+)(?:\.(\d+))?", text)
    if not m:
        return None
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)), text


def graph_mode_problem(mode):
    """--graph-mode none on a vLLM that has no cudagraph_mode, or None."""
    found = installed_version("vllm")
    if mode != "none" or found is None or found[0] >= CUDAGRAPH_MODE_SINCE:
        return None
    return (f"--graph-mode none needs vLLM >= 0.10.1 (compilation_config cudagraph_mode, "
            f"vllm-project/vllm#20059), but vLLM {found[1]} is installed: it would drop the key "
            "silently and keep HIP graphs on; use --graph-mode eager (--enforce-eager: no graphs, "
            "but no torch.compile either, so unfused kernels), or install vLLM >= 0.10.1")


def package_dir(module):
    """Where a package's files are, found without importing it; None when not installed."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def system_rocprofv3():
    """The rocprofv3 a plain `rocprofv3` runs: PATH first, then $ROCM_PATH/bin."""
    found = shutil.which("rocprofv3")
    if found:
        return found
    candidate = os.path.join(os.environ.get("ROCM_PATH", "/opt/rocm"), "bin", "rocprofv3")
    return candidate if os.path.isfile(candidate) else None


def bundled_sdk_problem():
    """A PyTorch wheel carrying its own rocprofiler-sdk next to a rocprofv3 of another ROCm tree,
    or None."""
    torch_dir = package_dir("torch")
    if torch_dir is None:
        return None
    bundled = sorted(glob.glob(os.path.join(torch_dir, "lib", "librocprofiler-sdk*.so*")))
    profiler = system_rocprofv3()
    if not bundled or profiler is None:
        return None
    wheel_root = os.path.realpath(os.path.dirname(torch_dir))
    tool_root = os.path.realpath(os.path.join(os.path.dirname(os.path.realpath(profiler)), ".."))
    if os.path.realpath(os.path.dirname(bundled[0])).startswith(tool_root + os.sep):
        return None  # the rocprofv3 of the wheel's own tree
    own = [p for p in (os.path.join(torch_dir, "bin", "rocprofv3"),
                       os.path.join(wheel_root, "_rocm_sdk_core", "bin", "rocprofv3"))
           if os.path.isfile(p)]
    use = (f"use the wheel's own {own[0]} (runbook profiler.path) with --rocm-root "
           f"{os.path.dirname(os.path.dirname(own[0]))}") if own else (
        "use a PyTorch built against that ROCm (no librocprofiler-sdk under torch/lib), or the "
        "rocprofv3 of the ROCm the wheel bundles, with --rocm-root set to that tree")
    return (f"PyTorch at {torch_dir} bundles its own rocprofiler-sdk "
            f"({os.path.basename(bundled[0])}) while rocprofv3 is {profiler} (ROCm tree "
            f"{tool_root}): two copies of the SDK in one process clash (missing symbols, the tool "
            f"registered twice); {use}")


def gpu_problem():
    """None when the KFD topology has a gfx942 node. Each node's `properties` holds
    `gfx_target_version` as major*10000 + minor*100 + stepping, 0 for a CPU (Linux
    drivers/gpu/drm/amd/amdkfd/kfd_topology.c, node_show; kfd_device.c gives GC 9.4.2 90402). It
    is what rocminfo reads through the ROCm runtime."""
    top = os.environ.get("QWEN3_GENERATE_KFD_TOPOLOGY", "/sys/class/kfd/kfd/topology/nodes")
    found = []
    for props in sorted(glob.glob(os.path.join(top, "*", "properties"))):
        with open(props) as f:
            for line in f:
                key, _, value = line.partition(" ")
                if key == "gfx_target_version" and value.strip() not in ("", "0"):
                    v = int(value)
                    found.append(f"gfx{v // 10000}{(v // 100) % 100:x}{v % 100:x}")
    if "gfx942" in found:
        return None
    if not found:
        return (f"no GPU in the KFD topology ({top}); is the amdgpu driver loaded, and may this "
                "user open /dev/kfd (groups render and video)?")
    return f"no gfx942 (MI300X) GPU: the KFD topology has {', '.join(found)}"


def hub_cache():
    """The Hugging Face hub cache as huggingface_hub finds it (constants.py: HF_HUB_CACHE, else
    $HF_HOME/hub, else $XDG_CACHE_HOME/huggingface/hub, else ~/.cache/huggingface/hub)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    if os.environ.get("HF_HOME"):
        return os.path.join(os.environ["HF_HOME"], "hub")
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "huggingface", "hub")


def weights_problem(model):
    """None when `model` is a folder with weight files or is in the Hugging Face cache."""
    def has_weights(folder):
        return any(glob.glob(os.path.join(folder, "**", pattern), recursive=True)
                   for pattern in ("*.safetensors", "*.bin"))
    if os.path.isdir(model):
        return None if has_weights(model) else f"{model} holds no *.safetensors or *.bin"
    repo = os.path.join(hub_cache(), "models--" + model.replace("/", "--"), "snapshots")
    if os.path.isdir(repo) and has_weights(repo):
        return None
    return (f"weights of {model} are neither a folder nor in the Hugging Face cache ({repo}); "
            f"huggingface-cli download {model}, or pass --model FOLDER")


def roofline_counters():
    """The counters of kprof's roofline metric set (configs/metrics/roofline.yaml, two folders up
    in the source tree and in share/kprof alike): its `counters:` list."""
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "configs", "metrics", "roofline.yaml")
    names, inside = [], False
    with open(path) as f:
        for line in f:
            if line.startswith("counters:"):
                inside = True
            elif inside and line.startswith("  - "):
                names.append(line[4:].split("#")[0].strip())
            elif inside and line.strip() and not line.startswith(" "):
                break
    return names


def counters_problem():
    """None when `rocprofv3 --list-avail` lists every roofline counter."""
    if shutil.which("rocprofv3") is None:
        return "rocprofv3 is not on PATH: install ROCm 7.0+ (rocprofiler-sdk) or add /opt/rocm/bin"
    try:
        out = subprocess.run(["rocprofv3", "--list-avail"], capture_output=True, text=True,
                             timeout=300)
    except subprocess.TimeoutExpired:
        return "rocprofv3 --list-avail did not answer in 300 s"
    listed = {line.split(":", 1)[1].strip() for line in out.stdout.splitlines()
              if line.split(":", 1)[0].strip().lower() == "counter_name"}
    if out.returncode != 0 or not listed:
        return f"rocprofv3 --list-avail listed no counter (exit {out.returncode})"
    missing = [c for c in roofline_counters() if c not in listed]
    if missing:
        return f"rocprofv3 --list-avail lacks the roofline counters {', '.join(missing)}"
    return None


def visible_gpu_count():
    """GPUs of the KFD topology (nodes with a gfx_target_version), as many as the isolation
    variables leave (ROCR_VISIBLE_DEVICES, then HIP_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES)."""
    top = os.environ.get("QWEN3_GENERATE_KFD_TOPOLOGY", "/sys/class/kfd/kfd/topology/nodes")
    n = 0
    for props in glob.glob(os.path.join(top, "*", "properties")):
        with open(props) as f:
            n += any(line.startswith("gfx_target_version ") and line.split()[1] != "0"
                     for line in f)
    for name in ("ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES" if "HIP_VISIBLE_DEVICES" in
                 os.environ else "CUDA_VISIBLE_DEVICES"):
        if name in os.environ:
            n = min(n, len([x for x in os.environ[name].split(",") if x.strip()]))
    return n


def tensor_parallel_problem(args):
    """With --tensor-parallel N > 1: what vLLM's N worker processes need here, or None."""
    n = args.tensor_parallel
    if n == 1:
        return None
    if args.region_in == "entry":
        return (f"--region-in entry with --tensor-parallel {n}: vLLM runs the model in {n} worker "
                "processes, whose tools never resume, so every rank would record nothing; use "
                "--region-in workers (the default)")
    method = os.environ.get("VLLM_WORKER_MULTIPROC_METHOD")
    if method not in (None, "spawn"):
        return (f"VLLM_WORKER_MULTIPROC_METHOD={method}: this script initializes HIP before "
                "LLM(), and a forked worker cannot re-initialize it (vLLM overrides the method to "
                "spawn: vllm/utils _maybe_force_spawn); leave it unset or set spawn")
    seen = visible_gpu_count()
    if seen < n:
        return (f"--tensor-parallel {n} needs {n} GPUs, but {seen} are visible (KFD topology and "
                "ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES); vLLM's worker r uses GPU r")
    return None


def node_problem(args):
    """The first reason the node cannot run the measured generate: GPU, weights, counters."""
    for problem in (gpu_problem(), weights_problem(args.model), counters_problem()):
        if problem:
            return problem
    return None
