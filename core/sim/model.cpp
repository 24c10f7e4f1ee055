#include "core/sim/model.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cmath>

#include "core/base/error.hpp"
#include "core/base/paths.hpp"

namespace kprof::sim {

namespace {

SourcePos pos_of(const std::string& file, const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return SourcePos{file, m.line + 1, m.column + 1};
}

// Recursive-descent evaluator for the arithmetic strings of model files.
class Arith {
 public:
  explicit Arith(const std::string& s) : m_s(s) {}
  double parse() {
    const double v = sum();
    skip();
    if (m_i != m_s.size()) throw std::invalid_argument("unexpected '" + m_s.substr(m_i, 1) + "'");
    return v;
  }

 private:
  void skip() {
    while (m_i < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_i]))) ++m_i;
  }
  double sum() {
    double v = product();
    for (;;) {
      skip();
      if (m_i < m_s.size() && (m_s[m_i] == '+' || m_s[m_i] == '-')) {
        const char op = m_s[m_i++];
        const double r = product();
        v = op == '+' ? v + r : v - r;
      } else {
        return v;
      }
    }
  }
  double product() {
    double v = atom();
    for (;;) {
      skip();
      if (m_i < m_s.size() && (m_s[m_i] == '*' || m_s[m_i] == '/')) {
        const char op = m_s[m_i++];
        const double r = atom();
        if (op == '/' && r == 0) throw std::invalid_argument("division by zero");
        v = op == '*' ? v * r : v / r;
      } else {
        return v;
      }
    }
  }
  double atom() {
    skip();
    if (m_i < m_s.size() && m_s[m_i] == '(') {
      ++m_i;
      const double v = sum();
      skip();
      if (m_i >= m_s.size() || m_s[m_i] != ')') throw std::invalid_argument("missing ')'");
      ++m_i;
      return v;
    }
    if (m_i < m_s.size() && m_s[m_i] == '-') {
      ++m_i;
      return -atom();
    }
    size_t used = 0;
    const double v = std::stod(m_s.substr(m_i), &used);
    m_i += used;
    return v;
  }
  const std::string& m_s;
  size_t m_i = 0;
};

class Loader {
 public:
  Loader(std::string file) : m_file(std::move(file)) {}

  Model load() {
    YAML::Node root;
    try {
      root = YAML::LoadFile(m_file);
    } catch (const YAML::Exception& e) {
      throw Error::input("cannot read workload model: " + std::string(e.what()),
                         "fix the YAML syntax",
                         SourcePos{m_file, e.mark.line + 1, e.mark.column + 1});
    }
    Model m;
    m.source_path = m_file;
    m.name = text(root, "name", "");
    m.arch = text(root, "arch", "gfx942");
    m.clock_mhz = number(root, "clock_mhz", 2100);
    m.num_xcd = static_cast<int>(number(root, "num_xcd", 8));
    if (const auto r = root["reruns"]) {
      m.duration_jitter = number(r, "duration_jitter", m.duration_jitter);
      m.missing_kernel_probability = number(r, "missing_kernel_probability", 0);
      m.extra_kernel_probability = number(r, "extra_kernel_probability", 0);
      m.reorder_probability = number(r, "reorder_probability", m.reorder_probability);
      m.correlation_skip_probability =
          number(r, "correlation_skip_probability", m.correlation_skip_probability);
    }
    if (const auto c = root["counter_passes"]) {
      m.counter_stretch = number(c, "stretch", m.counter_stretch);
      m.counter_overhead_ns = number(c, "overhead_ns", m.counter_overhead_ns);
      m.counter_gap_ns = number(c, "gap_ns", m.counter_gap_ns);
    }
    m.startup_ns = number(root, "startup_ns", m.startup_ns);
    m.load_ns = number(root, "load_ns", m.load_ns);
    load_system(root, m);
    if (const auto r = root["ranks"]) load_ranks(r, m);
    const auto kernels = require(root, "kernels");
    uint64_t next_id = static_cast<uint64_t>(number(root, "first_kernel_id", 1));
    for (const auto& k : kernels) {
      KernelSymbol s;
      s.key = text(k, "key", "");
      if (s.key.empty()) fail(k, "kernel without 'key'", "give every kernel a short key");
      if (m_symbol_index.count(s.key))
        fail(k, "kernel key '" + s.key + "' defined twice", "rename one");
      s.name = text(k, "name", "");
      if (s.name.empty())
        fail(k, "kernel '" + s.key + "' has no 'name'", "add the name rocprofv3 prints");
      s.truncated = text(k, "truncated", truncate_kernel_name(s.name));
      s.kernel_id = static_cast<uint64_t>(number(k, "kernel_id", static_cast<double>(next_id)));
      next_id = s.kernel_id + 1;
      s.arch_vgpr = static_cast<int>(number(k, "vgpr", 0));
      s.accum_vgpr = static_cast<int>(number(k, "accum_vgpr", 0));
      s.sgpr = static_cast<int>(number(k, "sgpr", 0));
      s.lds = static_cast<uint32_t>(number(k, "lds", 0));
      s.scratch = static_cast<uint32_t>(number(k, "scratch", 0));
      s.workgroup = dims(k, "workgroup", {64, 1, 1});
      s.mfma = text(k, "mfma", "");
      s.l2_hit = number(k, "l2_hit", 0.5);
      s.collective = k["collective"] && k["collective"].as<bool>();
      m_symbol_index[s.key] = static_cast<int>(m.symbols.size());
      m.symbols.push_back(s);
    }
    m_launch_gap = number(root, "launch_gap_ns", 1500);
    expand(require(root, "sequence"), true, m.dispatches);
    if (const auto p = root["parent_process_sequence"]) expand(p, true, m.parent_dispatches);
    if (m.dispatches.empty()) fail(root, "workload model has no dispatches", "fill 'sequence'");
    return m;
  }

