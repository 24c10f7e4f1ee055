#include "core/analysis/structure/family.hpp"

#include <cxxabi.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "core/base/paths.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {
namespace {

const std::vector<std::string> k_ops = {"demangle", "strip_descriptor_suffix", "strip_return_type",
                                        "strip_arguments", "fold_templates"};

std::string apply_op(const std::string& op, std::string_view name) {
  if (op == "demangle") return demangle(name);
  if (op == "strip_descriptor_suffix") return strip_descriptor_suffix(name);
  if (op == "strip_return_type") return strip_return_type(name);
  if (op == "strip_arguments") return strip_arguments(name);
  return fold_templates(name);
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// libstdc++'s std::regex matches by recursion, one call chain per character a match consumes
// (bits/regex_executor.tcc, _Executor::_M_dfs), so `.*` over a name of ~30 kB overflows an 8 MB
// stack. Regex rules therefore see a bounded form of a longer name: its first and last
// k_rule_view / 2 bytes around a "..." marker, so rules anchored at either end (a Tensile
// prefix, a Triton suffix) still apply. The ops above are loops and see the whole name.
constexpr size_t k_rule_view = 2048;

// Moves `at` off the middle of a UTF-8 sequence (onto its first byte).
size_t utf8_boundary(std::string_view s, size_t at) {
  while (at > 0 && at < s.size() && (static_cast<unsigned char>(s[at]) & 0xC0) == 0x80) --at;
  return at;
}

std::string bounded_for_rules(std::string name) {
  if (name.size() <= k_rule_view) return name;
  const size_t head = utf8_boundary(name, k_rule_view / 2);
  const size_t tail = utf8_boundary(name, name.size() - k_rule_view / 2);
  return name.substr(0, head) + "..." + name.substr(tail);
}

SourcePos pos_of(const YAML::Node& n, const std::string& file) {
  const auto m = n.Mark();
  return SourcePos{file, m.line + 1, m.column + 1};
}

}  // namespace

std::string demangle(std::string_view name) {
  std::string s(strip_descriptor_suffix(name));
  if (s.rfind("_Z", 0) != 0) return std::string(name);
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> out(
      abi::__cxa_demangle(s.c_str(), nullptr, nullptr, &status), std::free);
  if (status != 0 || !out) return std::string(name);
  return out.get();
}

std::string strip_descriptor_suffix(std::string_view name) {
  // rocprof v1 prints "name [clone .kd]"; code-object symbols end in ".kd" (kernel descriptor).
  for (std::string_view suffix : {" [clone .kd]", ".kd"}) {
    if (ends_with(name, suffix)) return std::string(name.substr(0, name.size() - suffix.size()));
  }
  return std::string(name);
}

namespace {

// "(anonymous namespace)" names a scope, as the Itanium demangler writes it (GCC's and LLVM's
// libiberty/cp-demangle.c, llvm/lib/Demangle/ItaniumDemangle.cpp), e.g. PyTorch's
// "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<...>(...)"
// in a real MI350X trace (tests/data/captures/flydsl-kernel-profiling/flash_attn_func): a '('
// right after "::" opens no argument list.
bool opens_scope(std::string_view name, size_t i) {
  return name[i] == '(' && i >= 2 && name.substr(i - 2, 2) == "::";
}

}  // namespace

std::string strip_return_type(std::string_view name) {
  // The last top-level space before the argument list separates the return type ("void") from the
  // qualified name; spaces inside <...> or (...) belong to template or parameter types.
  int depth = 0;
  size_t cut = std::string_view::npos;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '[' || c == '{') {
      if (c == '(' && depth == 0 && !opens_scope(name, i)) break;
      ++depth;
    } else if (c == '>' || c == ')' || c == ']' || c == '}') {
      depth = std::max(0, depth - 1);
    } else if (c == ' ' && depth == 0) {
      cut = i;
    }
  }
  if (cut == std::string_view::npos) return std::string(name);
  return std::string(trim(name.substr(cut + 1)));
}

std::string strip_arguments(std::string_view name) {
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '(' && depth == 0 && i > 0 && !opens_scope(name, i))
      return std::string(trim(name.substr(0, i)));
    if (c == '<' || c == '[' || c == '{' || c == '(') ++depth;
    if (c == '>' || c == ']' || c == '}' || c == ')') depth = std::max(0, depth - 1);
  }
  return std::string(name);
}

