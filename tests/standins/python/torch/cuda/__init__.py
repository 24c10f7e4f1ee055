"""torch.cuda as the workload uses it, on the device list the double computed.

Real PyTorch on ROCm: is_available() is False (with a warning) when HIP finds no device, and
initializing a device then raises "No HIP GPUs are available"
(pytorch torch/cuda/__init__.py, _lazy_init / is_available)."""

import os
import warnings

import _rocprof_sim

_touched_by = None  # the pid that reported its device use (a forked child reports its own)


def _touch():
    global _touched_by
    if _touched_by != os.getpid():
        _touched_by = os.getpid()
        _rocprof_sim.emit("gpu", ",".join(str(g) for g in _rocprof_sim.visible_gpus()) or "-")


def device_count():
    _touch()
    return len(_rocprof_sim.visible_gpus())


def is_available():
    n = device_count()
    if n == 0:
        warnings.warn("HIP initialization: hipGetDeviceCount() returned hipErrorNoDevice "
                      "(no ROCm-capable device is detected)", UserWarning, stacklevel=2)
    return n > 0


def _lazy_init():
    if device_count() == 0:
        raise RuntimeError("No HIP GPUs are available")


def current_device():
    _lazy_init()
    return 0


def get_device_name(device=None):
    _lazy_init()
    return "AMD Instinct MI300X (simulated)"


def synchronize(device=None):
    """Waits for the GPU work of *this* process, like hipDeviceSynchronize."""
    _lazy_init()
    _rocprof_sim.emit("sync")
