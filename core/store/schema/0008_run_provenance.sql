-- kprof capture database, schema version 8: where a run's figures came from, decided once when
-- `kprof run` starts (core/exec/passes/run_provenance.hpp) and stored with the run: the profiler binary
-- that runs every pass and the rocprofv3 release whose option table (configs/rocprofv3) builds the
-- command lines. runs.simulated (schema 1) is the third part; readers take all three from the
-- run, never from a product name. A run recorded before this version, or made by `kprof ingest` of
-- captures whose profiler kprof did not start, says 'unknown'; `kprof merge` copies its source's.
ALTER TABLE runs ADD COLUMN profiler_path TEXT NOT NULL DEFAULT 'unknown';     -- as started
ALTER TABLE runs ADD COLUMN profiler_release TEXT NOT NULL DEFAULT 'unknown';  -- "7.0", ...
