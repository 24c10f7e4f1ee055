"""Shared by kprof's simulation stand-ins for torch and vllm (tests/standins/python).

They exist only so that the real workload script (runbooks/workloads/qwen3_generate.py) runs its
real argv and process structure under rocprofv3-sim on a machine with no GPU and no vLLM. They
compute nothing: they only report to the double what the real libraries would make the GPU do,
in which process, through the events file the double names in ROCPROF_SIM_EVENTS. The double
(core/sim) then models the dispatches. Outside the double they refuse to import.
"""

import os

EVENTS = "ROCPROF_SIM_EVENTS"
VISIBLE = "ROCPROF_SIM_VISIBLE_GPUS"


def require_simulation(what):
    if not os.environ.get(EVENTS):
        raise ImportError(
            f"this '{what}' is kprof's simulation stand-in (tests/standins), found on PYTHONPATH "
            f"outside rocprofv3-sim; install the real {what} or remove the stand-ins from "
            "PYTHONPATH")


def emit(*words):
    """Appends one event line '<pid> <words...>' (one write(2) with O_APPEND: lines from several
    processes never interleave)."""
    path = os.environ.get(EVENTS)
    if not path:
        return
    line = (" ".join([str(os.getpid())] + [str(w) for w in words]) + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line)
    finally:
        os.close(fd)


def visible_gpus():
    """Physical indices of the GPUs HIP shows this process, as the double computed them from
    ROCR_VISIBLE_DEVICES / HIP_VISIBLE_DEVICES (core/sim/devices.hpp)."""
    text = os.environ.get(VISIBLE, "")
    return [int(x) for x in text.split(",") if x.strip()]
