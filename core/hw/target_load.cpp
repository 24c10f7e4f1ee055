// Loading and validating configs/hw/<arch>.yaml. Every entry keeps its file:line:col so a broken
// hardware file points at the offending line.
#include <yaml-cpp/yaml.h>

#include <set>
#include <sstream>

#include "core/base/input_file.hpp"
#include "core/base/paths.hpp"
#include "core/base/text.hpp"
#include "core/hw/expr.hpp"
#include "core/hw/target_impl.hpp"

namespace kprof::hw {
namespace {

class Loader {
 public:
  Loader(std::string path, std::string text) : m_path(std::move(path)), m_text(std::move(text)) {
    std::istringstream in(m_text);
    for (std::string l; std::getline(in, l);) m_lines.push_back(l);
  }

  SourcePos pos(const YAML::Node& n) const {
    const YAML::Mark m = n.Mark();
    if (m.line < 0) return SourcePos{m_path, 0, 0};
    return SourcePos{m_path, m.line + 1, m.column + 1};
  }

  std::string line_at(const SourcePos& p) const {
    if (p.line <= 0 || p.line > static_cast<int>(m_lines.size())) return {};
    return m_lines[static_cast<size_t>(p.line - 1)];
  }

  [[noreturn]] void fail(const YAML::Node& n, const std::string& what,
                         const std::string& hint) const {
    fail_at(pos(n), what, hint);
  }
  [[noreturn]] void fail_at(const SourcePos& p, const std::string& what,
                            const std::string& hint) const {
    throw Error(ErrorKind::input, Diagnostic{p, what, hint, line_at(p)});
  }

  void check_keys(const YAML::Node& map, const std::vector<std::string>& allowed,
                  const std::string& what) const {
    // A list item or scalar where a mapping belongs: its iterators have no keys, and yaml-cpp
    // throws YAML::InvalidNode from as<>() (found by the hw fuzz target).
    if (!map.IsMap()) fail(map, what + " must be a mapping", "write {key: value, ...}");
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar())
        fail(it->first, "a key of " + what + " is not a plain name", "write name: value");
      std::string k = it->first.as<std::string>();
      bool ok = false;
      for (const auto& a : allowed) ok = ok || a == k;
      if (!ok) {
        auto near = nearest_names(k, allowed, 3, true);
        fail(it->first, "unknown key '" + k + "' in " + what,
             did_you_mean(near) + " allowed: " + join(allowed, ", "));
      }
    }
  }

  const YAML::Node need(const YAML::Node& map, const std::string& key,
                        const std::string& what) const {
    YAML::Node v = map[key];
    if (!v) fail(map, what + " has no '" + key + "'", "add '" + key + ":'");
    return v;
  }

  std::string str(const YAML::Node& map, const std::string& key, const std::string& what) const {
    YAML::Node v = need(map, key, what);
    if (!v.IsScalar()) fail(v, "'" + key + "' of " + what + " must be a string", "write a scalar");
    return v.as<std::string>();
  }

  template <typename T>
  T num(const YAML::Node& map, const std::string& key, const std::string& what) const {
    YAML::Node v = need(map, key, what);
    try {
      return v.as<T>();
    } catch (const YAML::Exception&) {
      fail(v,
           "'" + key + "' of " + what + " must be a number, not '" +
               (v.IsScalar() ? v.as<std::string>() : std::string("a collection")) + "'",
           "write a plain number");
    }
  }

  // Where an expression's first character sits: after the opening quote for quoted scalars.
  SourcePos expr_origin(const YAML::Node& n) const {
    SourcePos p = pos(n);
    std::string l = line_at(p);
    if (p.col > 0 && static_cast<size_t>(p.col - 1) < l.size()) {
      char c = l[static_cast<size_t>(p.col - 1)];
      if (c == '"' || c == '\'') ++p.col;
    }
    return p;
  }

  detail::TargetData load() {
    YAML::Node root;
    try {
      root = YAML::Load(m_text);
    } catch (const YAML::ParserException& e) {
      fail_at(SourcePos{m_path, e.mark.line + 1, e.mark.column + 1}, "bad YAML: " + e.msg,
              "fix the YAML syntax");
    }
    if (!root.IsMap())
      fail_at(SourcePos{m_path, 1, 1}, "hardware file is not a YAML mapping",
              "see configs/hw/gfx942.yaml for the layout");
    check_keys(
        root,
        {"arch", "product", "blocks", "accumulate", "constants", "peaks", "counters", "derived"},
        "the hardware file");
    detail::TargetData t;
    t.path = m_path;
    t.arch = str(root, "arch", "the hardware file");
    if (root["product"]) t.product = root["product"].as<std::string>();
    load_blocks(need(root, "blocks", "the hardware file"), t);
    if (root["constants"]) load_constants(root["constants"], t);
    if (root["peaks"]) load_peaks(root["peaks"], t);
    load_counters(need(root, "counters", "the hardware file"), t);
    if (root["accumulate"]) load_accumulate(root["accumulate"], t);
    if (root["derived"]) load_derived(root["derived"], t);
    return t;
  }

