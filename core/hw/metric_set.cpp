#include "core/hw/metric_set.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <sstream>

#include "core/base/input_file.hpp"
#include "core/base/paths.hpp"
#include "core/base/text.hpp"

namespace kprof::hw {
namespace {

std::filesystem::path metrics_dir(const std::optional<std::filesystem::path>& dir) {
  return dir ? *dir : config_dir() / "metrics";
}

struct Source {
  std::string path;
  std::vector<std::string> lines;

  SourcePos pos(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    return m.line < 0 ? SourcePos{path, 0, 0} : SourcePos{path, m.line + 1, m.column + 1};
  }
  std::string line_at(const SourcePos& p) const {
    return p.line > 0 && p.line <= static_cast<int>(lines.size())
               ? lines[static_cast<size_t>(p.line - 1)]
               : std::string();
  }
  [[noreturn]] void fail(const SourcePos& p, std::string what, std::string hint) const {
    throw Error(ErrorKind::input, Diagnostic{p, std::move(what), std::move(hint), line_at(p)});
  }
};

const std::vector<std::string> k_flop_types = {"MFMA_F16", "MFMA_BF16", "MFMA_F32", "MFMA_F64",
                                               "MFMA_F8",  "VALU_F16",  "VALU_F32", "VALU_F64"};
const std::vector<std::string> k_levels = {"LDS", "L1", "L2", "HBM"};

// "flops MFMA_BF16" | "bytes LEVEL [read|write]".
Measure parse_measure(const Source& src, const YAML::Node& n, const std::string& text) {
  const auto words = split(text, ' ');
  Measure m;
  const auto bad = [&](const std::string& what, const std::vector<std::string>& choices) {
    src.fail(src.pos(n), "measures: " + what, "choose from " + join(choices, ", "));
  };
  if (words.size() == 2 && words[0] == "flops") {
    if (std::find(k_flop_types.begin(), k_flop_types.end(), words[1]) == k_flop_types.end())
      bad("unknown FLOP type '" + words[1] + "'", k_flop_types);
    m.quantity = Quantity::flops;
    m.flop_type = words[1];
  } else if ((words.size() == 2 || words.size() == 3) && words[0] == "bytes") {
    if (std::find(k_levels.begin(), k_levels.end(), words[1]) == k_levels.end())
      bad("unknown memory level '" + words[1] + "'", k_levels);
    if (words.size() == 3 && words[2] != "read" && words[2] != "write")
      bad("unknown direction '" + words[2] + "'", {"read", "write"});
    m.quantity = Quantity::bytes;
    m.level = words[1];
    m.direction = words.size() == 3 ? words[2] : "";
  } else {
    bad("'" + text + "' is not 'flops TYPE' or 'bytes LEVEL [read|write]'",
        {"flops TYPE", "bytes LEVEL", "bytes LEVEL read", "bytes LEVEL write"});
  }
  return m;
}

// Where an expression's text starts: after the opening quote when the scalar is
// quoted.
SourcePos expression_origin(const Source& src, const YAML::Node& n) {
  SourcePos origin = src.pos(n);
  const std::string l = src.line_at(origin);
  if (origin.col > 0 && static_cast<size_t>(origin.col - 1) < l.size() &&
      (l[static_cast<size_t>(origin.col - 1)] == '"' ||
       l[static_cast<size_t>(origin.col - 1)] == '\''))
    ++origin.col;
  return origin;
}

}  // namespace

namespace {

// One metric set file: its counters and metrics, each checked against `target`; every error
// names the file, line and column.
class SetParser {
 public:
  SetParser(const std::string& text, const std::string& source_path, const Target& target)
      : m_src{source_path, {}}, m_target(target) {
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) m_src.lines.push_back(l);
  }

