-- kprof capture database, schema version 4: runs.simulated is the one record of whether a run's
-- figures are simulated. `kprof run` sets it from the backend; `kprof ingest` sets it in the
-- loader's transaction when a loaded agent's product name carries the rocprofv3 test double's
-- " (simulated)" suffix. Databases ingested before the loader did so get the flag here, once, so
-- that readers (the query views) read the flag and never the product name.
UPDATE runs SET simulated = 1
 WHERE simulated = 0
   AND id IN (SELECT p.run_id FROM passes p JOIN agents a ON a.pass_id = p.id
               WHERE instr(a.product_name, '(simulated)') > 0);
