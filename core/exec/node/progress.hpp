// Progress of a run: on a terminal one live line (passes done/total, what runs and for how long,
// an ETA); otherwise one plain line per event, for logs and CI.
//
// The ETA is made from a duration per pass: the mean of the passes this run has finished (here
// or, on resume, by the earlier kprof), else of an earlier run of the same runbook in the same
// database; with none of those it says that no estimate exists yet. It counts down within a pass
// (the estimate less the elapsed time of each running pass) and is there during the trace pass
// too, which the counter passes wait for.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kprof::exec {

// The one name of a pass in every message: "trace" for ordinal 0, "counters 2/3" for the second
// of three counter passes (ordinal 2).
std::string pass_label(bool trace, long long ordinal, int counter_passes);

class Progress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;
  // `now` replaces the steady clock in tests.
  Progress(std::ostream& os, bool tty, bool quiet, Clock now = {});

  void set_total(int passes, int counter_passes) {
    m_total = passes;
    m_counter_passes = counter_passes;
  }
  // How many passes this kprof is to run (the planned ones) and how many at once (--gpus).
  void set_work(int to_run, int slots) {
    m_to_run = to_run;
    m_slots = std::max(slots, 1);
  }
  void count_done_before() { ++m_done; }  // a pass done by an earlier kprof (resume)
  // A duration of a finished pass of this run (done by an earlier kprof): part of the estimate.
  void add_finished_before(std::chrono::milliseconds took);
  // Durations of an earlier run of the same runbook: the estimate until a pass of this run ends.
  void set_earlier_run(const std::vector<std::chrono::milliseconds>& took, long long run_id);
  void message(const std::string& text);
  // gpus: the pass's --gpus slot; empty: no --gpus.
  void pass_started(long long ordinal, bool trace, const std::vector<std::string>& counters,
                    const std::vector<int>& gpus);
  // status: done | failed | retry | interrupted.
  void pass_finished(long long ordinal, const std::string& status, std::chrono::milliseconds took,
                     const std::string& reason);
  void tick();  // redraws the live line (elapsed times move, the ETA counts down)
  void finish();

  // "ETA 1m30s", "ETA at least 20s" (a running pass is past the estimate), or "ETA unknown (...)"
  // with the reason; "" when nothing is left.
  std::string eta() const;

 private:
  struct Running {
    std::string label;
    bool trace = false;
    std::chrono::steady_clock::time_point since;
  };
  void draw();
  void clear_line();
  std::optional<std::chrono::milliseconds> per_pass() const;

  std::ostream& m_os;
  bool m_tty;
  bool m_quiet;
  Clock m_now;
  int m_total = 0;
  int m_counter_passes = 0;
  int m_done = 0;
  int m_to_run = -1;  // -1: not told; every pass not done is taken as left
  int m_slots = 1;
  int m_ended_here = 0;  // passes this kprof finished for good (done, failed, interrupted)
  std::chrono::milliseconds m_finished_time{0};
  int m_finished = 0;
  std::vector<std::chrono::milliseconds> m_earlier;
  long long m_earlier_run = 0;
  std::map<long long, Running> m_running;
  bool m_line_drawn = false;
};

}  // namespace kprof::exec
