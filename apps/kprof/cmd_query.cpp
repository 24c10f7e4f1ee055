// kprof query DB <view> [FAMILY] | kprof query DB --sql "SELECT ...": the analysis' named views.
// Joins counter passes to the trace first when a pass has no stored mapping yet (and says so).
#include <algorithm>
#include <iostream>

#include "apps/kprof/command.hpp"
#include "core/analysis/analysis_db.hpp"
#include "core/analysis/views.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/runbook/runbook.hpp"

namespace {

namespace an = kprof::analysis;
namespace po = kprof::app::po;

// The run's own runbook (its text is copied into the database by `kprof run`) supplies family
// rules, tried before configs/families, and the layers/output_tokens hints, which are only
// checked against what the data shows. Runs made by `kprof ingest` have no runbook.
struct RunbookAnalysis {
  std::vector<an::FamilyRule> rules;
  std::optional<int> layers, output_tokens;
};

RunbookAnalysis runbook_analysis(const kprof::store::RunInfo& run) {
  RunbookAnalysis out;
  if (run.runbook_text.empty()) return out;
  try {
    const auto rb = kprof::runbook::parse_runbook(run.runbook_text, run.runbook_path);
    for (const auto& r : rb.analysis.families.value) {
      out.rules.push_back(an::FamilyRule{an::FamilyRule::Kind::family, "", r.match.value,
                                         r.family.value, r.match.pos});
    }
    out.layers = rb.analysis.layers.value;
    out.output_tokens = rb.analysis.output_tokens.value;
  } catch (const kprof::Error& e) {
    // The runbook was valid when the run was made; on another machine its paths may not be.
    std::cerr << "kprof: note: the run's runbook does not load here, so its family rules and hints "
                 "are not used: "
              << e.diagnostics().front().line() << "\n";
  }
  return out;
}

int cmd_query(const kprof::app::Args& args) {
  po::options_description opts("options");
  std::string db_path, view, family_arg, sql, format = "table", family, phase;
  int64_t limit = 0, run = 0, layers = 0, tokens = 0;
  opts.add_options()("db", po::value(&db_path), "capture database")(
      "view", po::value(&view),
      "top | families | variants | phases | explain | counters | metrics | roofline | passes")(
      "family-arg", po::value(&family_arg), "a family (explain FAMILY)")(
      "sql", po::value(&sql), "run a SELECT on a read-only connection instead of a view")(
      "format", po::value(&format), "table | csv | json")("family", po::value(&family),
                                                          "only this kernel family")(
      "phase", po::value(&phase), "only this phase: prefill | decode | tail | other")(
      "limit", po::value(&limit), "at most this many rows")("run", po::value(&run),
                                                            "run id (default: the latest run)")(
      "expect-layers", po::value(&layers), "check: layers per step the model has (runbook hint)")(
      "expect-steps", po::value(&tokens), "check: steps (output tokens) expected (runbook hint)");
  po::positional_options_description pos;
  pos.add("db", 1).add("view", 1).add("family-arg", 1);
  auto vm = kprof::app::parse_args(
      "query", "kprof query DB <view> [FAMILY] [options]  |  kprof query DB --sql \"SELECT ...\"",
      args, opts, pos);
  if (!vm) return 0;
  if (db_path.empty()) {
    throw kprof::Error::input("missing capture database", "usage: kprof query DB <view>");
  }
  const an::Format f = an::parse_format(format);
  if (!family_arg.empty()) {
    if (!family.empty() && family != family_arg)
      throw kprof::Error::input(
          "two families given ('" + family_arg + "' and --family '" + family + "')", "give one");
    family = family_arg;
  }
  const std::optional<int64_t> run_id = run ? std::optional<int64_t>(run) : std::nullopt;

  if (!sql.empty()) {
    if (!view.empty())
      throw kprof::Error::input("give a view or --sql, not both", "see 'kprof query --help'");
    kprof::store::CaptureDb db(db_path, kprof::store::OpenMode::read_only);
    auto info = run_id ? db.find_run(*run_id) : db.find_last_run();
    an::print(std::cout, an::sql_table(db, sql, info && info->simulated, info ? info->id : 0), f);
    return 0;
  }
  if (view.empty()) {
    throw kprof::Error::input("missing view",
                              "views: " + kprof::join(an::view_names(), ", ") + ", or --sql");
  }
  if (std::find(an::view_names().begin(), an::view_names().end(), view) == an::view_names().end()) {
    throw kprof::Error::input(
        "unknown view '" + view + "'",
        kprof::did_you_mean(kprof::nearest_names(view, an::view_names(), 1, true)) +
            " (views: " + kprof::join(an::view_names(), ", ") + ")");
  }
  kprof::store::CaptureDb db(db_path, kprof::store::OpenMode::read_only);
  an::Capture cap = an::load_capture(db, run_id);
  if (!an::joins_current(db, cap)) {
    // The join mapping is stored once; compute what is missing with a write connection.
    {
      kprof::store::CaptureDb rw(db_path, kprof::store::OpenMode::read_write);
      for (const auto& j : an::ensure_joins(rw, cap)) {
        std::cerr << "kprof: joined pass " << j.ordinal << " to the trace: " << j.matched << " of "
                  << j.counter_dispatches << " dispatches matched ("
                  << static_cast<double>(static_cast<int64_t>(j.matched_share * 10000)) / 100
                  << "%)" << (j.filtered ? ", kernel-filtered pass" : "") << "\n";
      }
    }
  }
  const RunbookAnalysis from_runbook = runbook_analysis(cap.run);
  an::FamilyRules rules = an::FamilyRules::load_default();
  rules.prepend(from_runbook.rules);
  an::QueryContext q(db, std::move(cap), std::move(rules));
  an::ViewOptions o;
  o.family = family;
  o.phase = phase;
  o.limit = limit > 0 ? static_cast<size_t>(limit) : 0;
  o.hints.layers = from_runbook.layers;
  o.hints.output_tokens = from_runbook.output_tokens;
  if (layers) o.hints.layers = static_cast<int>(layers);  // flags override the runbook's hints
  if (tokens) o.hints.output_tokens = static_cast<int>(tokens);
  an::print(std::cout, q.view(view, o), f);
  return 0;
}

}  // namespace

KPROF_COMMAND("query", "explain a capture: families, variants, phases, counters, roofline, SQL",
              cmd_query);
