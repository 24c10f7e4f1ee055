// The driver's state transitions (driver_loop.hpp): how an attempt ended becomes the pass's next
// state (done with its rows in one transaction, planned again for a retry, failed, interrupted),
// and the run's final status.
#include <algorithm>
#include <fstream>

#include "core/base/crash_point.hpp"
#include "core/base/duration.hpp"
#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/exec/passes/pass_ingest.hpp"
#include "core/exec/passes/rank_check.hpp"
#include "core/exec/profiler/failure.hpp"
#include "core/exec/run/driver_loop.hpp"
#include "core/ingest/group_check.hpp"
#include "core/store/pass_ranks.hpp"

namespace kprof::exec::driver_detail {

using store::PassKind;
using store::PassState;

// Records how an attempt ended; returns the job when it is to be retried.
std::optional<Job> Driver::handle(Finished& f) {
  crash_point("run.pass_exited");
  Job& j = f.job;
  store::PassTransition t;
  if (f.launch_error) {
    t.state = PassState::failed;
    t.reason = *f.launch_error;
    m_db.set_pass_state(j.pass_id, t);
    m_progress.pass_finished(j.ordinal, "failed", std::chrono::milliseconds(0), *f.launch_error);
    return std::nullopt;
  }
  const RunResult& r = f.result;
  if (r.signal == 0) t.exit_code = r.exit_code;
  if (r.signal != 0) t.signal = r.signal;
  t.log_excerpt = r.log_tail;
  Failure failure = m_backend.classify(r, j.request);
  if (failure.kind == FailureKind::none) {
    // The attempt's rows and its `done` are one transaction: a kill -9 between them would leave
    // a `running` pass holding rows. A capture judged empty or unreadable is rolled back whole,
    // so the pass holds nothing it did not measure. The PassLoader loads in a savepoint of it.
    store::WriteTransaction tx(m_db, store::WriteKind::bulk_load);
    std::string note;
    failure = load_and_judge(j, f.slot, note);
    if (failure.kind == FailureKind::none) {
      t.state = PassState::done;
      std::string reason =
          j.last_failure.empty()
              ? std::string()
              : "succeeded on attempt " + std::to_string(j.tries) + " after: " + j.last_failure;
      if (!note.empty()) {
        reason += (reason.empty() ? "" : "; ") + note;
        std::ofstream(pass_log(m_rb, m_run_id, j.ordinal), std::ios::app)
            << "kprof: " << note << "\n";
      }
      t.reason = reason;
      m_db.set_pass_state(j.pass_id, t);
      tx.commit();
      crash_point("commit.pass_done");
      m_progress.pass_finished(j.ordinal, "done", r.duration, "");
      return std::nullopt;
    }
    // Judged empty or unreadable: `tx` rolls the attempt's rows back as it goes out of scope.
  }
  if (failure.kind == FailureKind::interrupted) {
    // Ended by the user (Ctrl-C, SIGTERM to kprof), not by the pass: the attempt is not
    // counted, so `attempts` and the retry budget count only attempts that ran to their end.
    t.state = PassState::interrupted;
    t.reason = failure.reason;
    if (const auto info = m_db.find_pass(j.pass_id); info && info->attempts > 0)
      t.attempts = info->attempts - 1;
    std::ofstream(pass_log(m_rb, m_run_id, j.ordinal), std::ios::app)
        << "kprof: " << failure.reason << ": stopped by the user, not counted as an attempt\n";
    m_db.set_pass_state(j.pass_id, t);
    m_progress.pass_finished(j.ordinal, "interrupted", r.duration, failure.reason);
    return std::nullopt;
  }
  const int max_tries = std::max(1, m_rb.retry.attempts.value);
  if (failure.kind == FailureKind::transient && j.tries < max_tries && !interrupt_signal()) {
    const auto backoff = m_rb.retry.backoff.value;
    t.state = PassState::planned;
    t.reason = "attempt " + std::to_string(j.tries) + " failed (" + failure.reason +
               "), retrying after " + format_duration(backoff);
    m_db.set_pass_state(j.pass_id, t);
    m_progress.pass_finished(j.ordinal, "retry", r.duration, *t.reason);
    j.not_before = Clock::now() + backoff;
    j.last_failure = failure.reason;
    return std::move(j);
  }
  t.state = PassState::failed;
  t.reason = failure.reason +
             (failure.kind == FailureKind::deterministic ? std::string(k_not_retried) : "");
  m_db.set_pass_state(j.pass_id, t);
  m_progress.pass_finished(j.ordinal, "failed", r.duration, *t.reason);
  return std::nullopt;
}

// A rotated pass that cannot be planned on this trace: nothing is launched.
void Driver::fail_unplannable(const store::PassInfo& p, const std::string& why) {
  store::PassTransition t;
  t.state = PassState::failed;
  t.reason = why + std::string(k_not_retried);
  m_db.set_pass_state(p.id, t);
  m_progress.pass_finished(p.ordinal, "failed", std::chrono::milliseconds(0), *t.reason);
}

Failure Driver::load_and_judge(const Job& j, size_t slot, std::string& note) {
  try {
    ingest(j);
    const auto& ranks = m_rb.workload.ranks;
    const Failure capture = judge_capture(m_db.row_counts(j.pass_id), j.kind,
                                          m_rb.profiler.selected_regions.value, ranks.value);
    if (capture.kind != FailureKind::none) return capture;
    // The ranks are read in the transaction that loaded them: a pass missing one is never done.
    const RankCheck r =
        judge_ranks(store::pass_ranks(m_db, j.pass_id), m_db.agents(j.pass_id),
                    ranks.from_file ? std::optional<int>(ranks.value) : std::nullopt,
                    slot < m_slots.size() ? m_slots[slot] : std::vector<int>{},
                    "kprof resume --retry-failed " + shell_quote(m_db.path().string()));
    note = r.note;
    return r.failure;
  } catch (const ingest::GroupMismatch& e) {
    // Readable output whose groups cannot be told apart: the same command gives the same.
    return {FailureKind::deterministic, e.what()};
  } catch (const Error& e) {
    // The profiler exited 0 but left unreadable or no output (a crash in its finalizer, a
    // full disk): another attempt may write it whole.
    return {FailureKind::transient, std::string("ingest failed: ") + e.what()};
  }
}

// The files of an attempt whose profiler exited 0, loaded into its pass (pass_ingest.hpp), kept
// to the region as region_cut() says.
void Driver::ingest(const Job& j) {
  std::optional<RegionContext> region;
  const RegionCut cut = region_cut(j.kind, m_rb, m_backend);
  const auto log = pass_log(m_rb, m_run_id, j.ordinal);
  if (cut == RegionCut::trace) {
    for (const auto& p : m_db.list_passes(m_run_id))
      if (p.kind == PassKind::trace && p.state == PassState::done)
        region = RegionContext{false, p.id, log, m_backend.version().summary()};
  }
  if (cut == RegionCut::markers)
    region = RegionContext{true, 0, log, m_backend.version().summary()};
  ingest_attempt(m_db, j.pass_id, pass_dir(m_rb, m_run_id, j.ordinal), region, j.groups);
}

ExecResult Driver::finish() {
  ExecResult res;
  res.run_id = m_run_id;
  res.db = m_db.path();
  res.simulated = m_backend.simulated();
  for (const auto& p : m_db.list_passes(m_run_id)) {
    ++res.passes;
    if (p.state == PassState::done) ++res.done;
    if (p.state == PassState::failed) ++res.failed;
    if (p.state == PassState::interrupted) ++res.interrupted;
  }
  if (const int sig = interrupt_signal()) {
    res.status = store::RunStatus::interrupted;
    res.exit_code = 128 + sig;
  } else if (res.done == res.passes) {
    res.status = store::RunStatus::done;
  } else {
    res.status = store::RunStatus::failed;
    res.exit_code = 1;
  }
  crash_point("commit.run_status");
  m_db.set_run_status(m_run_id, res.status);
  m_progress.finish();
  return res;
}

}  // namespace kprof::exec::driver_detail
