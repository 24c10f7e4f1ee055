-- kprof capture database, schema version 9: what a query needs of a run's runbook, taken from the
-- parsed runbook once when the run is recorded (core/exec/passes/runbook_hints.hpp) and read back
-- as rows, so that a query never parses the stored runbook text again: that text may name files
-- that exist only on the machine that made the run. A run recorded before this version has no row
-- in run_runbook_hints; readers then fall back to the text. `kprof merge` copies its source's.
CREATE TABLE run_runbook_hints (
  run_id        INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  layers        INTEGER,  -- analysis.layers; NULL when the runbook does not say
  output_tokens INTEGER   -- analysis.output_tokens; NULL when the runbook does not say
) STRICT;

-- The runbook's analysis.families rules, tried before configs/families (the first match wins).
CREATE TABLE run_family_rules (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,  -- the rule's place in the list, from 0
  match   TEXT NOT NULL,     -- the ECMAScript regex, as written
  family  TEXT NOT NULL,     -- the family it names
  file    TEXT NOT NULL,     -- where the runbook wrote the regex
  line    INTEGER NOT NULL,
  col     INTEGER NOT NULL,
  PRIMARY KEY (run_id, ordinal)
) STRICT;

-- The runbook's passes.counters.metric_sets, in the order written (what `metric_sets` shows).
CREATE TABLE run_metric_sets (
  run_id  INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  name    TEXT NOT NULL,
  PRIMARY KEY (run_id, ordinal)
) STRICT;
