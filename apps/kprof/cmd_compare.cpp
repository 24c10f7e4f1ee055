// `kprof compare A[:RUN] B[:RUN] [--force] [--format F]`: two runs side by side per family and
// variant, with the launch-count changes explained in steps × layers (core/report/compare.hpp).
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/table_args.hpp"
#include "core/analysis/views/table.hpp"
#include "core/base/error.hpp"
#include "core/base/table.hpp"
#include "core/report/run_ref.hpp"
#include "core/store/database_path.hpp"

namespace {

namespace po = kprof::app::po;
namespace an = kprof::analysis;

int cmd_compare(const kprof::app::Args& args) {
  po::options_description opts("options");
  std::string a_text, b_text;
  kprof::app::TableFlags table;
  opts.add_options()("a", po::value(&a_text), "run A: DB or DB:RUN (default run: the latest)")(
      "b", po::value(&b_text), "run B: DB or DB:RUN")("force", po::bool_switch(),
                                                      "compare runs of different targets anyway");
  kprof::app::add_table_options(opts, table);
  po::positional_options_description pos;
  pos.add("a", 1).add("b", 1);
  auto vm = kprof::app::parse_args(
      "compare", "A[:RUN] B[:RUN] [--force] [--format F]", args, opts, pos,
      "A and B may be the same database (two runs) or two databases. Every family of either run\n"
      "is a row; launch-count changes are explained as steps x launches per step where both runs\n"
      "have steps. The workloads are compared first (target, simulated or measured, steps,\n"
      "layers, runbook, seed); runs of different targets are refused unless --force.\n"
      "\nexamples:\n"
      "  kprof compare out/yesterday.db out/today.db\n"
      "  kprof compare out/q.db:1 out/q.db:2 --format csv > delta.csv");
  if (!vm) return 0;
  if (a_text.empty() || b_text.empty())
    throw kprof::Error::input("compare needs two runs", "usage: kprof compare A[:RUN] B[:RUN]");
  const an::Format f = kprof::app::table_format(table);
  const an::PrintOptions po_ = kprof::app::print_options(table);
  kprof::report::CompareOptions co;
  co.force = (*vm)["force"].as<bool>();
  kprof::report::RefComparison refs;
  kprof::store::with_database_errors(
      {kprof::report::parse_run_ref(a_text).db, kprof::report::parse_run_ref(b_text).db},
      [&] { refs = kprof::report::compare_run_refs(a_text, b_text, co); });
  for (const auto& j : refs.joins) std::cerr << kprof::note_line(j, STDERR_FILENO) << "\n";
  const auto& c = refs.comparison;
  if (f == an::Format::table) {
    for (const auto& line : c.workload) std::cout << line << "\n";
    std::cout << "\n";
    an::print(std::cout, c.families, f, po_);
    std::cout << "\n";
    an::print(std::cout, c.variants, f, po_);
    if (c.ranks) {
      std::cout << "\n";
      an::print(std::cout, *c.ranks, f, po_);
    }
  } else if (f == an::Format::json) {
    std::vector<std::pair<std::string, const an::Table*>> tables = {{"families", &c.families},
                                                                    {"variants", &c.variants}};
    if (c.ranks) tables.emplace_back("ranks", &*c.ranks);
    an::print_json_document(std::cout, c.workload, tables);
  } else {
    for (const auto& line : c.workload) std::cerr << kprof::note_line(line, STDERR_FILENO) << "\n";
    an::print(std::cout, c.families, f, po_);
    an::print(std::cout, c.variants, f, po_);
    if (c.ranks) an::print(std::cout, *c.ranks, f, po_);
  }
  return 0;
}

}  // namespace

KPROF_COMMAND("compare", "compare two runs per family and variant, launch changes as steps",
              cmd_compare);
