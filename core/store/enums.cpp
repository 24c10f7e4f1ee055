// Spellings of the store's enums; they must match the CHECK constraints in schema/0001_init.sql.
#include <chrono>

#include "core/base/error.hpp"
#include "core/store/capture_db.hpp"

namespace kprof::store {

int64_t now_unix_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

std::string_view to_string(RunStatus s) {
  switch (s) {
    case RunStatus::running:
      return "running";
    case RunStatus::done:
      return "done";
    case RunStatus::failed:
      return "failed";
    case RunStatus::interrupted:
      return "interrupted";
  }
  return "?";
}

std::string_view to_string(PassKind k) { return k == PassKind::trace ? "trace" : "counters"; }

std::string_view to_string(PassState s) {
  switch (s) {
    case PassState::planned:
      return "planned";
    case PassState::running:
      return "running";
    case PassState::done:
      return "done";
    case PassState::failed:
      return "failed";
    case PassState::interrupted:
      return "interrupted";
  }
  return "?";
}

namespace {
[[noreturn]] void corrupt(std::string_view what, std::string_view value) {
  throw Error::runtime(
      "corrupt capture database: unknown " + std::string(what) + " '" + std::string(value) + "'",
      "the schema's CHECK constraints forbid it; was the file edited by hand?");
}
}  // namespace

RunStatus parse_run_status(std::string_view s) {
  for (auto v : {RunStatus::running, RunStatus::done, RunStatus::failed, RunStatus::interrupted}) {
    if (to_string(v) == s) return v;
  }
  corrupt("run status", s);
}

PassKind parse_pass_kind(std::string_view s) {
  for (auto v : {PassKind::trace, PassKind::counters}) {
    if (to_string(v) == s) return v;
  }
  corrupt("pass kind", s);
}

PassState parse_pass_state(std::string_view s) {
  for (auto v : {PassState::planned, PassState::running, PassState::done, PassState::failed,
                 PassState::interrupted}) {
    if (to_string(v) == s) return v;
  }
  corrupt("pass state", s);
}

}  // namespace kprof::store
