#include "tests/architecture/include_rules.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "core/base/text.hpp"

namespace kprof::architecture {
namespace {

namespace fs = std::filesystem;

struct Allowed {
  bool everything_in_core = false;
  // folder ("core/hw") -> files of it that may be included; empty set: any file.
  std::map<std::string, std::set<std::string>> folders;
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `| \`core/ingest\` | job | base, store (\`rows.hpp\` only) |` -> core/ingest: {core/base: {},
// core/store: {rows.hpp}}. "may use" names core folders by their short name, a subfolder by its
// path under core/ ("exec/node"); a row may be a subfolder (`core/exec/run`).
std::map<std::string, Allowed> read_table(const fs::path& architecture_md) {
  std::map<std::string, Allowed> table;
  const std::regex row(R"(^\|\s*`((?:core|apps)/[a-z0-9_/-]+)`\s*\|.*\|\s*([^|]*?)\s*\|\s*$)");
  const std::regex only(R"(^([a-z0-9_]+)\s*\(`([^`]+)`\s+only\)$)");
  std::istringstream lines(read(architecture_md));
  for (std::string line; std::getline(lines, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, row)) continue;
    Allowed a;
    const std::string uses = m[2];
    if (uses.find("everything in core/") != std::string::npos) {
      a.everything_in_core = true;
    } else if (uses != "nothing of ours") {
      for (const auto& part : split(uses, ',')) {
        const std::string word(trim(part));
        std::smatch o;
        if (std::regex_match(word, o, only))
          a.folders["core/" + o[1].str()].insert(o[2].str());
        else
          a.folders["core/" + word];
      }
    }
    table[m[1]] = a;
  }
  return table;
}

// The folder whose row rules a file: the one it is in. "core/exec/run/driver.cpp" ->
// "core/exec/run", "core/hw/target.hpp" -> "core/hw".
std::string folder_of(const std::string& relative) {
  const auto last = relative.rfind('/');
  return last == std::string::npos ? "" : relative.substr(0, last);
}

// The library a file belongs to: "core/exec/run/driver.cpp" -> "core/exec".
std::string library_of(const std::string& relative) {
  const auto first = relative.find('/');
  const auto second = relative.find('/', first + 1);
  return second == std::string::npos ? "" : relative.substr(0, second);
}

// Every line of `root`'s code and configs (core, apps, tests, bench, configs, runbooks, scripts,
// .ci; not tests/architecture, which names the patterns, nor tests/data) that `re` matches, as
// "path:line: text".
std::vector<std::string> lines_matching(const fs::path& root, const std::regex& re);

// The C++ sources of `root`'s core/ and apps/, relative to `root`.
std::vector<std::string> sources(const fs::path& root) {
  std::vector<std::string> out;
  for (const char* top : {"core", "apps"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const auto ext = e.path().extension();
      if (e.is_regular_file() && (ext == ".cpp" || ext == ".hpp" || ext == ".h"))
        out.push_back(fs::relative(e.path(), root).generic_string());
    }
  }
  return out;
}

// Whether `a` lets a file include `target`: its folder or one above it is named, with no file
// list or one that holds the target.
bool allows(const Allowed& a, const std::string& target) {
  for (const auto& [folder, files] : a.folders) {
    if (target.rfind(folder + "/", 0) != 0) continue;
    if (files.empty() || files.count(target.substr(folder.size() + 1))) return true;
  }
  return false;
}

// A subfolder's row may name only what its library's row allows, besides its siblings:
// "core/exec/run may use core/analysis, which core/exec may not".
std::vector<std::string> subfolder_violations(const std::map<std::string, Allowed>& table) {
  std::vector<std::string> out;
  for (const auto& [folder, allowed] : table) {
    if (std::count(folder.begin(), folder.end(), '/') < 2) continue;
    const std::string library = library_of(folder + "/x");
    const auto parent = table.find(library);
    if (parent == table.end()) {
      out.push_back(folder + ": its library " + library + " has no row in ARCHITECTURE.md");
      continue;
    }
    for (const auto& [used, files] : allowed.folders)
      if (used.rfind(library + "/", 0) != 0 && !allows(parent->second, used + "/x") &&
          !parent->second.folders.count(used))
        out.push_back(folder + " may use " + used + ", which " + library + " may not");
  }
  return out;
}

}  // namespace

std::vector<std::string> include_violations(const fs::path& root) {
  std::vector<std::string> out;
  const auto table = read_table(root / "ARCHITECTURE.md");
  if (table.empty()) return {"ARCHITECTURE.md: no folder table found"};
  out = subfolder_violations(table);
  const std::regex include(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
  std::set<std::string> unlisted;
  for (const std::string& rel : sources(root)) {
    const std::string from = folder_of(rel);
    auto rule = table.find(from);
    if (rule == table.end()) {
      if (unlisted.insert(from).second)
        out.push_back(from + ": not in ARCHITECTURE.md's folder table; add its row");
      continue;
    }
    std::istringstream lines(read(root / rel));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      std::smatch m;
      if (!std::regex_search(line, m, include)) continue;
      const std::string target = m[2];
      const std::string where = rel + ":" + std::to_string(n) + ": includes " + target;
      // "Boost.Process is included in core/exec/node/process_runner.cpp only" (ARCHITECTURE.md).
      if (m[1] == "<") {
        if (target.rfind("boost/process", 0) == 0 && rel != "core/exec/node/process_runner.cpp")
          out.push_back(where +
                        "; only core/exec/node/process_runner.cpp may include Boost.Process");
        continue;
      }
      const std::string to = folder_of(target);
      if (to.empty() || to == from || (to.rfind("core/", 0) != 0 && to.rfind("apps/", 0) != 0))
        continue;
      const Allowed& a = rule->second;
      if (a.everything_in_core && to.rfind("core/", 0) == 0) continue;
      if (allows(a, target)) continue;
      std::string may;
      for (const auto& [f, files] : a.folders)
        may += (may.empty() ? "" : ", ") + f + (files.empty() ? "" : " (" + *files.begin() + ")");
      out.push_back(where + "; " + from + " may use: " + (may.empty() ? "nothing of ours" : may));
    }
  }
  return out;
}

// The folders named in ARCHITECTURE.md's paragraph "- **SQL runs in** `core/store` (...), ...",
// up to the next item or blank line.
std::set<std::string> sql_folders_claimed(const fs::path& architecture_md) {
  std::set<std::string> out;
  std::istringstream lines(read(architecture_md));
  bool in = false;
  const std::regex folder(R"(`((?:core|apps)/[a-z0-9_-]+)`)");
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("- **SQL runs in**", 0) == 0)
      in = true;
    else if (in && (line.empty() || line.rfind("- ", 0) == 0))
      break;
    if (!in) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), folder), end; it != end; ++it)
      out.insert((*it)[1]);
  }
  return out;
}

