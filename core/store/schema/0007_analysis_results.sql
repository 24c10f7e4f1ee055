-- Schema version 7: the analysis' results, kept in the capture database beside the rows they
-- are derived from: the cross-pass join mapping of each counter pass and the run outline of each
-- trace pass (core/store/analysis_results.hpp reads and writes them; core/analysis computes them),
-- and the named views for `kprof query --sql` users.
--
-- kprof before schema 7 created these objects itself on first use, in layouts that changed over
-- time. They hold derived data only: whatever an older kprof left is dropped here and computed
-- again by the next command that stores results (ingest, run, export).
DROP VIEW IF EXISTS v_dispatches;
DROP VIEW IF EXISTS v_joined_counters;
DROP VIEW IF EXISTS v_kernel_totals;
DROP TABLE IF EXISTS analysis_outline_segments;
DROP TABLE IF EXISTS analysis_outline_passes;
DROP TABLE IF EXISTS analysis_outline;
DROP TABLE IF EXISTS analysis_join_files;
DROP TABLE IF EXISTS analysis_join_proofs;
DROP TABLE IF EXISTS analysis_join_passes;
DROP TABLE IF EXISTS analysis_unmatched;
DROP TABLE IF EXISTS analysis_join;

-- One row per counter-pass dispatch that the cross-pass join matched to a trace-pass dispatch.
-- The join aligns launch identities (kernel name, grid size, workgroup size) in program order per
-- process and agent, or, for counters written by the trace's own invocation, matches by
-- Dispatch_Id (core/analysis/join/join.hpp).
CREATE TABLE analysis_join (
  counter_pass_id     INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the counter pass
  counter_pid         INTEGER NOT NULL,  -- process of the counter-pass dispatch
  counter_dispatch_id INTEGER NOT NULL,  -- its Dispatch_Id (dispatches.dispatch_id of that pass)
  trace_pass_id       INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the trace pass
  trace_pid           INTEGER NOT NULL,  -- process of the matched trace dispatch
  trace_dispatch_id   INTEGER NOT NULL,  -- its Dispatch_Id in the trace pass
  PRIMARY KEY (counter_pass_id, counter_pid, counter_dispatch_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX analysis_join_by_trace
  ON analysis_join(trace_pass_id, trace_pid, trace_dispatch_id);

-- One row per joined counter pass: what the join found, so a query can report the match rate
-- without redoing it, and can tell when a pass was re-ingested after the join (dispatch counts).
CREATE TABLE analysis_join_passes (
  counter_pass_id     INTEGER PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,  -- the counter pass
  trace_pass_id       INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- joined against
  counter_dispatches  INTEGER NOT NULL,  -- dispatches of the counter pass at join time
  trace_dispatches    INTEGER NOT NULL,  -- dispatches of the trace pass at join time
  trace_considered    INTEGER NOT NULL,  -- trace dispatches of the kernels the counter pass holds
  matched             INTEGER NOT NULL,  -- counter dispatches matched (rows in analysis_join)
  matched_share       REAL NOT NULL,     -- matched / counter_dispatches (1 when there are none)
  filtered            INTEGER NOT NULL CHECK (filtered IN (0, 1)),  -- 1: the counter pass held
                                         --   only some kernels (a kernel filter); the trace side
                                         --   was the subsequence of those kernels
  streams             INTEGER NOT NULL,  -- (process, agent) streams aligned
  joined_ms           INTEGER NOT NULL   -- when the join ran (ms since the Unix epoch); shown,
                                         --   never compared (analysis_join_files says current)
) STRICT;

-- One row per joined counter pass: how the mapping was made and whether it passed its self-check
-- (core/analysis/join/join.hpp). A pass without a row here counts as not joined.
CREATE TABLE analysis_join_proofs (
  counter_pass_id INTEGER PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,  -- the counter pass
  method          TEXT NOT NULL CHECK (method IN ('by_id', 'offset', 'aligned')),  -- by_id: the
                                     --   trace's own invocation (same ids, pids, times); offset:
                                     --   another run, every pair proven under a constant
                                     --   Dispatch_Id offset; aligned: another run, by launch order
  monotone        INTEGER NOT NULL CHECK (monotone IN (0, 1)),  -- 1: matches keep program order
  jump_bound      INTEGER NOT NULL,  -- most trace dispatches a match may skip beyond the counter
                                     --   pass's own gap (0: not checked)
  jumps           INTEGER NOT NULL,  -- consecutive matches that skipped more
  max_jump        INTEGER NOT NULL,  -- the largest excess skip, in trace dispatches
  reliable        INTEGER NOT NULL CHECK (reliable IN (0, 1)),  -- monotone and no jumps; counters
                                     --   of an unreliable join are left out of metrics unless
                                     --   forced
  offset_streams  INTEGER NOT NULL,  -- (process, agent) streams matched under a constant offset
  id_offset       INTEGER NOT NULL   -- that offset (trace id - counter id), of the first such
                                     --   stream; 0 when none
) STRICT;

-- Per joined counter pass, what was ingested into it and into its trace pass when it was joined
-- (core/analysis/join/analysis_db.hpp pass_files_fingerprint: ingest_stats rows as text). The mapping is
-- current only while both are unchanged: `kprof ingest --replace` keeps a pass's id and, from a
-- re-run, often its dispatch count, never its files.
-- A pass without its rows here counts as not joined.
CREATE TABLE analysis_join_files (
  counter_pass_id INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the joined pass
  pass_id         INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- it or its trace pass
  files           TEXT NOT NULL,     -- that pass's ingest_stats rows at join time, a line each
  PRIMARY KEY (counter_pass_id, pass_id)
) STRICT, WITHOUT ROWID;

-- Dispatches the join could not match: extra kernels of a counter pass (lazy init, allocator
-- kernels) and trace dispatches of the considered kernels that the counter pass lacks.
CREATE TABLE analysis_unmatched (
  counter_pass_id INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the join it belongs to
  side            TEXT NOT NULL CHECK (side IN ('counter', 'trace')),  -- which pass the dispatch is in
  pid             INTEGER NOT NULL,  -- its process
  dispatch_id     INTEGER NOT NULL   -- its Dispatch_Id in that pass
) STRICT;
CREATE INDEX analysis_unmatched_by_pass ON analysis_unmatched(counter_pass_id);

-- The run's outline as `kprof export --perfetto` needs it before its first slice, stored so that
-- an export reads O(steps) rows instead of loading the capture (phase detection needs the
-- main stream's whole kernel sequence in memory, about 60 bytes per dispatch; the outline it yields
-- grows with steps only). One row per trace pass; current while `version`, every pass's dispatch
-- count and its ingested files are as stored (core/analysis/outline/run_outline.hpp).
CREATE TABLE analysis_outline (
  trace_pass_id INTEGER PRIMARY KEY REFERENCES passes(id) ON DELETE CASCADE,  -- the trace pass
  version       INTEGER NOT NULL,  -- kprof's outline format and phase detection (run_outline.cpp)
  arch          TEXT NOT NULL,     -- the trace's GPU agent ('' when unknown)
  product       TEXT NOT NULL,     -- its product name
  main_pid      INTEGER NOT NULL,  -- the main stream phase detection analysed (phases.hpp)
  main_agent    INTEGER NOT NULL
) STRICT;

-- Per pass of the outlined run with dispatches (the trace pass and its counter passes): its
-- dispatch count when outlined, its clock and the reorder window of its start order.
CREATE TABLE analysis_outline_passes (
  trace_pass_id  INTEGER NOT NULL REFERENCES analysis_outline(trace_pass_id) ON DELETE CASCADE,
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,
  dispatches     INTEGER NOT NULL,  -- rows in dispatches when outlined
  base_ns        INTEGER NOT NULL,  -- its first dispatch's start (each pass has its own clock)
  reorder_window INTEGER NOT NULL,  -- most earlier dispatches of one process starting after one
  files          TEXT NOT NULL,     -- its ingest_stats rows, a line each (id, file sha256, load
                                    --   time, rows): a re-ingest with as many rows makes it stale
  PRIMARY KEY (trace_pass_id, pass_id)
) STRICT, WITHOUT ROWID;

-- The main stream's segments in Dispatch_Id order (they cover it): steps and what lies between
-- them, as phase detection found them (core/analysis/structure/phases.hpp).
CREATE TABLE analysis_outline_segments (
  trace_pass_id INTEGER NOT NULL REFERENCES analysis_outline(trace_pass_id) ON DELETE CASCADE,
  first_id      INTEGER NOT NULL,  -- Dispatch_Id of the segment's first dispatch
  phase         TEXT NOT NULL,     -- prefill, decode, step, irregular, partial or unknown
  step          INTEGER NOT NULL,  -- 1-based number among the steps (0: not a step)
  start_ns      INTEGER NOT NULL,  -- start of its first dispatch
  end_ns        INTEGER NOT NULL,  -- latest end of its dispatches, cut at the next one's start
  dispatches    INTEGER NOT NULL,
  window_no     INTEGER NOT NULL,  -- the window (stretch without missing ids) it lies in
  PRIMARY KEY (trace_pass_id, first_id)
) STRICT, WITHOUT ROWID;

-- View: every dispatch with its kernel name and run, for --sql users.
--   run_id, pass_id, ordinal, kind (trace|counters), pid, dispatch_id, kernel_id, kernel_name,
--   agent, start_ns, end_ns, duration_ns (end - start), grid_x..z, wg_x..z, lds, scratch, vgpr,
--   agpr, sgpr: as in dispatches (core/store/schema/0001_init.sql).
CREATE VIEW v_dispatches AS
  SELECT p.run_id, d.pass_id, p.ordinal, p.kind, d.pid, d.dispatch_id, d.kernel_id,
         s.value AS kernel_name, d.agent, d.start_ns, d.end_ns, d.end_ns - d.start_ns AS duration_ns,
         d.grid_x, d.grid_y, d.grid_z, d.wg_x, d.wg_y, d.wg_z, d.lds, d.scratch, d.vgpr, d.agpr,
         d.sgpr
  FROM dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings s ON s.id = d.kernel_name_id;

-- View: counter values moved onto the trace dispatches they were joined to.
--   trace_pass_id, trace_pid, trace_dispatch_id: the trace dispatch;
--   counter_pass_id: the pass the value was collected in; counter: Counter_Name; value.
CREATE VIEW v_joined_counters AS
  SELECT j.trace_pass_id, j.trace_pid, j.trace_dispatch_id, j.counter_pass_id,
         s.value AS counter, c.value
  FROM analysis_join j
  JOIN counter_values c ON c.pass_id = j.counter_pass_id AND c.pid = j.counter_pid
                       AND c.dispatch_id = j.counter_dispatch_id
  JOIN strings s ON s.id = c.counter_id;

-- View: per trace pass and kernel name, launches and trace durations (the `top` view's source).
--   pass_id, kernel_name, launches, total_ns, mean_ns, min_ns, max_ns.
CREATE VIEW v_kernel_totals AS
  SELECT d.pass_id, s.value AS kernel_name, count(*) AS launches,
         sum(d.end_ns - d.start_ns) AS total_ns, avg(d.end_ns - d.start_ns) AS mean_ns,
         min(d.end_ns - d.start_ns) AS min_ns, max(d.end_ns - d.start_ns) AS max_ns
  FROM dispatches d JOIN passes p ON p.id = d.pass_id AND p.kind = 'trace'
  JOIN strings s ON s.id = d.kernel_name_id
  GROUP BY d.pass_id, d.kernel_name_id;
