-- kprof capture database, schema version 1.
-- Applied by core/store/migrate.cpp inside one transaction, after which schema_version gets the row
-- (1, now). Times are integer milliseconds since the Unix epoch (UTC); durations from the GPU are
-- nanoseconds as rocprofv3 wrote them. Every table is STRICT so a value of the wrong type is an
-- error instead of being stored silently.

-- Which migrations have been applied; the schema version of the file is max(version).
CREATE TABLE schema_version (
  version    INTEGER PRIMARY KEY,  -- the number of the migration file (0001_init.sql -> 1)
  applied_ms INTEGER NOT NULL      -- when it was applied
) STRICT;

-- One profiling run: one execution (and its resumes) of one runbook.
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,  -- run id
  name           TEXT NOT NULL,        -- the runbook's `name`, or --run for hand-made captures
  runbook_path   TEXT NOT NULL,        -- absolute path of the runbook, as given ('' when none)
  runbook_sha256 TEXT NOT NULL         -- hex sha256 of the runbook's bytes; resume refuses a change
    CHECK (runbook_sha256 = '' OR (length(runbook_sha256) = 64
                                   AND runbook_sha256 NOT GLOB '*[^0-9a-f]*')),
  runbook_text   TEXT NOT NULL,        -- a copy of the runbook, so the database alone says what ran
  host           TEXT NOT NULL,        -- hostname of the machine that started the run
  started_ms     INTEGER NOT NULL,     -- when the run was created
  finished_ms    INTEGER,              -- when it reached done/failed/interrupted; NULL while running
  status         TEXT NOT NULL         -- running | done | failed | interrupted
    CHECK (status IN ('running', 'done', 'failed', 'interrupted')),
  kprof_version  TEXT NOT NULL,        -- version of the kprof that created the run
  simulated      INTEGER NOT NULL      -- 1 when the profiler was the rocprofv3 test double: its
    CHECK (simulated IN (0, 1)),       --   figures are simulated, never measured
  seed           INTEGER,              -- the test double's seed when simulated; else NULL
  CHECK (finished_ms IS NULL OR finished_ms >= started_ms)
) STRICT;

-- One profiler invocation of a run: the trace pass (ordinal 0) or a counter pass.
CREATE TABLE passes (
  id           INTEGER PRIMARY KEY,  -- pass id
  run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  -- the run it belongs to
  ordinal      INTEGER NOT NULL CHECK (ordinal >= 0),  -- position in the plan; 0 = trace pass
  kind         TEXT NOT NULL CHECK (kind IN ('trace', 'counters')),  -- trace | counters
  counters     TEXT NOT NULL DEFAULT '[]'  -- JSON array of counter names requested ([] for trace)
    CHECK (json_valid(counters) AND json_type(counters) = 'array'),
  argv         TEXT NOT NULL DEFAULT '[]'  -- JSON array: the full profiler command line
    CHECK (json_valid(argv) AND json_type(argv) = 'array'),
  env          TEXT NOT NULL DEFAULT '[]'  -- JSON array of [name, value] pairs set on top of the
    CHECK (json_valid(env) AND json_type(env) = 'array'),  -- inherited environment (the delta)
  state        TEXT NOT NULL DEFAULT 'planned'  -- planned | running | done | failed | interrupted
    CHECK (state IN ('planned', 'running', 'done', 'failed', 'interrupted')),
  attempts     INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),  -- times the pass was started
  exit_code    INTEGER,              -- the profiler's exit status of the last attempt, if it exited
  signal       INTEGER,              -- the signal that ended the last attempt, if one did
  reason       TEXT NOT NULL DEFAULT '',  -- why it failed / was interrupted / was retried
  started_ms   INTEGER,              -- when the last attempt started
  finished_ms  INTEGER,              -- when the last attempt ended
  output_dir   TEXT NOT NULL DEFAULT '',  -- where the profiler writes (-d)
  log_path     TEXT NOT NULL DEFAULT '',  -- the profiler's captured stdout+stderr
  log_excerpt  TEXT NOT NULL DEFAULT '',  -- the tail of that log, kept for `kprof status`
  owner_pid    INTEGER,              -- pid of the kprof process running it; NULL unless running
  owner_host   TEXT NOT NULL DEFAULT '',  -- host of that process; '' unless running
  UNIQUE (run_id, ordinal),
  CHECK (state = 'running' OR owner_pid IS NULL)
) STRICT;

-- Interned strings: kernel names (long, and repeated ~10^4 times per trace), counter names, API
-- domains and functions. Rows refer to them by id.
CREATE TABLE strings (
  id    INTEGER PRIMARY KEY,     -- string id
  value TEXT NOT NULL UNIQUE     -- the string itself
) STRICT;

