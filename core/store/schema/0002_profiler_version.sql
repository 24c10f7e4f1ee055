-- Schema version 2: the profiler's version is stored with the run.
-- kprof reads `rocprofv3 --version` once per run and builds every pass's command line for that
-- version (e.g. ROCm 7.0 needs --marker-trace for --selected-regions); `kprof resume` reuses the
-- recorded text so a resumed run keeps the command lines it started with. Runs made before this
-- migration have '' (not recorded).
ALTER TABLE runs ADD COLUMN profiler_version TEXT NOT NULL DEFAULT '';
