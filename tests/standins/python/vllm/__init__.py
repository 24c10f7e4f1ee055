"""kprof's simulation stand-in for vLLM V1 (tests/standins/python/_rocprof_sim.py): the process
model and the offline API the workload script uses, no model. It reproduces:

* the EngineCore process: with VLLM_ENABLE_V1_MULTIPROCESSING unset or 1 (vLLM's default,
  vllm/envs.py) LLM() starts a separate engine process and the model's GPU work happens there; with
  0 the engine runs in the calling process (vllm/v1/engine/core_client.py, InprocClient vs
  SyncMPClient);
* collective_rpc: a callable or worker method name run in every worker, one result per rank
  (vllm/entrypoints/llm.py, LLM.collective_rpc);
* tensor_parallel_size N > 1: one worker process per rank on GPU local_rank (vllm/executor.py of
  the stand-ins: MultiprocExecutor, worker_extension_cls, enable_expert_parallel recorded);
* compilation_config / enforce_eager as given (recorded with the work, never acted on).
"""

import _rocprof_sim

_rocprof_sim.require_simulation("vllm")

__version__ = "0.0.0+kprof.standin"

from vllm.entrypoints.llm import LLM  # noqa: E402
from vllm.sampling_params import SamplingParams  # noqa: E402

__all__ = ["LLM", "SamplingParams"]
