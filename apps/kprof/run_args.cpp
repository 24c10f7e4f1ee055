#include "apps/kprof/run_args.hpp"

#include "core/base/error.hpp"

namespace kprof::app {

std::optional<int64_t> RunFlags::run_id() const {
  return run ? std::optional<int64_t>(run) : std::nullopt;
}

void add_run_options(po::options_description& opts, RunFlags& flags) {
  opts.add_options()("db", po::value(&flags.db), "capture database")(
      "run", po::value(&flags.run), "run id (default: the latest run)");
}

po::positional_options_description run_positionals() {
  po::positional_options_description pos;
  pos.add("db", 1);
  return pos;
}

analysis::QuerySession open_run(const RunFlags& flags, const std::string& usage, bool bounded) {
  if (flags.db.empty()) throw Error::input("missing capture database", usage);
  analysis::SessionOptions so;
  so.run_id = flags.run_id();
  so.bounded = bounded;
  return analysis::QuerySession::open(flags.db, so);
}

}  // namespace kprof::app