  MetricSet parse(const std::string& text, const std::string& default_name) {
    YAML::Node root = load(text);
    const std::vector<std::string> keys{"name", "description", "counters", "metrics"};
    for (auto it = root.begin(); it != root.end(); ++it) {
      std::string k = text_of(it->first, "a key of the metric set");
      if (std::find(keys.begin(), keys.end(), k) == keys.end())
        m_src.fail(m_src.pos(it->first), "unknown key '" + k + "' in metric set",
                   did_you_mean(nearest_names(k, keys, 3, true)));
    }
    MetricSet set;
    set.source_path = m_src.path;
    set.name = root["name"] ? text_of(root["name"], "name") : default_name;
    if (root["description"]) set.description = text_of(root["description"], "description");
    const YAML::Node counters = root["counters"];
    if (!counters || !counters.IsSequence() || counters.size() == 0)
      m_src.fail(m_src.pos(counters ? counters : root),
                 "metric set '" + set.name + "' has no counters list",
                 "add 'counters: [SQ_WAVES, ...]'");
    for (const auto& c : counters) add_counter(set, text_of(c, "a counter name"), m_src.pos(c));
    if (const YAML::Node metrics = root["metrics"]) {
      if (!metrics.IsSequence() && !metrics.IsNull())
        m_src.fail(m_src.pos(metrics), "metrics: is not a list",
                   "write metrics: [{name: x, expression: \"a/b\"}, ...]");
      for (const auto& m : metrics) set.metrics.push_back(parse_metric(set, m));
    }
    return set;
  }

 private:
  YAML::Node load(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::ParserException& e) {
      m_src.fail(SourcePos{m_src.path, e.mark.line + 1, e.mark.column + 1}, "bad YAML: " + e.msg,
                 "fix the YAML syntax");
    }
    if (!root.IsMap())
      m_src.fail(SourcePos{m_src.path, 1, 1}, "metric set is not a YAML mapping",
                 "write name:, description:, counters:");
    return root;
  }

  // A list or mapping where a plain value belongs: yaml-cpp's as<std::string>()
  // throws YAML::TypedBadConversion for it (found by the metric_set fuzz
  // target).
  std::string text_of(const YAML::Node& n, const std::string& what) {
    if (!n.IsScalar())
      m_src.fail(m_src.pos(n), what + " is not a plain value",
                 "write " + what + " as a single word or a quoted string");
    return n.as<std::string>();
  }

  void add_counter(MetricSet& set, const std::string& name, const SourcePos& p) {
    if (m_target.kind_of(name) == CounterKind::unknown)
      m_src.fail(p, "unknown counter '" + name + "' for " + m_target.arch(),
                 did_you_mean(m_target.nearest(name)));
    if (std::find(set.counters.begin(), set.counters.end(), name) == set.counters.end()) {
      set.counters.push_back(name);
      set.counter_pos.push_back(p);
    }
  }

  MetricFormula parse_metric(MetricSet& set, const YAML::Node& m) {
    MetricFormula f;
    f.pos = m_src.pos(m);
    if (!m.IsMap() || !m["name"] || !m["expression"])
      m_src.fail(f.pos,
                 "a metric needs name: and expression:", "write {name: x, expression: \"a/b\"}");
    f.name = text_of(m["name"], "a metric's name");
    f.expression = text_of(m["expression"], "metric '" + f.name + "': expression");
    if (m["unit"]) f.unit = text_of(m["unit"], "metric '" + f.name + "': unit");
    if (m["description"])
      f.description = text_of(m["description"], "metric '" + f.name + "': description");
    if (m["measures"])
      f.measures = parse_measure(m_src, m["measures"],
                                 text_of(m["measures"], "metric '" + f.name + "': measures"));
    for (auto it = m.begin(); it != m.end(); ++it) {
      const std::vector<std::string> metric_keys{"name",        "expression", "unit",
                                                 "description", "measures",   "prefer"};
      const std::string k = text_of(it->first, "a key of metric '" + f.name + "'");
      if (std::find(metric_keys.begin(), metric_keys.end(), k) == metric_keys.end())
        m_src.fail(m_src.pos(it->first), "unknown key '" + k + "' in metric '" + f.name + "'",
                   did_you_mean(nearest_names(k, metric_keys, 3, true)));
    }
    if (m["prefer"]) parse_prefer(f, m["prefer"]);
    parse_expression(set, f, m["expression"]);
    return f;
  }