std::string fold_templates(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    // "operator<" / "operator<<" are names, not template brackets.
    if (depth == 0 && c == '<' && i >= 8 && name.substr(i - 8, 8) == "operator") {
      while (i < name.size() && name[i] == '<') out.push_back(name[i++]);
      --i;
      continue;
    }
    if (c == '<') {
      ++depth;
    } else if (c == '>' && depth > 0) {
      --depth;
    } else if (depth == 0) {
      out.push_back(c);
    }
  }
  return std::string(trim(out));
}

FamilyRules::Compiled FamilyRules::compile(const FamilyRule& rule) {
  Compiled c{rule, {}};
  if (rule.kind == FamilyRule::Kind::op) {
    if (std::find(k_ops.begin(), k_ops.end(), rule.op) == k_ops.end()) {
      throw Error::input("unknown family operation '" + rule.op + "'",
                         did_you_mean(nearest_names(rule.op, k_ops, 1, true)), rule.pos);
    }
    return c;
  }
  try {
    c.re = std::regex(rule.pattern, std::regex::ECMAScript | std::regex::optimize);
  } catch (const std::regex_error& e) {
    throw Error::input("bad family regex '" + rule.pattern + "': " + e.what(),
                       "write an ECMAScript regular expression", rule.pos);
  }
  return c;
}

FamilyRules FamilyRules::from_rules(const std::vector<FamilyRule>& rules) {
  FamilyRules r;
  for (const auto& rule : rules) r.m_rules.push_back(compile(rule));
  return r;
}

void FamilyRules::prepend(const std::vector<FamilyRule>& user_rules) {
  std::vector<Compiled> merged;
  for (const auto& rule : user_rules) merged.push_back(compile(rule));
  merged.insert(merged.end(), m_rules.begin(), m_rules.end());
  m_rules = std::move(merged);
}

FamilyRules FamilyRules::load_file(const std::filesystem::path& yaml_file) {
  const std::string file = yaml_file.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::ParserException& e) {
    throw Error::input("bad YAML: " + e.msg, "fix the family rule file",
                       SourcePos{file, e.mark.line + 1, e.mark.column + 1});
  } catch (const YAML::BadFile&) {
    throw Error::input("cannot read family rules", "check the path", SourcePos{file});
  }
  const YAML::Node rules = root["rules"];
  if (!root.IsMap() || !rules || !rules.IsSequence()) {
    throw Error::input("family rule file has no 'rules' list", "start the file with 'rules:'",
                       pos_of(root, file));
  }
  std::vector<FamilyRule> out;
  for (const auto& n : rules) {
    FamilyRule r;
    r.pos = pos_of(n, file);
    if (!n.IsMap())
      throw Error::input("a family rule must be a map", "write {match: ..., family: ...}", r.pos);
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      if (key != "op" && key != "match" && key != "family" && key != "replace" && key != "why") {
        throw Error::input(
            "unknown key '" + key + "' in family rule",
            did_you_mean(nearest_names(key, {"op", "match", "family", "replace", "why"}, 1, true)),
            pos_of(kv.first, file));
      }
    }
    if (n["op"]) {
      r.kind = FamilyRule::Kind::op;
      r.op = n["op"].as<std::string>();
    } else if (n["match"] && (n["family"] || n["replace"])) {
      r.pattern = n["match"].as<std::string>();
      r.kind = n["family"] ? FamilyRule::Kind::family : FamilyRule::Kind::replace;
      r.text = (n["family"] ? n["family"] : n["replace"]).as<std::string>();
    } else {
      throw Error::input("family rule needs 'op', or 'match' with 'family' or 'replace'",
                         "e.g. {match: '^fused_moe', family: fused_moe_kernel}", r.pos);
    }
    out.push_back(r);
  }
  return from_rules(out);
}

FamilyRules FamilyRules::load_dir(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  FamilyRules all;
  for (const auto& f : files) {
    auto r = load_file(f);
    all.m_rules.insert(all.m_rules.end(), r.m_rules.begin(), r.m_rules.end());
  }
  return all;
}

FamilyRules FamilyRules::load_default() { return load_dir(config_dir() / "families"); }

std::string FamilyRules::family_of(std::string_view kernel_name) const {
  std::string name(kernel_name);
  for (const auto& c : m_rules) {
    switch (c.rule.kind) {
      case FamilyRule::Kind::op:
        name = apply_op(c.rule.op, name);
        break;
      case FamilyRule::Kind::replace:
        name = std::regex_replace(bounded_for_rules(std::move(name)), c.re, c.rule.text);
        break;
      case FamilyRule::Kind::family:
        name = bounded_for_rules(std::move(name));
        if (std::regex_search(name, c.re)) return c.rule.text;
        break;
    }
  }
  return name;
}

}  // namespace kprof::analysis