 private:
  [[noreturn]] void fail(const YAML::Node& n, const std::string& what, const std::string& hint) {
    throw Error::input(what, hint, pos_of(m_file, n));
  }
  YAML::Node require(const YAML::Node& n, const char* key) {
    if (!n[key]) fail(n, std::string("missing '") + key + "'", "see configs/sim/README.md");
    return n[key];
  }
  std::string text(const YAML::Node& n, const char* key, const std::string& dflt) {
    return n[key] ? n[key].as<std::string>() : dflt;
  }
  double number(const YAML::Node& n, const char* key, double dflt) {
    if (!n[key]) return dflt;
    try {
      return eval_arithmetic(n[key].as<std::string>());
    } catch (const std::exception& e) {
      fail(n[key], std::string("bad number for '") + key + "': " + e.what(),
           "write a number or an arithmetic expression such as 2*8*2048");
    }
  }
  std::array<uint32_t, 3> dims(const YAML::Node& n, const char* key, std::array<uint32_t, 3> dflt) {
    if (!n[key]) return dflt;
    const auto v = n[key];
    if (!v.IsSequence() || v.size() < 1 || v.size() > 3)
      fail(v, std::string("'") + key + "' must be a list [x, y, z]", "e.g. [256, 1, 1]");
    std::array<uint32_t, 3> out{1, 1, 1};
    for (size_t i = 0; i < v.size(); ++i)
      out[i] = static_cast<uint32_t>(eval_arithmetic(v[i].as<std::string>()));
    return out;
  }

