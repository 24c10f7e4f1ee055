// libFuzzer target: CSV values through to the database. The first byte picks the format (a kernel
// trace or a counter collection, as in fuzz_csv); the rest is written as that file in a folder
// of its own and loaded by the ingest use case (core/exec/usecases/ingest_capture.hpp) into a new
// capture database, as `kprof ingest` does. Any bytes must end in a database or in kprof::Error
// (never an SQLite constraint turned "kprof bug", never a crash), and a database that was written
// must pass PRAGMA quick_check.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>

#include "core/base/error.hpp"
#include "core/exec/usecases/ingest_capture.hpp"
#include "core/store/capture_db.hpp"
#include "tests/fuzz/capture_input.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path& work_dir() {
  static const fs::path dir =
      fs::temp_directory_path() / ("kprof-fuzz-csv-db-" + std::to_string(::getpid()));
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const fs::path dir = work_dir();
  fs::remove_all(dir);
  kprof::fuzz::write_capture(std::string_view(reinterpret_cast<const char*>(data), size),
                             dir / "cap");
  kprof::exec::IngestRequest request;
  request.db = dir / "f.db";
  request.inputs = {(dir / "cap").string()};
  try {
    (void)kprof::exec::ingest_capture(request);
  } catch (const kprof::Error& e) {
    if (e.exit_code() != 2) std::abort();  // a runtime error: the store refused what ingest let by
    return 0;
  }
  kprof::store::CaptureDb db(request.db, kprof::store::OpenMode::read_only);
  db.check_intact();
  return 0;
}
