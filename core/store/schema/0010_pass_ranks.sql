-- kprof capture database, schema version 10: the processes of a pass and its ranks.
--
-- rocprofiler-sdk's tool is loaded into every process the application starts and writes one
-- output per process (the tool's output file name defaults to %hostname%/<pid>: ROCm/rocprofiler-sdk
-- source/lib/rocprofiler-sdk-tool/config.hpp, ROCPROF_OUTPUT_FILE_NAME; kprof passes -o
-- %hostname%/%pid%), so a tensor-parallel run of N workers gives N processes per pass. The loader counts each pass's dispatches per (process, agent) as it
-- stores them; the ranks are read from those counts, never from a scan of the dispatches.
CREATE TABLE pass_processes (
  pass_id    INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,
  pid        INTEGER NOT NULL,  -- Process_Id (or the %pid% file prefix)
  agent      INTEGER NOT NULL,  -- the N of "Agent N" the process dispatched to
  dispatches INTEGER NOT NULL CHECK (dispatches > 0),
  first_start_ns INTEGER NOT NULL,  -- the earliest Start_Timestamp among them
  last_end_ns    INTEGER NOT NULL,  -- the latest End_Timestamp among them
  PRIMARY KEY (pass_id, pid, agent)
) STRICT;

-- Passes loaded before this version: counted once here.
INSERT INTO pass_processes (pass_id, pid, agent, dispatches, first_start_ns, last_end_ns)
  SELECT pass_id, pid, agent, count(*), min(start_ns), max(end_ns) FROM dispatch_rows
  GROUP BY pass_id, pid, agent;

-- The launch sequence in program order, (pid, Dispatch_Id), with the variant each launched, read
-- from the index alone: `kprof plan` walks it for its rotation preview (core/exec/passes/
-- rotation_preview.cpp), 10M rows in about 0.9 s of SQLite stepping instead of 1.5 s with a
-- lookup of every row in the table.
DROP INDEX dispatches_by_key;
CREATE INDEX dispatches_by_key ON dispatch_rows(pass_id, pid, dispatch_id, variant_id);

-- A rank is one GPU agent of the pass and the process that drove it: the process with the most
-- dispatches on that agent (an API or engine process may launch a few kernels on a worker's GPU;
-- ties go to the lower pid). Ranks are numbered from 0 in the order of their agents, which is the
-- local rank under vLLM's tensor parallelism on one node: worker r uses visible device r
-- (vllm-project/vllm vllm/v1/worker/gpu_worker.py, init_device: torch.cuda.set_device with the
-- local rank). One process that drives several GPUs is several ranks.
CREATE VIEW pass_ranks AS
  SELECT pass_id, row_number() OVER (PARTITION BY pass_id ORDER BY agent) - 1 AS rank, pid, agent,
         dispatches
  FROM (SELECT pass_id, pid, agent, dispatches,
               row_number() OVER (PARTITION BY pass_id, agent ORDER BY dispatches DESC, pid) AS k
        FROM pass_processes)
  WHERE k = 1;

-- workload.ranks: the ranks every pass must have (NULL: the runbook does not say; one is assumed).
ALTER TABLE run_runbook_hints ADD COLUMN ranks INTEGER;