  void load_system(const YAML::Node& root, Model& m) {
    const auto sys_name = text(root, "system", "");
    if (sys_name.empty()) fail(root, "missing 'system'", "name a configs/sim/<system>.yaml");
    std::filesystem::path p = std::filesystem::path(m_file).parent_path() / (sys_name + ".yaml");
    if (!std::filesystem::exists(p))
      fail(root["system"], "system file '" + p.string() + "' not found", "check the 'system' name");
    const std::string sys_file = p.string();
    YAML::Node s = YAML::LoadFile(sys_file);
    const auto defaults = s["defaults"];
    int cpu_n = 0, gpu_n = 0, node = 0;
    for (const auto& a : s["agents"]) {
      Agent ag;
      const std::string type = a["type"].as<std::string>();
      ag.gpu = type == "GPU";
      ag.node_id = node;
      ag.logical_node_id = node;
      ++node;
      ag.type_index = ag.gpu ? gpu_n++ : cpu_n++;
      if (defaults && defaults[type])
        for (const auto& kv : defaults[type])
          ag.fields[kv.first.as<std::string>()] = kv.second.as<std::string>();
      for (const auto& kv : a) ag.fields[kv.first.as<std::string>()] = kv.second.as<std::string>();
      ag.fields["Agent_Type"] = type;
      ag.fields["Node_Id"] = std::to_string(ag.node_id);
      ag.fields["Logical_Node_Id"] = std::to_string(ag.logical_node_id);
      m.agents.push_back(std::move(ag));
    }
    const int want = static_cast<int>(number(root, "gpu_index", 0));
    m.gpu = -1;
    for (size_t i = 0; i < m.agents.size(); ++i)
      if (m.agents[i].gpu && m.agents[i].type_index == want) m.gpu = static_cast<int>(i);
    if (m.gpu < 0) fail(root, "the system has no GPU " + std::to_string(want), "check gpu_index");
  }

  void load_ranks(const YAML::Node& r, Model& m) {
    m.ranks.count = static_cast<int>(number(r, "count", 1));
    if (m.ranks.count < 1) fail(r, "ranks.count must be >= 1", "the tensor-parallel size");
    if (const auto d = r["arrival_delay_ns"]) {
      if (!d.IsSequence()) fail(d, "'arrival_delay_ns' must be a list", "one delay per rank");
      for (const auto& v : d)
        m.ranks.arrival_delay_ns.push_back(eval_arithmetic(v.as<std::string>()));
      if (static_cast<int>(m.ranks.arrival_delay_ns.size()) > m.ranks.count)
        fail(d, "more arrival delays than ranks", "one delay per rank, ranks.count of them");
      for (double v : m.ranks.arrival_delay_ns)
        if (v < 0) fail(d, "arrival delays must be >= 0", "a delay is extra time before arriving");
    }
  }

  void expand(const YAML::Node& seq, bool in_region, std::vector<PlannedDispatch>& out) {
    if (!seq.IsSequence()) fail(seq, "'sequence' must be a list", "list kernels or repeat blocks");
    for (const auto& item : seq) {
      if (item["repeat"] || item["sequence"]) {
        const int n = static_cast<int>(number(item, "repeat", 1));
        const double gap_before = number(item, "gap_before_ns", -1);
        bool region = in_region;
        if (item["region"]) region = item["region"].as<std::string>() != "outside";
        const bool per_token = item["per_output_token"] && item["per_output_token"].as<bool>();
        const int block = per_token ? m_token_blocks++ : -1;
        const auto body = require(item, "sequence");
        // The body is read from the YAML once and copied: a repeat of thousands of dispatches
        // would otherwise parse every field again per repetition. A body that opens a per-token
        // block of its own numbers it anew in each repetition, so it is read again instead.
        std::vector<PlannedDispatch> once;
        const int blocks_before = m_token_blocks;
        if (n > 0) expand(body, region, once);
        const bool copyable = m_token_blocks == blocks_before;
        for (int r = 0; r < n; ++r) {
          const size_t first = out.size();
          if (r == 0 || copyable)
            out.insert(out.end(), once.begin(), once.end());
          else
            expand(body, region, out);
          if (gap_before >= 0 && out.size() > first) out[first].gap_ns = gap_before;
          if (per_token)
            for (size_t i = first; i < out.size(); ++i) {
              if (out[i].token_block >= 0)
                fail(item, "per_output_token blocks cannot nest", "mark the outer block only");
              out[i].token_block = block;
              out[i].token_step = r;
            }
        }
        continue;
      }
      const std::string key = text(item, "kernel", "");
      const auto it = m_symbol_index.find(key);
      if (it == m_symbol_index.end())
        fail(item, "unknown kernel '" + key + "'", "define it under 'kernels'");
      PlannedDispatch d;
      d.symbol = it->second;
      d.grid = dims(item, "grid", {64, 1, 1});
      d.duration_ns = number(item, "duration_ns", 0);
      if (d.duration_ns <= 0)
        fail(item, "dispatch of '" + key + "' needs duration_ns > 0", "add duration_ns");
      d.gap_ns = number(item, "gap_ns", m_launch_gap);
      d.flops = number(item, "flops", 0);
      d.bytes_read = number(item, "bytes_read", 0);
      d.bytes_written = number(item, "bytes_written", 0);
      d.queue = static_cast<int>(number(item, "queue", 1));
      d.stream = static_cast<int>(number(item, "stream", 1));
      d.optional = item["optional"] && item["optional"].as<bool>();
      d.in_region = in_region;
      const int count = static_cast<int>(number(item, "count", 1));
      for (int c = 0; c < count; ++c) out.push_back(d);
    }
  }

