// `kprof merge DB OTHER.db...`: merges the capture databases of one run made on several nodes into
// DB (core/store/merge.hpp says what is merged, kept once, or refused).
#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/base/error.hpp"
#include "core/exec/usecases/merge_captures.hpp"

namespace {

int cmd_merge(const kprof::app::Args& args) {
  namespace po = kprof::app::po;
  po::options_description opts("options");
  opts.add_options()("db", po::value<std::string>(),
                     "the capture database to merge into (created when missing)")(
      "other", po::value<std::vector<std::string>>(), "capture databases of the same run");
  po::positional_options_description pos;
  pos.add("db", 1).add("other", -1);
  auto vm = kprof::app::parse_args(
      "merge", "DB OTHER.db...", args, opts, pos,
      "examples:\n  kprof merge out/q.db node1/q.db node2/q.db\n      passes done on node1 or "
      "node2 are added to out/q.db; a pass done in two of them with different rows is refused\n"
      "\nAll or nothing: a refused merge leaves DB as it was.");
  if (!vm) return 0;
  if (!vm->count("db") || !vm->count("other")) {
    throw kprof::Error::input("kprof merge needs a database and at least one to merge into it",
                              "write 'kprof merge DB OTHER.db...'");
  }
  std::vector<std::filesystem::path> others;
  for (const auto& o : (*vm)["other"].as<std::vector<std::string>>()) others.emplace_back(o);
  const auto r = kprof::exec::merge_into((*vm)["db"].as<std::string>(), others);
  int added = 0, same = 0;
  for (const auto& p : r.passes) {
    std::cout << p.source.string() << ": pass " << p.ordinal << " " << to_string(p.outcome);
    if (p.outcome == kprof::store::MergeOutcome::added) std::cout << " (" << p.rows << " rows)";
    std::cout << "\n";
    added += p.outcome == kprof::store::MergeOutcome::added;
    same += p.outcome == kprof::store::MergeOutcome::same;
  }
  std::cout << "run " << r.run_id << (r.run_created ? " (new)" : "") << ": " << added
            << " passes added, " << same << " already there; " << r.passes_done << "/"
            << r.passes_total << " passes done, run " << to_string(r.status) << "\n";
  return 0;
}

}  // namespace

KPROF_COMMAND("merge", "merge capture databases of one run made on several nodes", cmd_merge);
