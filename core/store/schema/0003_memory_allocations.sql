-- kprof capture database, schema version 3: rocprofv3's memory_allocation_trace.csv.
-- Columns as ROCm/rocprofiler-sdk source/lib/output/generateCSV.cpp writes them: Kind, Operation,
-- Agent_Id, Allocation_Size, Address, Correlation_Id, Start_Timestamp, End_Timestamp.

-- One row of memory_allocation_trace.csv.
CREATE TABLE memory_allocations (
  pass_id        INTEGER NOT NULL REFERENCES passes(id) ON DELETE CASCADE,  -- the pass
  pid            INTEGER NOT NULL,  -- from the %pid% file prefix (the file has no Process_Id)
  operation_id   INTEGER NOT NULL REFERENCES strings(id),  -- MEMORY_ALLOCATION_ALLOCATE, ..._FREE
  agent          INTEGER,           -- the N of "Agent N"; NULL for frees (rocprofv3 leaves it empty)
  size_bytes     INTEGER NOT NULL CHECK (size_bytes >= 0),  -- Allocation_Size
  address        TEXT NOT NULL,     -- Address as written, hexadecimal
  correlation_id INTEGER NOT NULL,  -- Correlation_Id
  start_ns       INTEGER NOT NULL,  -- Start_Timestamp
  end_ns         INTEGER NOT NULL   -- End_Timestamp
) STRICT;
CREATE INDEX memory_allocations_by_pass ON memory_allocations(pass_id);
