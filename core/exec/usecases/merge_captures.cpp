#include "core/exec/usecases/merge_captures.hpp"

#include "core/base/error.hpp"
#include "core/exec/node/run_lock.hpp"

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
  RunLock lock(db);  // declared before the connection it guards (run_lock.hpp)
  try {
    store::CaptureDb target(db);
    return store::merge_captures(target, sources);
  } catch (...) {
    lock.remove_created_file();  // only a file this call created, still under its name
    throw;
  }
}

}  // namespace kprof::exec