std::vector<std::string> sql_violations(const fs::path& root) {
  const auto claimed = sql_folders_claimed(root / "ARCHITECTURE.md");
  if (claimed.empty()) return {"ARCHITECTURE.md: no \"- **SQL runs in**\" rule found"};
  std::vector<std::string> out;
  std::set<std::string> seen;
  const std::regex sqlite(R"(^\s*#\s*include\s*<(sqlite3\.h|SQLiteCpp/[^>]+)>)");
  const std::regex statement(
      R"re("(SELECT|INSERT INTO|INSERT OR|UPDATE|DELETE FROM|CREATE (TABLE|VIEW|INDEX)|PRAGMA) )re");
  for (const std::string& rel : sources(root)) {
    const std::string from = library_of(rel);
    const bool in_core = rel.rfind("core/", 0) == 0;
    std::istringstream lines(read(root / rel));
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      std::smatch m;
      std::string what;
      if (std::regex_search(line, m, sqlite))
        what = "includes " + m[1].str();
      else if (in_core && std::regex_search(line, m, statement))
        what = "has the SQL statement \"" + m[1].str() + " ...\"";
      else
        continue;
      seen.insert(from);
      if (!claimed.count(from))
        out.push_back(rel + ":" + std::to_string(n) + ": " + what +
                      "; SQL runs only in the folders ARCHITECTURE.md names (" +
                      join(std::vector<std::string>(claimed.begin(), claimed.end()), ", ") + ")");
    }
  }
  for (const auto& f : claimed)
    if (!seen.count(f))
      out.push_back(f + ": ARCHITECTURE.md says SQL runs here, but no file includes SQLite");
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> private_citations(const fs::path& root) {
  return lines_matching(root, std::regex(R"(\bfacts\b)", std::regex::icase));
}

std::vector<std::string> outside_paths(const fs::path& root) {
  return lines_matching(root, std::regex(R"(\.\./shared\b|KPROF_SHARED_DIR|/work/)"));
}

namespace {

std::vector<std::string> lines_matching(const fs::path& root, const std::regex& cite) {
  std::vector<std::string> out;
  const std::set<std::string> exts = {".cpp", ".hpp", ".h", ".yaml", ".py", ".sql", ".txt", ".sh"};
  for (const char* top :
       {"core", "apps", "tests", "bench", "configs", "runbooks", "scripts", ".ci"}) {
    if (!fs::is_directory(root / top)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / top)) {
      const std::string rel = fs::relative(e.path(), root).generic_string();
      if (!e.is_regular_file() || rel.rfind("tests/architecture/", 0) == 0 ||
          rel.rfind("tests/data/", 0) == 0)
        continue;
      const std::string name = e.path().filename().string();
      if (!exts.count(e.path().extension().string()) && name != "CMakeLists.txt" &&
          rel.rfind("scripts/", 0) != 0 && rel.rfind(".ci/", 0) != 0)
        continue;
      std::istringstream lines(read(e.path()));
      int n = 0;
      for (std::string line; std::getline(lines, line);) {
        ++n;
        if (std::regex_search(line, cite))
          out.push_back(rel + ":" + std::to_string(n) + ": " + std::string(trim(line)));
      }
    }
  }
  return out;
}

}  // namespace

}  // namespace kprof::architecture
