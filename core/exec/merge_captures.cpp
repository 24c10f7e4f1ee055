#include "core/exec/merge_captures.hpp"

#include "core/base/error.hpp"
#include "core/exec/run_lock.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

store::MergeReport merge_into(const fs::path& db, const std::vector<fs::path>& sources) {
  if (sources.empty()) {
    throw Error::input("nothing to merge into '" + db.string() + "'",
                       "name the databases to merge after it: kprof merge DB OTHER.db...");
  }
  for (const auto& s : sources) {
    std::error_code ec;
    if (!fs::is_regular_file(s, ec)) {
      throw Error::input("'" + s.string() + "' is not a file",
                         "name capture databases written by `kprof run` on each node");
    }
  }
  std::error_code ec;
  const bool existed = fs::exists(db, ec);
  try {
    RunLock lock(db);  // declared before the connection it guards (run_lock.hpp)
    store::CaptureDb target(db);
    return store::merge_captures(target, sources);
  } catch (...) {
    if (!existed) {
      for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(db.string() + suffix, ec);
    }
    throw;
  }
}

}  // namespace kprof::exec
