// Progress of a run: on a terminal one live line (passes done/total, what runs, elapsed, an ETA
// from the passes finished so far); otherwise one plain line per event, for logs and CI.
#pragma once

#include <chrono>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace kprof::exec {

// The one name of a pass in every message: "trace" for ordinal 0, "counters 2/3" for the second
// of three counter passes (ordinal 2).
std::string pass_label(bool trace, long long ordinal, int counter_passes);

class Progress {
 public:
  Progress(std::ostream& os, bool tty, bool quiet);

  void set_total(int passes, int counter_passes) {
    m_total = passes;
    m_counter_passes = counter_passes;
  }
  void count_done_before() { ++m_done; }  // a pass done by an earlier kprof (resume)
  void message(const std::string& text);
  // gpu < 0: no --gpus.
  void pass_started(long long ordinal, bool trace, const std::vector<std::string>& counters,
                    int gpu);
  // status: done | failed | retry | interrupted.
  void pass_finished(long long ordinal, const std::string& status, std::chrono::milliseconds took,
                     const std::string& reason);
  void tick();  // redraws the live line (elapsed times move)
  void finish();

  // "ETA 1m30s" from the mean duration of finished passes, remaining passes and slots in use.
  static std::string eta_text(std::chrono::milliseconds mean, int remaining, int parallel);

 private:
  struct Running {
    std::string label;
    std::chrono::steady_clock::time_point since;
  };
  void draw();
  void clear_line();

  std::ostream& m_os;
  bool m_tty;
  bool m_quiet;
  int m_total = 0;
  int m_counter_passes = 0;
  int m_done = 0;
  std::chrono::milliseconds m_finished_time{0};
  int m_finished_here = 0;
  std::map<long long, Running> m_running;
  bool m_line_drawn = false;
};

}  // namespace kprof::exec
