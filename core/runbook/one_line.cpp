#include "core/runbook/one_line.hpp"

#include <cctype>

#include "core/base/error.hpp"
#include "core/base/input_file.hpp"
#include "core/base/output_file.hpp"
#include "core/base/text.hpp"

namespace kprof::runbook {
namespace {

// json_quote gives a YAML double-quoted scalar (YAML 1.2 is a superset of JSON strings).
std::string list(const std::vector<std::string>& v) {
  std::vector<std::string> q;
  for (const auto& s : v) q.push_back(json_quote(s));
  return "[" + join(q, ", ") + "]";
}

// The YAML without its first line, which quotes the command line that wrote it ("# The runbook
// of: kprof run ..."): the same runbook written by `--quiet` and by a plain run compares equal.
std::string without_origin(const std::string& yaml) {
  if (yaml.rfind("# The runbook of: ", 0) != 0) return yaml;
  const auto nl = yaml.find('\n');
  return nl == std::string::npos ? std::string() : yaml.substr(nl + 1);
}

}  // namespace

std::string name_from_command(const std::string& argv0) {
  std::string base = std::filesystem::path(argv0).filename().string();
  std::string out;
  for (char c : base) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    out += ok ? c : '-';
  }
  while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front()))) out.erase(0, 1);
  return out.empty() ? "profile" : out;
}

std::filesystem::path one_line_runbook_path(const std::filesystem::path& database) {
  auto p = database;
  return p.replace_extension("").string() + ".runbook.yaml";
}

std::string one_line_yaml(const OneLine& o) {
  if (o.command.empty() || o.command.front().empty()) {
    throw Error::input("no application to profile",
                       "put it after '--', e.g. kprof run --simulate -- python3 bench.py");
  }
  const std::string name = o.name.empty() ? name_from_command(o.command.front()) : o.name;
  std::string y;
  y += "# The runbook of: " +
       (o.origin.empty() ? std::string("kprof run ... -- ") + shell_join(o.command) : o.origin) +
       "\n";
  y += "# Edit it and run it again with: kprof run THIS_FILE";
  y += o.simulate ? " --simulate\n" : "\n";
  y += "schema_version: 1\n";
  y += "name: " + json_quote(name) + "\n";
  y += "description: " + json_quote("one-line profile of " + shell_join(o.command)) + "\n\n";
  y += "workload:\n  command: " + list(o.command) + "\n\n";
  y += "target:\n  arch: " + json_quote(o.arch) + "\n\n";
  y += "passes:\n  trace:\n    enabled: true\n    stats: true\n";
  if (!o.metric_sets.empty() || !o.counters.empty()) {
    y += "  counters:\n";
    if (!o.metric_sets.empty()) y += "    metric_sets: " + list(o.metric_sets) + "\n";
    if (!o.counters.empty()) y += "    counters: " + list(o.counters) + "\n";
    if (!o.kernels.empty())
      y += "    kernels:\n      include_regex: " + json_quote(o.kernels) + "\n";
  }
  y += "\n";
  // Relative to this file's folder, which is the database's folder.
  const auto db = o.database.empty() ? std::filesystem::path(name + ".db") : o.database;
  y += "database: " + json_quote(db.filename().string()) + "\n";
  if (o.simulate) {
    y += "\n# Read only by the rocprofv3 test double (kprof run --simulate); figures are "
         "simulated.\n";
    y += "sim:\n  model: qwen3-30b-a3b-mi300x\n";
  }
  return y;
}

std::filesystem::path write_one_line_runbook(const OneLine& o) {
  const auto db = o.database.empty() ? std::filesystem::path(o.name + ".db") : o.database;
  const auto path = one_line_runbook_path(db);
  const std::string yaml = one_line_yaml(o);
  std::error_code ec;
  if (std::filesystem::exists(path, ec)) {
    // The user's edits are theirs: the file is kept whenever it says anything but what this
    // command line stands for (the header quoting the command line aside).
    const std::string old = read_input_file(path, "runbook", std::uint64_t{1} << 20);
    if (without_origin(old) == without_origin(yaml)) return path;
    throw Error::input("'" + path.string() +
                           "' differs from the runbook this command line stands for (edited, or "
                           "written for other flags); kprof leaves it as it is",
                       "run it as it is with 'kprof run " + path.string() +
                           "', give this profile a name of its own with --name or --db, or "
                           "remove the file to have it written again");
  }
  if (!path.parent_path().empty()) std::filesystem::create_directories(path.parent_path());
  write_file_atomically(path, {db}, [&](std::ostream& out) { out << yaml; });
  return path;
}

}  // namespace kprof::runbook