  std::string m_file;
  std::map<std::string, int> m_symbol_index;
  double m_launch_gap = 1500;
  int m_token_blocks = 0;
};

}  // namespace

double eval_arithmetic(const std::string& text) { return Arith(text).parse(); }

RunTimes run_times(const Model& m) {
  RunTimes t;
  t.load_ns = m.startup_ns + m.load_ns;
  for (const auto& d : m.dispatches) {
    const double span = d.gap_ns + d.duration_ns;
    if (d.in_region) {
      t.region_ns += span;
      ++t.region_dispatches;
    } else {
      t.warmup_ns += span;
    }
  }
  t.counter_stretch = m.counter_stretch;
  t.counter_extra_ns = m.counter_overhead_ns + m.counter_gap_ns;
  return t;
}

std::vector<PlannedDispatch> with_output_tokens(const std::vector<PlannedDispatch>& plan,
                                                int outside_tokens, int region_tokens) {
  std::vector<PlannedDispatch> out;
  out.reserve(plan.size());
  for (size_t i = 0; i < plan.size();) {
    const PlannedDispatch& d = plan[i];
    const int tokens = d.in_region ? region_tokens : outside_tokens;
    if (d.token_block < 0 || tokens <= 0) {
      out.push_back(plan[i++]);
      continue;
    }
    // The block: its first repetition is the step every other one repeats.
    size_t end = i, step_end = i;
    while (end < plan.size() && plan[end].token_block == d.token_block) {
      if (plan[end].token_step == d.token_step) step_end = end + 1;
      ++end;
    }
    for (int r = 0; r < tokens - 1; ++r)
      for (size_t k = i; k < step_end; ++k) {
        out.push_back(plan[k]);
        out.back().token_step = r;
      }
    i = end;
  }
  return out;
}

std::string truncate_kernel_name(const std::string& name) {
  std::string s = name;
  const auto strip_bracketed = [&](char open, char close) {
    if (s.empty() || s.back() != close) return;
    int depth = 0;
    for (size_t i = s.size(); i-- > 0;) {
      if (s[i] == close) ++depth;
      if (s[i] == open && --depth == 0) {
        // "(anonymous namespace)" is not an argument list.
        s.erase(i);
        return;
      }
    }
  };
  strip_bracketed('(', ')');
  strip_bracketed('<', '>');
  const auto ns = s.rfind("::");
  if (ns != std::string::npos) s = s.substr(ns + 2);
  const auto sp = s.rfind(' ');
  if (sp != std::string::npos) s = s.substr(sp + 1);
  return s;
}

Model load_model(const std::filesystem::path& path) {
  if (!std::filesystem::exists(path))
    throw Error::input("workload model '" + path.string() + "' not found",
                       "set ROCPROF_SIM_MODEL to a file or a name in configs/sim/");
  return Loader(path.string()).load();
}

Model load_model_named(const std::string& name_or_path) {
  const std::filesystem::path p(name_or_path);
  if (p.extension() == ".yaml" || p.extension() == ".yml" ||
      name_or_path.find('/') != std::string::npos)
    return load_model(p);
  return load_model(config_dir() / "sim" / (name_or_path + ".yaml"));
}

}  // namespace kprof::sim
