#include "core/base/rocprof_release.hpp"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>

#include "core/base/error.hpp"
#include "core/base/paths.hpp"

namespace kprof {
namespace {

namespace fs = std::filesystem;

std::array<int, 3> parse_sdk(const std::string& s) {
  std::array<int, 3> v{0, 0, 0};
  size_t part = 0;
  for (char c : s) {
    if (c >= '0' && c <= '9')
      v[part] = v[part] * 10 + (c - '0');
    else if (c == '.' && part < 2)
      ++part;
    else
      break;
  }
  return v;
}

RocprofOption read_option(const nlohmann::json& o) {
  RocprofOption r;
  r.names = o.at("options").get<std::vector<std::string>>();
  r.dest = o.at("dest").get<std::string>();
  r.kind = o.at("kind").get<std::string>();
  const auto& n = o.at("nargs");
  if (n.is_null()) {
    r.nargs = RocprofOption::Nargs::one;
  } else if (n.is_number_integer()) {
    r.count = n.get<int>();
    r.nargs = r.count == 0 ? RocprofOption::Nargs::zero : RocprofOption::Nargs::exactly;
  } else {
    const std::string s = n.get<std::string>();
    r.nargs = s == "?"   ? RocprofOption::Nargs::optional
              : s == "*" ? RocprofOption::Nargs::star
                         : RocprofOption::Nargs::plus;
  }
  if (o.contains("choices") && o.at("choices").is_array())
    for (const auto& c : o.at("choices")) r.choices.push_back(c.get<std::string>());
  return r;
}

RocprofRelease read_release(const fs::path& file) {
  std::ifstream in(file);
  try {
    const nlohmann::json j = nlohmann::json::parse(in);
    RocprofRelease r;
    r.name = j.at("release").get<std::string>();
    r.sdk = parse_sdk(j.at("sdk").get<std::string>());
    r.rocm = j.at("rocm").get<std::string>();
    const auto& s = j.at("source");
    r.source = s.at("repository").get<std::string>() + " " + s.at("commit").get<std::string>() +
               " " + s.at("path").get<std::string>();
    r.reads_input_before_argument_errors = j.value("reads_input_before_argument_errors", false);
    for (const auto& o : j.at("options")) r.options.push_back(read_option(o));
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error::runtime(
        "cannot read the rocprofv3 option table '" + file.string() + "': " + e.what(),
        "reinstall kprof's configs (configs/rocprofv3/<release>.json)");
  }
}

bool is_development(const RocprofRelease& r) { return r.name.rfind("dev-", 0) == 0; }

}  // namespace

std::string RocprofOption::label() const {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : "/") + n;
  return s;
}

bool RocprofOption::has_choice(std::string_view value) const {
  return choices.empty() || std::find(choices.begin(), choices.end(), value) != choices.end();
}

const RocprofOption* RocprofRelease::find(std::string_view spelling) const {
  for (const auto& o : options)
    if (std::find(o.names.begin(), o.names.end(), spelling) != o.names.end()) return &o;
  return nullptr;
}

const RocprofOption* RocprofRelease::find_dest(std::string_view dest) const {
  for (const auto& o : options)
    if (o.dest == dest) return &o;
  return nullptr;
}

std::string RocprofRelease::spelling(std::string_view dest) const {
  const RocprofOption* o = find_dest(dest);
  return o ? o->names.front() : std::string();
}

const std::vector<RocprofRelease>& rocprof_releases() {
  static const std::vector<RocprofRelease> k_all = [] {
    std::vector<RocprofRelease> all;
    const fs::path dir = config_dir() / "rocprofv3";
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().extension() == ".json") files.push_back(e.path());
    for (const auto& f : files) all.push_back(read_release(f));
    if (all.empty())
      throw Error::runtime("no rocprofv3 option table in '" + dir.string() + "'",
                           "reinstall kprof's configs (configs/rocprofv3/<release>.json)");
    std::sort(all.begin(), all.end(), [](const RocprofRelease& a, const RocprofRelease& b) {
      if (a.sdk != b.sdk) return a.sdk < b.sdk;
      return is_development(a) < is_development(b);
    });
    return all;
  }();
  return k_all;
}

const RocprofRelease* find_rocprof_release(std::string_view name) {
  for (const auto& r : rocprof_releases())
    if (r.name == name) return &r;
  return nullptr;
}

const RocprofRelease& rocprof_release_for_sdk(const std::array<int, 3>& sdk) {
  const auto& all = rocprof_releases();
  const RocprofRelease* best = &all.front();
  for (const auto& r : all)
    if (!is_development(r) && r.sdk <= sdk) best = &r;
  return *best;
}

const RocprofRelease* rocprof_release_from_help(std::string_view help) {
  // Option spellings as argparse prints them: a token starting with '-' up to a space, comma,
  // '=', '[' or bracket (e.g. "-i INPUT, --input INPUT", "--kernel-trace [BOOL]").
  std::set<std::string> seen;
  for (size_t i = 0; i < help.size(); ++i) {
    const bool start = help[i] == '-' && (i == 0 || help[i - 1] == ' ' || help[i - 1] == '\n' ||
                                          help[i - 1] == '[' || help[i - 1] == ',');
    if (!start) continue;
    size_t j = i;
    while (j < help.size() && help[j] != ' ' && help[j] != ',' && help[j] != '=' &&
           help[j] != ']' && help[j] != '\n')
      ++j;
    seen.insert(std::string(help.substr(i, j - i)));
    i = j;
  }
  const RocprofRelease* best = nullptr;
  for (const auto& r : rocprof_releases()) {
    const bool all = std::all_of(r.options.begin(), r.options.end(), [&](const RocprofOption& o) {
      return std::all_of(o.names.begin(), o.names.end(),
                         [&](const std::string& n) { return seen.count(n) > 0; });
    });
    if (all && (!best || r.options.size() > best->options.size())) best = &r;
  }
  return best;
}

}  // namespace kprof