-- The agents (CPUs and GPUs) a pass saw, from agent_info.csv or rocpd.
CREATE TABLE agents (
  pass_id            INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  node_id            INTEGER NOT NULL,  -- Node_Id: "Agent N" with --agent-index absolute
  logical_node_id    INTEGER NOT NULL,  -- Logical_Node_Id: "Agent N" by default (relative)
  type               TEXT NOT NULL,     -- CPU | GPU
  name               TEXT NOT NULL,     -- gfx942, ...
  product_name       TEXT NOT NULL,     -- "AMD Instinct MI300X"; the double appends " (simulated)"
  cu_count           INTEGER NOT NULL,  -- compute units
  simd_count         INTEGER NOT NULL,  -- SIMDs
  wave_front_size    INTEGER NOT NULL,  -- lanes per wavefront
  max_waves_per_simd INTEGER NOT NULL,  -- wave slots per SIMD
  num_xcc            INTEGER NOT NULL,  -- accelerator complex dies
  max_engine_clk_mhz INTEGER NOT NULL,  -- Max_Engine_Clk_Fcompute
  PRIMARY KEY (pass_id, node_id)
) STRICT, WITHOUT ROWID;

-- Provenance and counts of every file ingested into a pass.
CREATE TABLE ingest_stats (
  id                  INTEGER PRIMARY KEY,  -- file id
  pass_id             INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  path                TEXT NOT NULL,        -- the file as given to the reader
  kind                TEXT NOT NULL,        -- kernel_trace | counter_collection | kernel_stats | ...
  size_bytes          INTEGER NOT NULL CHECK (size_bytes >= 0),  -- file size when loaded
  sha256              TEXT NOT NULL,        -- hex sha256 of the file ('' when not computed)
  tool_version        TEXT NOT NULL DEFAULT '',  -- rocprofv3 version if the file says; else ''
  rows_read           INTEGER NOT NULL CHECK (rows_read >= 0),      -- data rows the reader read
  rows_rejected       INTEGER NOT NULL CHECK (rows_rejected >= 0),  -- rows not stored (bad/dup)
  first_reject_line   INTEGER,              -- line of the first rejected row; NULL if none
  first_reject_reason TEXT NOT NULL DEFAULT '',  -- why it was rejected
  loaded_ms           INTEGER NOT NULL      -- when the file was loaded
) STRICT;
CREATE INDEX ingest_stats_by_pass ON ingest_stats(pass_id);

