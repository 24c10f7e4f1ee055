-- kprof capture database, schema version 5: a dispatch is a narrow row that points to its kernel
-- variant. A trace repeats the same kernel with the same launch shape and resources thousands of
-- times (the analysis calls that a variant: core/analysis/structure/family.hpp); storing those 13 columns
-- once per variant and pass leaves 11 per dispatch, which is what the loader writes per row.
-- `dispatches` stays, as a view with the columns and meaning of schema 1, so every reader and
-- every --sql query written against it keeps working.

-- One distinct kernel launch configuration of a pass: name, code object symbol, grid, workgroup
-- and resources, exactly as rocprofv3 reported them.
CREATE TABLE kernel_variants (
  id             INTEGER PRIMARY KEY,  -- variant id (dispatch_rows.variant_id)
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  kernel_id      INTEGER NOT NULL,  -- Kernel_Id: the code object's kernel symbol id
  kernel_name_id INTEGER NOT NULL REFERENCES strings(id),  -- Kernel_Name, interned
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
  sgpr           INTEGER            -- SGPRs; NULL when the layout lacks it
) STRICT;
CREATE INDEX kernel_variants_by_pass ON kernel_variants(pass_id);

-- One kernel dispatch: when and where it ran, and which variant it launched.
CREATE TABLE dispatch_rows (
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  dispatch_id    INTEGER NOT NULL,  -- Dispatch_Id: unique within one process
  correlation_id INTEGER NOT NULL,  -- Correlation_Id: links to the API call that launched it
  agent          INTEGER NOT NULL,  -- the N of "Agent N" (relative unless --agent-index absolute)
  queue_id       INTEGER NOT NULL,  -- Queue_Id
  stream_id      INTEGER,           -- Stream_Id; NULL in layouts without it
  pid            INTEGER NOT NULL,  -- Process_Id, or from the %pid% file prefix, or 0
  tid            INTEGER NOT NULL,  -- Thread_Id
  start_ns       INTEGER NOT NULL,  -- Start_Timestamp (ns, the profiler's clock)
  end_ns         INTEGER NOT NULL,  -- End_Timestamp
  variant_id     INTEGER NOT NULL REFERENCES kernel_variants(id),  -- what it launched
  CHECK (end_ns >= start_ns)
) STRICT;

INSERT INTO kernel_variants(pass_id, kernel_id, kernel_name_id, grid_x, grid_y, grid_z, wg_x, wg_y,
                            wg_z, dims_known, lds, scratch, vgpr, agpr, sgpr)
  SELECT DISTINCT pass_id, kernel_id, kernel_name_id, grid_x, grid_y, grid_z, wg_x, wg_y, wg_z,
         dims_known, lds, scratch, vgpr, agpr, sgpr
  FROM dispatches ORDER BY pass_id;

INSERT INTO dispatch_rows(pass_id, dispatch_id, correlation_id, agent, queue_id, stream_id, pid,
                          tid, start_ns, end_ns, variant_id)
  SELECT d.pass_id, d.dispatch_id, d.correlation_id, d.agent, d.queue_id, d.stream_id, d.pid,
         d.tid, d.start_ns, d.end_ns, v.id
  FROM dispatches d JOIN kernel_variants v
    ON v.pass_id = d.pass_id AND v.kernel_id = d.kernel_id AND v.kernel_name_id = d.kernel_name_id
   AND v.grid_x = d.grid_x AND v.grid_y = d.grid_y AND v.grid_z = d.grid_z AND v.wg_x = d.wg_x
   AND v.wg_y = d.wg_y AND v.wg_z = d.wg_z AND v.dims_known = d.dims_known AND v.lds = d.lds
   AND v.scratch = d.scratch AND v.vgpr IS d.vgpr AND v.agpr IS d.agpr AND v.sgpr IS d.sgpr
  ORDER BY d.rowid;

DROP TABLE dispatches;

-- The join key of counter values and the pass filter of every query (as in schema 1).
CREATE INDEX dispatches_by_key ON dispatch_rows(pass_id, pid, dispatch_id);

-- Every dispatch with its variant's columns: schema 1's `dispatches`, column for column. The LEFT
-- JOIN on the variant's primary key lets SQLite skip the join when no variant column is read
-- (count(*), ids, times); every dispatch has its variant (the foreign key).
CREATE VIEW dispatches AS
  SELECT d.pass_id, d.dispatch_id, v.kernel_id, d.correlation_id, d.agent, d.queue_id, d.stream_id,
         d.pid, d.tid, d.start_ns, d.end_ns, v.grid_x, v.grid_y, v.grid_z, v.wg_x, v.wg_y, v.wg_z,
         v.dims_known, v.lds, v.scratch, v.vgpr, v.agpr, v.sgpr, v.kernel_name_id
  FROM dispatch_rows d LEFT JOIN kernel_variants v ON v.id = d.variant_id;
