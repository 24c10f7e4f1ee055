-- kprof capture database, schema version 6: the running attempt's launch, as the launcher that started it names it.
-- With owner_pid/owner_host (the kprof process that owns the attempt) this is the owner record: a
-- `kprof resume` after a kill -9 of kprof asks that launcher to stop what it left running. Both are
-- '' unless the pass is running and its attempt started.
ALTER TABLE passes ADD COLUMN launcher TEXT NOT NULL DEFAULT '';   -- "local", "slurm"
ALTER TABLE passes ADD COLUMN launch_id TEXT NOT NULL DEFAULT '';  -- local: "<pgid>:<start time>"
