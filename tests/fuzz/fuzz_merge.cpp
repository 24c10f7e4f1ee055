// libFuzzer target: merge of two small capture databases. The input is two rocprofv3 files, each
// in the csv_db target's shape (capture_input.hpp), separated by a line "====". Each is ingested
// into a database of its own as `kprof ingest` does, then the second is merged into the first as
// `kprof merge A B` does (core/exec/usecases/merge_captures.hpp). Whatever the rows, the merge ends
// in a merged database or in kprof::Error (a refusal or a runtime error, never an internal one,
// never a crash), and the first database passes PRAGMA quick_check afterwards either way.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/exec/usecases/ingest_capture.hpp"
#include "core/exec/usecases/merge_captures.hpp"
#include "core/store/capture_db.hpp"
#include "tests/fuzz/capture_input.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& work_dir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("kprof-fuzz-merge-" + std::to_string(::getpid()));
  return dir;
}

// Writes one input file into its own capture folder and ingests it into `db`; false when the
// ingest refused it (nothing to merge then).
bool ingest_one(std::string_view part, const fs::path& folder, const fs::path& db) {
  if (part.empty()) return false;
  kprof::fuzz::write_capture(part, folder);
  kprof::exec::IngestRequest request;
  request.db = db;
  request.inputs = {folder.string()};
  try {
    (void)kprof::exec::ingest_capture(request);
  } catch (const kprof::Error&) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view all(reinterpret_cast<const char*>(data), size);
  const std::string_view sep = "\n====\n";
  const size_t at = all.find(sep);
  if (at == std::string_view::npos) return 0;
  const fs::path dir = work_dir();
  fs::remove_all(dir);
  const fs::path a = dir / "a.db", b = dir / "b.db";
  if (!ingest_one(all.substr(0, at), dir / "cap-a", a)) return 0;
  if (!ingest_one(all.substr(at + sep.size()), dir / "cap-b", b)) return 0;
  try {
    (void)kprof::exec::merge_into(a, {b});
  } catch (const kprof::Error&) {
    // a refusal (exit 2) or a runtime error (exit 1): both are kprof's own, with the reason
  }
  kprof::store::CaptureDb db(a, kprof::store::OpenMode::read_only);
  db.check_intact();
  return 0;
}
