"""kprof's simulation stand-in for PyTorch: only what the workload script calls (see
tests/standins/python/_rocprof_sim.py). It computes nothing."""

import _rocprof_sim

_rocprof_sim.require_simulation("torch")

__version__ = "0.0.0+kprof.standin"

from torch import cuda  # noqa: E402,F401
