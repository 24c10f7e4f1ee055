// Internal to core/runbook: a yaml-cpp document read with positions, collecting every problem
// instead of stopping at the first. yaml-cpp 0.7 keeps duplicate keys and accepts any scalar as
// any type, so the checks a user expects (duplicates, unknown keys, strict types) live here.
#pragma once

#include <yaml-cpp/yaml.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"

namespace kprof::runbook::detail {

// One key of a map, with where the key and its value were written.
struct Entry {
  std::string key;
  SourcePos key_pos;
  SourcePos value_pos;  // the key's position when the value is empty
  YAML::Node value;
};

// A checked map: unknown and duplicate keys were reported, `entries` holds the known keys once each
// (the first occurrence).
struct Map {
  std::string path;  // "workload", "passes.counters", "" for the top level
  SourcePos pos;
  std::vector<Entry> entries;
  bool has_unknown = false;            // some key was reported as unknown
  std::vector<std::string> suggested;  // keys offered by "did you mean" for unknown ones

  const Entry* find(std::string_view key) const;
};

class Reader {
 public:
  Reader(std::string_view text, std::string file);

  // The document's top node; nullopt (with errors recorded) for binary junk, a YAML syntax error,
  // an empty file or more than one document.
  std::optional<YAML::Node> parse();

  SourcePos pos_of(const YAML::Mark& mark) const;
  SourcePos file_pos() const { return SourcePos{m_file, 0, 0}; }
  void error(const SourcePos& pos, std::string what, std::string hint = {});
  bool ok() const { return m_diagnostics.empty(); }
  std::vector<Diagnostic> take() { return std::move(m_diagnostics); }
  // Errors past the first k_max_diagnostics are counted, not kept: a file of 100k bad keys gives
  // a readable answer, not 100k lines.
  static constexpr size_t k_max_diagnostics = 100;
  size_t suppressed() const { return m_suppressed; }
  std::string source_line(int line) const;

  // nullopt (error recorded) when `node` is not a map. `known` lists the keys in documentation
  // order.
  std::optional<Map> map(const YAML::Node& node, const SourcePos& pos, const std::string& path,
                         const std::vector<std::string>& known);
  // A map whose keys are the user's (env names): duplicates are reported, any key is accepted.
  std::optional<Map> open_map(const YAML::Node& node, const SourcePos& pos,
                              const std::string& path);
  // Reports "missing key" at the map, unless an unknown key was already suggested to be this one.
  void missing(const Map& map, std::string_view key, std::string hint);

  // Typed scalars. Each returns nullopt with an error recorded when the value has the wrong type.
  std::optional<std::string> string(const YAML::Node& node, const SourcePos& pos,
                                    const std::string& path);
  std::optional<bool> boolean(const YAML::Node& node, const SourcePos& pos,
                              const std::string& path);
  std::optional<long long> integer(const YAML::Node& node, const SourcePos& pos,
                                   const std::string& path, long long min, long long max);
  std::optional<std::uint64_t> uint64(const YAML::Node& node, const SourcePos& pos,
                                      const std::string& path);
  // Longer than `max` is an error ("is too long (write at most <max_text>)").
  std::optional<std::chrono::milliseconds> duration(const YAML::Node& node, const SourcePos& pos,
                                                    const std::string& path,
                                                    std::chrono::milliseconds max,
                                                    std::string_view max_text);
  // A name (letters, digits, '.', '_', '-', starting with a letter or digit: it may become a file
  // name or a registry's key); otherwise "<path>: '<value>' is not <what> (<hint>)".
  std::optional<std::string> name(const YAML::Node& node, const SourcePos& pos,
                                  const std::string& path, const std::string& what,
                                  const std::string& hint);
  // One of `names` (exact spelling); returns its index.
  std::optional<size_t> choice(const YAML::Node& node, const SourcePos& pos,
                               const std::string& path, const std::vector<std::string>& names);
  // A list of strings; each element keeps its own position. A null value is an empty list.
  struct Item {
    std::string value;
    SourcePos pos;
  };
  std::optional<std::vector<Item>> strings(const YAML::Node& node, const SourcePos& pos,
                                           const std::string& path);
  // A list of anything; nullopt (error recorded) when not a list. A null value is an empty list.
  std::optional<std::vector<YAML::Node>> list(const YAML::Node& node, const SourcePos& pos,
                                              const std::string& path);

  // "a map", "a list", "nothing", "'yes'", "the quoted string \"1\"": how the value appears.
  static std::string describe(const YAML::Node& node);

 private:
  void type_error(const YAML::Node& node, const SourcePos& pos, const std::string& path,
                  std::string_view expected, std::string hint);
  bool check_text();
  std::optional<Map> map_impl(const YAML::Node& node, const SourcePos& pos, const std::string& path,
                              const std::vector<std::string>* known);

  std::string_view m_text;
  std::string m_file;
  std::vector<std::string_view> m_lines;
  std::vector<Diagnostic> m_diagnostics;
  size_t m_suppressed = 0;
};

// The likeliest meant name among `known`: the nearest by edit distance, else the longest shared
// prefix of 4+ characters ("metrics" -> "metric_sets"), else one containing `name` ("duration" ->
// "total_duration"). Empty when nothing is close.
std::string suggest(const std::string& name, const std::vector<std::string>& known);

// "workload.command" from "workload" and "command"; "name" at the top level.
std::string join_path(const std::string& parent, std::string_view key);

}  // namespace kprof::runbook::detail