-- One kernel dispatch (kernel_trace.csv; counter passes also record theirs here).
CREATE TABLE dispatches (
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  dispatch_id    INTEGER NOT NULL,  -- Dispatch_Id: unique within one process
  kernel_id      INTEGER NOT NULL,  -- Kernel_Id: the code object's kernel symbol id
  correlation_id INTEGER NOT NULL,  -- Correlation_Id: links to the API call that launched it
  agent          INTEGER NOT NULL,  -- the N of "Agent N" (relative unless --agent-index absolute)
  queue_id       INTEGER NOT NULL,  -- Queue_Id
  stream_id      INTEGER,           -- Stream_Id; NULL in layouts without it
  pid            INTEGER NOT NULL,  -- Process_Id, or from the %pid% file prefix, or 0
  tid            INTEGER NOT NULL,  -- Thread_Id
  start_ns       INTEGER NOT NULL,  -- Start_Timestamp (ns, the profiler's clock)
  end_ns         INTEGER NOT NULL,  -- End_Timestamp
  grid_x         INTEGER NOT NULL,  -- work-items in x (the whole grid size when dims_known = 0)
  grid_y         INTEGER NOT NULL,  -- work-items in y
  grid_z         INTEGER NOT NULL,  -- work-items in z
  wg_x           INTEGER NOT NULL,  -- workgroup size in x (the product when dims_known = 0)
  wg_y           INTEGER NOT NULL,  -- workgroup size in y
  wg_z           INTEGER NOT NULL,  -- workgroup size in z
  dims_known     INTEGER NOT NULL CHECK (dims_known IN (0, 1)),  -- 0: only products were known
  lds            INTEGER NOT NULL,  -- LDS bytes per workgroup
  scratch        INTEGER NOT NULL,  -- scratch bytes per work-item
  vgpr           INTEGER,           -- architected VGPRs; NULL when the layout lacks it
  agpr           INTEGER,           -- accumulation VGPRs; NULL when the layout lacks it
  sgpr           INTEGER,           -- SGPRs; NULL when the layout lacks it
  kernel_name_id INTEGER NOT NULL REFERENCES strings(id),  -- Kernel_Name, interned
  CHECK (end_ns >= start_ns)
) STRICT;
-- The join key of counter values and the pass filter of every query; also what the loader's
-- DELETE of a re-ingested pass uses. Rows arrive in this order, so keeping it during the load costs
-- little (measured: building it after the load was slower). There is deliberately no index on
-- kernel_name_id: rows arrive in random kernel order, and maintaining one cost ~25% of load speed;
-- per-kernel queries filter by pass first and group.
CREATE INDEX dispatches_by_key ON dispatches(pass_id, pid, dispatch_id);

-- One (dispatch, counter) value of a counter pass; dimension instances already summed.
-- WITHOUT ROWID: the primary key is the only access path, so the table is its own index.
CREATE TABLE counter_values (
  pass_id     INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  pid         INTEGER NOT NULL,  -- process of the dispatch
  dispatch_id INTEGER NOT NULL,  -- Dispatch_Id (joins dispatches on pass_id, pid, dispatch_id)
  counter_id  INTEGER NOT NULL REFERENCES strings(id),  -- Counter_Name, interned
  value       REAL NOT NULL,     -- Counter_Value
  PRIMARY KEY (pass_id, pid, dispatch_id, counter_id)
) STRICT, WITHOUT ROWID;

-- One row of kernel_stats.csv (or another *_stats.csv, see file_id's kind).
CREATE TABLE kernel_stats (
  pass_id     INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  file_id     INTEGER NOT NULL REFERENCES ingest_stats(id) ON DELETE CASCADE,  -- source file
  name_id     INTEGER NOT NULL REFERENCES strings(id),  -- Name, interned
  calls       INTEGER NOT NULL,  -- Calls
  total_ns    INTEGER NOT NULL,  -- TotalDurationNs
  average_ns  REAL NOT NULL,     -- AverageNs
  percentage  REAL NOT NULL,     -- Percentage of the total
  min_ns      INTEGER NOT NULL,  -- MinNs
  max_ns      INTEGER NOT NULL,  -- MaxNs
  stddev_ns   REAL NOT NULL      -- StdDev
) STRICT;
CREATE INDEX kernel_stats_by_pass ON kernel_stats(pass_id);
CREATE INDEX kernel_stats_by_file ON kernel_stats(file_id);

-- One row of memory_copy_trace.csv.
CREATE TABLE memory_copies (
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  pid            INTEGER NOT NULL,  -- from the %pid% file prefix
  direction_id   INTEGER NOT NULL REFERENCES strings(id),  -- MEMORY_COPY_HOST_TO_DEVICE, ...
  stream_id      INTEGER NOT NULL,  -- Stream_Id
  src_agent      INTEGER NOT NULL,  -- the N of the source "Agent N"
  dst_agent      INTEGER NOT NULL,  -- the N of the destination "Agent N"
  correlation_id INTEGER NOT NULL,  -- Correlation_Id
  start_ns       INTEGER NOT NULL,  -- Start_Timestamp
  end_ns         INTEGER NOT NULL   -- End_Timestamp
) STRICT;
CREATE INDEX memory_copies_by_pass ON memory_copies(pass_id);

-- One row of hip_api_trace.csv, hsa_api_trace.csv or marker_api_trace.csv.
CREATE TABLE api_calls (
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  domain_id      INTEGER NOT NULL REFERENCES strings(id),  -- Domain, interned
  function_id    INTEGER NOT NULL REFERENCES strings(id),  -- Function (or the roctx text)
  pid            INTEGER NOT NULL,  -- Process_Id
  tid            INTEGER NOT NULL,  -- Thread_Id
  correlation_id INTEGER NOT NULL,  -- Correlation_Id
  start_ns       INTEGER NOT NULL,  -- Start_Timestamp
  end_ns         INTEGER NOT NULL   -- End_Timestamp
) STRICT;
CREATE INDEX api_calls_by_pass ON api_calls(pass_id);

-- The kernels of interest of a run, chosen from its trace; counter passes are joined to them.
CREATE TABLE selected_kernels (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,  -- the run
  name_id INTEGER NOT NULL REFERENCES strings(id),  -- the kernel name, interned
  rank    INTEGER NOT NULL CHECK (rank >= 1),       -- 1 = first by the selection's measure
  reason  TEXT NOT NULL,  -- how it was chosen: "top 10 by total_duration", "include_regex ..."
  PRIMARY KEY (run_id, name_id),
  UNIQUE (run_id, rank)
) STRICT;

-- At most one process drives a run at a time. The executor inserts its row in an IMMEDIATE
-- transaction; a row whose process is dead is broken by the executor (it knows how to check).
CREATE TABLE run_lock (
  run_id      INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,  -- the locked run
  pid         INTEGER NOT NULL,  -- the holder's pid
  host        TEXT NOT NULL,     -- the holder's hostname (a pid means nothing on another host)
  acquired_ms INTEGER NOT NULL   -- when it was taken
) STRICT;
