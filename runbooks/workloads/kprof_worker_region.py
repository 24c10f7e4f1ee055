"""The measured region, opened and closed inside every vLLM worker process.

qwen3_generate.py passes this class to vLLM as worker_extension_cls
("kprof_worker_region.KprofWorkerRegion"): vLLM resolves the name in each worker process and mixes
the class into its worker (vllm-project/vllm vllm/worker/worker_base.py, WorkerWrapperBase.
init_worker), so LLM.collective_rpc("kprof_region_begin") runs the method in every rank
(vllm/entrypoints/llm.py, LLM.collective_rpc; vllm/v1/executor/multiproc_executor.py,
MultiprocExecutor.collective_rpc). A method NAME travels as a string; a callable would have to be
pickled, which vLLM's engine-core client refuses without VLLM_ALLOW_INSECURE_SERIALIZATION=1
(vllm/v1/serial_utils.py, MsgpackEncoder.enc_hook) whenever the engine core is its own process.

rocprofiler-sdk's region state is per process (see qwen3_generate.py), so each worker resumes and
pauses its own tool. Each method first waits for the worker's GPU, so the region holds exactly the
measured request's kernels of that rank. The workers import this module by name: the script puts
its own folder on PYTHONPATH before vLLM starts them.
"""

import os


class KprofWorkerRegion:
    def _kprof_roctx(self):
        lib = getattr(self, "_kprof_roctx_lib", None)
        if lib is None:
            from qwen3_generate import load_roctx

            lib = load_roctx()
            if lib is None:
                raise RuntimeError(f"roctx library not found in worker process {os.getpid()}")
            self._kprof_roctx_lib = lib
        return lib

    def kprof_region_begin(self):
        """Synchronize this worker's GPU, then roctxProfilerResume in this process."""
        import torch

        lib = self._kprof_roctx()
        torch.cuda.synchronize()
        lib.roctxProfilerResume(0)
        return os.getpid()

    def kprof_region_end(self):
        """Synchronize this worker's GPU, then roctxProfilerPause in this process."""
        import torch

        torch.cuda.synchronize()
        self._kprof_roctx().roctxProfilerPause(0)
        return os.getpid()