  // `prefer:` names only counters and constants of the target; it adds no counter to the set.
  void parse_prefer(MetricFormula& f, const YAML::Node& prefer) {
    f.prefer = text_of(prefer, "metric '" + f.name + "': prefer");
    const SourcePos at = expression_origin(m_src, prefer);
    f.prefer_expr = Expr::parse(f.prefer, at, m_src.line_at(at));
    std::vector<std::pair<std::string, int>> refs;
    f.prefer_expr->collect_names(refs);
    for (const auto& [name, offset] : refs) {
      if (m_target.constants().count(name) || m_target.kind_of(name) != CounterKind::unknown)
        continue;
      SourcePos p = at;
      p.col += offset;
      m_src.fail(p, "unknown counter '" + name + "' for " + m_target.arch(),
                 did_you_mean(m_target.nearest(name)));
    }
  }

  // The expression's counters join the set's (a derived counter with no events of its own does
  // not).
  void parse_expression(MetricSet& set, MetricFormula& f, const YAML::Node& expression) {
    const SourcePos origin = expression_origin(m_src, expression);
    const std::string l = m_src.line_at(origin);
    f.expr = Expr::parse(f.expression, origin, l);
    std::vector<std::pair<std::string, int>> refs;
    f.expr->collect_names(refs);
    for (const auto& [name, offset] : refs) {
      if (m_target.constants().count(name)) continue;
      if (const DerivedCounter* d = m_target.derived(name); d && m_target.events_of(name).empty())
        continue;
      SourcePos p = origin;
      p.col += offset;
      add_counter(set, name, p);
      if (std::find(f.counters.begin(), f.counters.end(), name) == f.counters.end())
        f.counters.push_back(name);
    }
  }

  Source m_src;
  const Target& m_target;
};

MetricSet parse_set(const std::string& text, const std::string& source_path,
                    const std::string& default_name, const Target& target) {
  return SetParser(text, source_path, target).parse(text, default_name);
}

}  // namespace

MetricSet parse_metric_set(std::string_view text, const std::string& source_path,
                           const std::string& default_name, const Target& target) {
  try {
    return parse_set(std::string(text), source_path, default_name, target);
  } catch (const YAML::Exception& e) {
    // Whatever yaml-cpp still throws for a shape the loader did not foresee is
    // the file's fault: a positioned input error, never an escaped exception.
    throw Error::input("bad metric set: " + e.msg, "see configs/metrics/memory.yaml for the layout",
                       SourcePos{source_path, e.mark.line + 1, e.mark.column + 1});
  }
}

MetricSet load_metric_set(const std::filesystem::path& file, const Target& target) {
  // A regular file of at most 16 MiB (a FIFO or /dev/zero is refused at once).
  const std::string text = read_input_file(file, "metric set", std::uint64_t{16} << 20);
  return parse_metric_set(text, file.string(), file.stem().string(), target);
}

std::vector<std::string> metric_set_names(const std::optional<std::filesystem::path>& dir) {
  std::vector<std::string> names;
  std::filesystem::path d = metrics_dir(dir);
  if (std::filesystem::is_directory(d))
    for (const auto& e : std::filesystem::directory_iterator(d))
      if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

MetricSet load_metric_set_named(std::string_view name, const Target& target,
                                const std::optional<std::filesystem::path>& dir) {
  std::filesystem::path file = metrics_dir(dir) / (std::string(name) + ".yaml");
  if (!std::filesystem::exists(file)) {
    auto names = metric_set_names(dir);
    throw Error::input(
        "unknown metric set '" + std::string(name) + "'",
        did_you_mean(nearest_names(name, names, 3, true)) + " sets: " + join(names, ", "));
  }
  return load_metric_set(file, target);
}

}  // namespace kprof::hw