  void load_blocks(const YAML::Node& list, detail::TargetData& t) const {
    if (!list.IsSequence())
      fail(list, "'blocks' must be a list", "write '- {name: SQ, counters_per_pass: 8}'");
    for (const auto& n : list) {
      check_keys(n,
                 {"name", "counters_per_pass", "instances", "values_per_dispatch", "description"},
                 "a block");
      Block b;
      b.name = str(n, "name", "a block");
      b.counters_per_pass = num<int>(n, "counters_per_pass", "block " + b.name);
      if (b.counters_per_pass <= 0)
        fail(n["counters_per_pass"], "block " + b.name + " has counters_per_pass <= 0",
             "use the hardware limit");
      b.instances = n["instances"] ? num<int>(n, "instances", "block " + b.name) : 1;
      b.values_per_dispatch =
          n["values_per_dispatch"] ? num<int>(n, "values_per_dispatch", "block " + b.name) : 1;
      if (b.instances <= 0 || b.values_per_dispatch <= 0)
        fail(n, "block " + b.name + " needs positive instance counts", "use 1 or more");
      if (n["description"]) b.description = n["description"].as<std::string>();
      b.pos = pos(n);
      if (t.block_index.count(b.name))
        fail(n, "block '" + b.name + "' defined twice",
             "first defined at " + t.blocks[t.block_index[b.name]].pos.str());
      t.block_index[b.name] = t.blocks.size();
      t.blocks.push_back(std::move(b));
    }
  }

  void load_constants(const YAML::Node& map, detail::TargetData& t) const {
    if (!map.IsMap()) fail(map, "'constants' must be a mapping", "write 'simd_count: 1216'");
    for (auto it = map.begin(); it != map.end(); ++it) {
      std::string k = it->first.as<std::string>();
      try {
        t.constants[k] = it->second.as<double>();
      } catch (const YAML::Exception&) {
        fail(it->second, "constant '" + k + "' is not a number", "write a plain number");
      }
    }
  }

  void load_peaks(const YAML::Node& map, detail::TargetData& t) const {
    check_keys(map,
               {"hbm_bytes_per_s", "l2_bytes_per_s", "matrix_bf16_flops", "matrix_fp8_flops",
                "matrix_fp32_flops", "vector_fp64_flops", "vector_fp32_flops", "cus", "xcds",
                "clock_mhz", "wave_size"},
               "peaks");
    Peaks& p = t.peaks;
    auto get = [&](const char* k, auto& field) {
      if (map[k]) field = num<std::remove_reference_t<decltype(field)>>(map, k, "peaks");
    };
    get("hbm_bytes_per_s", p.hbm_bytes_per_s);
    get("l2_bytes_per_s", p.l2_bytes_per_s);
    get("matrix_bf16_flops", p.matrix_bf16_flops);
    get("matrix_fp8_flops", p.matrix_fp8_flops);
    get("matrix_fp32_flops", p.matrix_fp32_flops);
    get("vector_fp64_flops", p.vector_fp64_flops);
    get("vector_fp32_flops", p.vector_fp32_flops);
    get("cus", p.cus);
    get("xcds", p.xcds);
    get("clock_mhz", p.clock_mhz);
    get("wave_size", p.wave_size);
  }

  std::vector<std::string> block_names(const detail::TargetData& t) const {
    std::vector<std::string> v;
    for (const auto& b : t.blocks) v.push_back(b.name);
    return v;
  }

  void check_new_name(const YAML::Node& n, const std::string& name,
                      const detail::TargetData& t) const {
    auto b = t.base.find(name);
    if (b != t.base.end())
      fail(n, "counter '" + name + "' defined twice", "first defined at " + b->second.pos.str());
    auto d = t.derived.find(name);
    if (d != t.derived.end())
      fail(n, "counter '" + name + "' defined twice", "first defined at " + d->second.pos.str());
  }

  void load_counters(const YAML::Node& list, detail::TargetData& t) const {
    if (!list.IsSequence())
      fail(list, "'counters' must be a list", "write '- {name: X, block: SQ, event: 4}'");
    for (const auto& n : list) {
      check_keys(n, {"name", "block", "event", "description", "source"}, "a base counter");
      BaseCounter c;
      c.name = str(n, "name", "a base counter");
      c.block = str(n, "block", "counter " + c.name);
      if (!t.block_index.count(c.block))
        fail(n["block"], "counter " + c.name + " names unknown block '" + c.block + "'",
             did_you_mean(nearest_names(c.block, block_names(t), 3, true)));
      if (n["event"]) c.event_id = num<int>(n, "event", "counter " + c.name);
      if (n["description"]) c.description = n["description"].as<std::string>();
      c.pos = pos(n);
      check_new_name(n, c.name, t);
      t.base.emplace(c.name, std::move(c));
    }
  }

