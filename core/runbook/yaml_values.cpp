// The typed values of a runbook's YAML (yaml_reader.hpp): maps with their known keys and a
// "did you mean" for unknown ones, strings, booleans, integers, durations, choices and lists,
// each error at the value's file:line:col.
#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/base/duration.hpp"
#include "core/base/text.hpp"
#include "core/runbook/checks.hpp"
#include "core/runbook/yaml_reader.hpp"

namespace kprof::runbook::detail {
namespace {

bool is_plain(const YAML::Node& node) { return node.Tag() == "?"; }

std::string quote(std::string_view s) {
  constexpr size_t k_max = 40;
  if (s.size() > k_max) return "'" + std::string(s.substr(0, k_max)) + "...'";
  return "'" + std::string(s) + "'";
}

}  // namespace

std::string suggest(const std::string& name, const std::vector<std::string>& known) {
  auto near = nearest_names(name, known, 1);
  if (!near.empty()) return near[0];
  const std::string lname = to_lower(name);
  std::string best;
  size_t best_len = 3;
  for (const auto& k : known) {
    const std::string lk = to_lower(k);
    size_t n = 0;
    while (n < lname.size() && n < lk.size() && lname[n] == lk[n]) ++n;
    if (n > best_len) {
      best = k;
      best_len = n;
    }
  }
  if (!best.empty()) return best;
  if (lname.size() >= 4)
    for (const auto& k : known)
      if (to_lower(k).find(lname) != std::string::npos) return k;
  return {};
}

const Entry* Map::find(std::string_view key) const {
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

std::string join_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

std::string Reader::describe(const YAML::Node& node) {
  if (node.IsMap()) return "a map";
  if (node.IsSequence()) return "a list";
  if (!node.IsDefined() || node.IsNull()) return "nothing";
  if (!is_plain(node)) return "the quoted string " + quote(node.Scalar());
  return quote(node.Scalar());
}

void Reader::type_error(const YAML::Node& node, const SourcePos& pos, const std::string& path,
                        std::string_view expected, std::string hint) {
  error(pos, path + ": expected " + std::string(expected) + ", got " + describe(node),
        std::move(hint));
}

std::optional<Map> Reader::map(const YAML::Node& node, const SourcePos& pos,
                               const std::string& path, const std::vector<std::string>& known) {
  return map_impl(node, pos, path, &known);
}

std::optional<Map> Reader::open_map(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path) {
  return map_impl(node, pos, path, nullptr);
}

std::optional<Map> Reader::map_impl(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path,
                                    const std::vector<std::string>* known) {
  // An empty section (`profiler:` alone) is an empty map: every key takes its default.
  if (node.IsNull()) return Map{path, pos, {}, false, {}};
  if (!node.IsMap()) {
    if (path.empty())
      error(pos, "the runbook must be a map of keys, got " + describe(node),
            "start from runbooks/qwen3-30b-a3b-sim.yaml");
    else
      type_error(node, pos, path, "a map", "write its keys indented under '" + path + ":'");
    return std::nullopt;
  }
  Map m{path, pos, {}, false, {}};
  // A hash map: a list made 100k keys take 27 s (each key compared with every earlier one).
  std::unordered_map<std::string, SourcePos> seen;
  // Copies, not references: yaml-cpp's iterator yields a temporary pair.
  for (const auto& kv : node) {
    const YAML::Node k = kv.first;
    const SourcePos kp = pos_of(k.Mark());
    if (!k.IsScalar()) {
      error(kp, "keys must be plain names, got " + describe(k), "write 'key: value'");
      continue;
    }
    const std::string key = k.Scalar();
    auto prev = seen.find(key);
    if (prev != seen.end()) {
      error(kp, "duplicate key '" + join_path(path, key) + "'",
            "first written at line " + std::to_string(prev->second.line) + "; keep one");
      continue;
    }
    seen.emplace(key, kp);
    if (known && std::find(known->begin(), known->end(), key) == known->end()) {
      const std::string meant = suggest(key, *known);
      std::string hint = meant.empty() ? std::string() : did_you_mean({meant});
      if (hint.empty())
        hint = (path.empty() ? "the runbook" : path) + " takes " + join(*known, ", ");
      error(kp, "unknown key '" + join_path(path, key) + "'", hint);
      m.has_unknown = true;
      if (!meant.empty()) m.suggested.push_back(meant);
      continue;
    }
    const YAML::Node v = kv.second;
    // yaml-cpp marks an empty value at the start of the next token, often the next line.
    const SourcePos vp = v.IsNull() ? kp : pos_of(v.Mark());
    m.entries.push_back(Entry{key, kp, vp, v});
  }
  return m;
}

void Reader::missing(const Map& map, std::string_view key, std::string hint) {
  // "unknown key 'comand' (did you mean 'command'?)" already says it; a second line would not help.
  if (std::find(map.suggested.begin(), map.suggested.end(), key) != map.suggested.end()) return;
  error(map.pos, "missing key '" + join_path(map.path, key) + "'", std::move(hint));
}

std::optional<std::string> Reader::string(const YAML::Node& node, const SourcePos& pos,
                                          const std::string& path) {
  if (!node.IsScalar()) {
    type_error(node, pos, path, "a string", "write a single value");
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<bool> Reader::boolean(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  type_error(node, pos, path, "true or false", "write true or false");
  return std::nullopt;
}

std::optional<long long> Reader::integer(const YAML::Node& node, const SourcePos& pos,
                                         const std::string& path, long long min, long long max) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    const char* b = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
    long long v = 0;
    auto [end, ec] = std::from_chars(b, s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && b != end) {
      if (v < min || v > max) {
        error(pos, path + ": " + s + " is out of range",
              "use " + std::to_string(min) + " to " + std::to_string(max));
        return std::nullopt;
      }
      return v;
    }
    if (ec == std::errc::result_out_of_range) {
      error(pos, path + ": " + s + " is out of range",
            "use " + std::to_string(min) + " to " + std::to_string(max));
      return std::nullopt;
    }
  }
  type_error(node, pos, path, "a whole number", "write digits only, unquoted");
  return std::nullopt;
}

std::optional<std::uint64_t> Reader::uint64(const YAML::Node& node, const SourcePos& pos,
                                            const std::string& path) {
  if (node.IsScalar() && is_plain(node)) {
    const std::string& s = node.Scalar();
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && !s.empty()) return v;
    if (ec == std::errc::result_out_of_range) {
      error(pos, path + ": " + s + " is out of range", "use 0 to 18446744073709551615");
      return std::nullopt;
    }
  }
  type_error(node, pos, path, "a whole number", "write digits only, unquoted");
  return std::nullopt;
}

std::optional<std::chrono::milliseconds> Reader::duration(const YAML::Node& node,
                                                          const SourcePos& pos,
                                                          const std::string& path,
                                                          std::chrono::milliseconds max,
                                                          std::string_view max_text) {
  if (!node.IsScalar()) {
    type_error(node, pos, path, "a duration", "write e.g. 90s, 30m, 1h30m or 250ms");
    return std::nullopt;
  }
  const auto ms = parse_duration_ms(node.Scalar());
  if (!ms) {
    error(pos, path + ": " + quote(node.Scalar()) + " is not a duration",
          "write e.g. 90s, 30m, 1h30m or 250ms");
    return std::nullopt;
  }
  if (*ms > static_cast<double>(max.count())) {
    error(pos, path + ": " + quote(node.Scalar()) + " is too long",
          "write at most " + std::string(max_text));
    return std::nullopt;
  }
  return parse_duration(node.Scalar());
}

std::optional<std::string> Reader::name(const YAML::Node& node, const SourcePos& pos,
                                        const std::string& path, const std::string& what,
                                        const std::string& hint) {
  auto s = string(node, pos, path);
  if (!s || is_valid_name(*s)) return s;
  error(pos, path + ": '" + *s + "' is not " + what, hint);
  return std::nullopt;
}

std::optional<size_t> Reader::choice(const YAML::Node& node, const SourcePos& pos,
                                     const std::string& path,
                                     const std::vector<std::string>& names) {
  const std::string choices = names.size() == 2 ? names[0] + " or " + names[1] : join(names, ", ");
  if (!node.IsScalar()) {
    type_error(node, pos, path, "one of " + choices, "write one of " + choices);
    return std::nullopt;
  }
  const std::string& s = node.Scalar();
  auto it = std::find(names.begin(), names.end(), s);
  if (it != names.end()) return static_cast<size_t>(it - names.begin());
  const std::string meant = suggest(s, names);
  error(pos, path + ": unknown value " + quote(s),
        meant.empty() ? "use " + choices : did_you_mean({meant}));
  return std::nullopt;
}

std::optional<std::vector<YAML::Node>> Reader::list(const YAML::Node& node, const SourcePos& pos,
                                                    const std::string& path) {
  if (node.IsNull()) return std::vector<YAML::Node>{};
  if (!node.IsSequence()) {
    type_error(node, pos, path, "a list", "write [a, b] or one '- item' line per element");
    return std::nullopt;
  }
  std::vector<YAML::Node> out;
  for (const auto& n : node) out.push_back(n);
  return out;
}

std::optional<std::vector<Reader::Item>> Reader::strings(const YAML::Node& node,
                                                         const SourcePos& pos,
                                                         const std::string& path) {
  auto items = list(node, pos, path);
  if (!items) return std::nullopt;
  std::vector<Item> out;
  bool good = true;
  for (size_t i = 0; i < items->size(); ++i) {
    const YAML::Node& n = (*items)[i];
    const SourcePos ip = n.IsNull() ? pos : pos_of(n.Mark());
    auto s = string(n, ip, path + "[" + std::to_string(i) + "]");
    if (!s) {
      good = false;
      continue;
    }
    out.push_back(Item{*s, ip});
  }
  if (!good) return std::nullopt;
  return out;
}

}  // namespace kprof::runbook::detail
