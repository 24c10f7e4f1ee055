#include "core/analysis/structure/collectives.hpp"

#include <yaml-cpp/yaml.h>

#include "core/base/paths.hpp"
#include "core/base/text.hpp"

namespace kprof::analysis {

namespace {

SourcePos pos_of(const YAML::Node& n, const std::string& file) {
  const auto m = n.Mark();
  return SourcePos{file, m.line + 1, m.column + 1};
}

std::string text_of(const YAML::Node& entry, const char* key, const std::string& file) {
  const YAML::Node v = entry[key];
  if (!v || !v.IsScalar())
    throw Error::input(std::string("collective entry needs '") + key + "'",
                       "write {match: REGEX, library: NAME, op: all_reduce|all_to_all|any}",
                       pos_of(entry, file));
  return v.as<std::string>();
}

}  // namespace

CollectiveRules CollectiveRules::from_entries(const std::vector<Entry>& entries) {
  CollectiveRules out;
  for (const auto& e : entries) {
    try {
      out.m_entries.emplace_back(e, std::regex(e.pattern, std::regex::ECMAScript));
    } catch (const std::regex_error& err) {
      throw Error::input("bad regex '" + e.pattern + "': " + err.what(), "fix the collective entry",
                         e.pos);
    }
  }
  return out;
}

CollectiveRules CollectiveRules::load_file(const std::filesystem::path& yaml_file) {
  const std::string file = yaml_file.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::ParserException& e) {
    throw Error::input("bad YAML: " + e.msg, "fix the collectives file",
                       SourcePos{file, e.mark.line + 1, e.mark.column + 1});
  } catch (const YAML::BadFile&) {
    throw Error::input("cannot read the collectives list", "check the path", SourcePos{file});
  }
  const YAML::Node list = root.IsMap() ? root["collectives"] : YAML::Node();
  if (!list || !list.IsSequence())
    throw Error::input("collectives file has no 'collectives' list",
                       "add 'collectives:' with {match, library, op} entries", pos_of(root, file));
  std::vector<Entry> entries;
  for (const auto& n : list) {
    if (!n.IsMap())
      throw Error::input("a collective entry must be a map", "write {match: ..., library: ...}",
                         pos_of(n, file));
    for (const auto& kv : n) {
      const auto key = kv.first.as<std::string>();
      if (key != "match" && key != "library" && key != "op" && key != "why")
        throw Error::input(
            "unknown key '" + key + "' in collective entry",
            did_you_mean(nearest_names(key, {"match", "library", "op", "why"}, 1, true)),
            pos_of(kv.first, file));
    }
    Entry e;
    e.pos = pos_of(n, file);
    e.pattern = text_of(n, "match", file);
    e.kind.library = text_of(n, "library", file);
    e.kind.op = text_of(n, "op", file);
    if (e.kind.op != "all_reduce" && e.kind.op != "all_to_all" && e.kind.op != "any")
      throw Error::input("unknown collective op '" + e.kind.op + "'",
                         "choose all_reduce, all_to_all or any", pos_of(n["op"], file));
    entries.push_back(std::move(e));
  }
  return from_entries(entries);
}

CollectiveRules CollectiveRules::load_default() {
  CollectiveRules out = load_file(config_dir() / "families" / "collectives.yaml");
  out.m_default_families = std::make_shared<const FamilyRules>(FamilyRules::load_default());
  return out;
}

std::optional<CollectiveKind> CollectiveRules::kind_of(std::string_view family) const {
  const std::string name(family);
  for (const auto& [e, re] : m_entries)
    if (std::regex_search(name, re)) return e.kind;
  return std::nullopt;
}

std::optional<CollectiveKind> CollectiveRules::kind_of_kernel(std::string_view kernel_name,
                                                              std::string_view family) const {
  if (auto kind = kind_of(family)) return kind;
  if (!m_default_families) return std::nullopt;
  return kind_of(m_default_families->family_of(kernel_name));
}

}  // namespace kprof::analysis
