// kprof query DB <view> [FAMILY] | kprof query DB --sql "SELECT ...": the analysis' named views.
// Parses flags (query_args.hpp), calls the query use case (core/analysis/views/query.hpp: checks
// the flags into a request, joins counter passes to the trace first when a pass has no stored
// mapping yet, and says so), prints the table.
#include <unistd.h>

#include <iostream>

#include "apps/kprof/command.hpp"
#include "apps/kprof/query_args.hpp"
#include "apps/kprof/table_args.hpp"
#include "core/analysis/views/query.hpp"
#include "core/base/table.hpp"
#include "core/store/database_path.hpp"

namespace {

namespace an = kprof::analysis;
namespace po = kprof::app::po;

int cmd_query(const kprof::app::Args& args) {
  po::options_description opts("options");
  an::QueryArgs q;
  kprof::app::TableFlags table;
  std::string sql;
  kprof::app::add_query_options(opts, q, sql, table);
  auto vm = kprof::app::parse_args(
      "query", "kprof query DB <view> [FAMILY] [options]  |  kprof query DB --sql \"SELECT ...\"",
      args, opts, kprof::app::query_positionals(), kprof::app::k_query_help);
  if (!vm) return 0;
  const an::Format f = kprof::app::table_format(table);
  an::PrintOptions print_options = kprof::app::print_options(table);
  if (vm->count("sql")) q.sql = sql;
  print_options.exact_columns = q.sql.has_value();
  q.structured = f != an::Format::table;  // explain: one row per term, not prose
  an::QueryResult result;
  kprof::store::with_database_errors({q.db}, [&] { result = an::run_query(an::query_request(q)); });
  for (const auto& j : result.joins) std::cerr << kprof::note_line(j, STDERR_FILENO) << "\n";
  for (const auto& n : result.notes) std::cerr << "kprof: note: " << n << "\n";
  an::print(std::cout, result.table, f, print_options);
  return 0;
}

}  // namespace

KPROF_COMMAND("query", "explain a capture: families, variants, phases, counters, roofline, SQL",
              cmd_query);
