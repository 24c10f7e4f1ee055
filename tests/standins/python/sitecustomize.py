"""Imported by every Python process that starts under rocprofv3-sim (the stand-ins' folder is first
on PYTHONPATH there): it reports the process to the double, so a Python workload that exits before
any GPU work (a script refusing its arguments) is known to have launched no kernel. Without it the
double would take the program for a plain one that brackets the model's region itself."""

import os

if os.environ.get("ROCPROF_SIM_EVENTS"):
    import _rocprof_sim

    _rocprof_sim.emit("python")