  void load_accumulate(const YAML::Node& map, detail::TargetData& t) const {
    check_keys(map, {"per_pass", "flags", "counters"}, "accumulate");
    t.accumulate_per_pass = num<int>(map, "per_pass", "accumulate");
    for (const auto& f : need(map, "flags", "accumulate"))
      t.accumulate_flags.insert(f.as<std::string>());
    for (const auto& c : need(map, "counters", "accumulate")) {
      std::string name = c.as<std::string>();
      if (!t.base.count(name))
        fail(c, "accumulate lists unknown base counter '" + name + "'",
             did_you_mean(nearest_names(name, t.base_names(), 3, true)));
      t.accumulate_counters.push_back(name);
    }
  }

  void load_derived(const YAML::Node& list, detail::TargetData& t) const {
    if (!list.IsSequence())
      fail(list, "'derived' must be a list", "write '- {name: X, expression: ...}'");
    for (const auto& n : list) {
      check_keys(n, {"name", "expression", "description", "source"}, "a derived counter");
      DerivedCounter d;
      d.name = str(n, "name", "a derived counter");
      d.expression = str(n, "expression", "counter " + d.name);
      if (n["description"]) d.description = n["description"].as<std::string>();
      d.pos = pos(n);
      check_new_name(n, d.name, t);
      const YAML::Node e = n["expression"];
      SourcePos origin = expr_origin(e);
      d.expr = Expr::parse(d.expression, origin, line_at(origin));
      t.derived_origin[d.name] = origin;
      t.derived.emplace(d.name, std::move(d));
    }
    // Names are checked after all entries are read: a derived counter may use one defined later.
    for (const auto& [name, d] : t.derived) check_refs(*d.expr, t, t.derived_origin.at(name));
  }

  void check_refs(const Expr& e, const detail::TargetData& t, const SourcePos& origin) const {
    SourcePos p = origin;
    p.col += e.offset;
    if (e.kind == ExprKind::name) {
      if (!t.base.count(e.name) && !t.derived.count(e.name) && !t.constants.count(e.name)) {
        std::vector<std::string> all = t.base_names();
        for (const auto& [k, v] : t.derived) all.push_back(k);
        for (const auto& [k, v] : t.constants) all.push_back(k);
        fail_at(p, "expression names unknown counter '" + e.name + "'",
                did_you_mean(nearest_names(e.name, all, 3, true)));
      }
    } else if (e.kind == ExprKind::accumulate) {
      bool listed = false;
      for (const auto& c : t.accumulate_counters) listed = listed || c == e.name;
      if (!t.base.count(e.name))
        fail_at(p, "accumulate() of unknown base counter '" + e.name + "'",
                did_you_mean(nearest_names(e.name, t.base_names(), 3, true)));
      if (!listed)
        fail_at(p, "counter '" + e.name + "' cannot be accumulated",
                "list it under accumulate.counters (only SQ LEVEL counters can be)");
      if (!e.mode.empty() && !t.accumulate_flags.count(e.mode))
        fail_at(p, "accumulate flag '" + e.mode + "' is not in accumulate.flags",
                "use HIGH_RES or LOW_RES");
    }
    for (const auto& a : e.args) check_refs(*a, t, origin);
  }

 private:
  std::string m_path;
  std::string m_text;
  std::vector<std::string> m_lines;
};

}  // namespace

Target Target::load(const std::filesystem::path& yaml_file) {
  return parse(read_input_file(yaml_file, "hardware file", k_max_file_bytes), yaml_file.string());
}

Target Target::parse(std::string_view yaml_text, const std::string& source_name) {
  try {
    return from_data(Loader(source_name, std::string(yaml_text)).load());
  } catch (const YAML::Exception& e) {
    // Whatever yaml-cpp still throws for a shape the loader did not foresee is the file's fault:
    // a positioned input error, never an escaped exception.
    throw Error::input("bad hardware file: " + e.msg, "see configs/hw/gfx942.yaml for the layout",
                       SourcePos{source_name, e.mark.line + 1, e.mark.column + 1});
  }
}

Target Target::load_arch(std::string_view arch) {
  std::filesystem::path dir = config_dir() / "hw";
  std::filesystem::path file = dir / (std::string(arch) + ".yaml");
  if (!std::filesystem::exists(file)) {
    std::vector<std::string> known;
    if (std::filesystem::is_directory(dir))
      for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".yaml") known.push_back(e.path().stem().string());
    std::sort(known.begin(), known.end());
    throw Error::input("unknown target architecture '" + std::string(arch) + "'",
                       "known: " + join(known, ", ") + " (files in " + dir.string() + ")");
  }
  return load(file);
}

}  // namespace kprof::hw
