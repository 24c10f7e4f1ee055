#include "core/exec/node/captures_owner.hpp"

#include <fstream>

#include "core/base/error.hpp"
#include "core/base/output_file.hpp"

namespace kprof::exec {

namespace fs = std::filesystem;

namespace {

fs::path normal(const fs::path& p) {
  std::error_code ec;
  const fs::path abs = fs::absolute(p, ec);
  return (ec ? p : abs).lexically_normal();
}

bool same_database(const fs::path& a, const fs::path& b) {
  if (normal(a) == normal(b)) return true;
  std::error_code ec;
  return fs::equivalent(a, b, ec);  // another spelling of one file (a link, a bind mount)
}

}  // namespace

std::optional<fs::path> captures_owner(const fs::path& captures) {
  std::ifstream in(captures / k_captures_marker);
  if (!in) return std::nullopt;
  std::string line;
  std::getline(in, line);
  if (line.empty()) return std::nullopt;
  return fs::path(line);
}

void check_captures_free(const fs::path& captures, const fs::path& database) {
  const auto owner = captures_owner(captures);
  if (!owner || same_database(*owner, database)) return;
  std::error_code ec;
  if (fs::exists(*owner, ec)) {
    throw Error::input(
        "captures folder '" + captures.string() + "' belongs to database '" + owner->string() +
            "' (its " + k_captures_marker + " says so); a run of '" + database.string() +
            "' would overwrite that database's pass folders",
        "give this run a database of its own name with --db (its captures go beside it as "
        "<db stem>-captures), or set 'captures:' in the runbook to a folder of its own");
  }
}

void claim_captures(const fs::path& captures, const fs::path& database) {
  const auto owner = captures_owner(captures);
  if (owner && same_database(*owner, database)) return;
  check_captures_free(captures, database);
  std::error_code ec;
  fs::create_directories(captures, ec);
  if (ec)
    throw Error::input("cannot create captures folder '" + captures.string() + "': " + ec.message(),
                       "check the folder's permissions, or give --db a path you can write");
  write_file_atomically(captures / k_captures_marker, {database},
                        [&](std::ostream& out) { out << normal(database).string() << "\n"; });
}

}  // namespace kprof::exec
