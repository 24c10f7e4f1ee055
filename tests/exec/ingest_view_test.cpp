// What `kprof ingest` prints for a report (core/exec/usecases/ingest_view.hpp), on a hand-made
// report.
#include "core/exec/usecases/ingest_view.hpp"

#include <gtest/gtest.h>

namespace kprof::exec {
namespace {

TEST(IngestView, EachRunAndPassWithItsFilesThenNotesSkippedAndRejected) {
  IngestReport r;
  IngestedRun run;
  run.id = 3;
  run.name = "ingest:cap";
  IngestedPass pass;
  pass.ordinal = 1;
  pass.kind = store::PassKind::counters;
  pass.folder = "cap/pass_1";
  pass.action = "replaced pass 1's rows (--replace)";
  ingest::FileResult f;
  f.path = "/tmp/cap/pass_1/x_counter_collection.csv";
  f.kind = "counter_collection";
  f.rows_read = 12;
  f.rows_rejected = 2;
  pass.files.push_back(f);
  run.passes.push_back(pass);
  r.runs.push_back(run);
  r.notes.push_back("one run");
  r.skipped.push_back("cap/readme.txt");
  r.rejected = 2;
  const std::string text = ingest_text(r, "k.db", 0);
  EXPECT_EQ(text.rfind("run 3 'ingest:cap' in k.db (measured)\n"
                       "pass 1 (counters) cap/pass_1\n"
                       "  replaced pass 1's rows (--replace)\n",
                       0),
            0u)
      << text;
  EXPECT_NE(text.find("x_counter_collection.csv"), std::string::npos) << text;  // file name only
  EXPECT_EQ(text.find("/tmp/cap"), std::string::npos) << text;
  EXPECT_NE(text.find("note: one run\nskipped (not a format kprof reads): cap/readme.txt\n"
                      "2 bad rows were skipped"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace kprof::exec
