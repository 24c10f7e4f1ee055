#include "core/exec/node/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <ostream>

#include "core/base/duration.hpp"
#include "core/base/table.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

using std::chrono::milliseconds;

std::string pass_label(bool trace, long long ordinal, int counter_passes) {
  if (trace) return "trace";
  return "counters " + std::to_string(ordinal) + "/" + std::to_string(counter_passes);
}

namespace {
// "pass 2 (counters 2/3) on gpu 1" (or "on gpus 4,5,6,7"): the ordinal, as `plan`, `status` and
// `query passes` print it.
std::string label_of(long long ordinal, bool trace, int counter_passes,
                     const std::vector<int>& gpus) {
  std::string on;
  for (int g : gpus) on += (on.empty() ? "" : ",") + std::to_string(g);
  return "pass " + std::to_string(ordinal) + " (" + pass_label(trace, ordinal, counter_passes) +
         ")" + (gpus.empty() ? "" : (gpus.size() == 1 ? " on gpu " : " on gpus ") + on);
}
}  // namespace

Progress::Progress(std::ostream& os, bool tty, bool quiet, Clock now)
    : m_os(os),
      m_tty(tty),
      m_quiet(quiet),
      m_now(now ? std::move(now) : Clock([] { return std::chrono::steady_clock::now(); })) {}

void Progress::add_finished_before(milliseconds took) {
  m_finished_time += took;
  ++m_finished;
}

void Progress::set_earlier_run(const std::vector<milliseconds>& took, long long run_id) {
  m_earlier = took;
  m_earlier_run = run_id;
}

std::optional<milliseconds> Progress::per_pass() const {
  if (m_finished > 0) return m_finished_time / m_finished;
  if (m_earlier.empty()) return std::nullopt;
  milliseconds sum{0};
  for (auto d : m_earlier) sum += d;
  return sum / static_cast<long long>(m_earlier.size());
}

std::string Progress::eta() const {
  const int left = m_to_run >= 0 ? m_to_run - m_ended_here : m_total - m_done;
  if (left <= 0) return "";
  const auto est = per_pass();
  if (!est) return "ETA unknown (no pass of this runbook has finished yet)";
  // List scheduling: each slot is free after its running pass's estimate less its elapsed time;
  // the counter passes wait for a running trace pass; each queued pass takes the slot free first.
  const auto now = m_now();
  bool past_estimate = false;
  milliseconds trace_left{0};
  std::vector<milliseconds> slots;
  for (const auto& [ord, r] : m_running) {
    milliseconds rest = *est - std::chrono::duration_cast<milliseconds>(now - r.since);
    if (rest.count() < 0) {
      rest = milliseconds(0);
      past_estimate = true;
    }
    if (r.trace)
      trace_left = std::max(trace_left, rest);
    else
      slots.push_back(rest);
  }
  while (slots.size() < static_cast<size_t>(m_slots)) slots.push_back(milliseconds(0));
  for (auto& s : slots) s = std::max(s, trace_left);
  const int queued = std::max(0, left - static_cast<int>(m_running.size()));
  for (int q = 0; q < queued; ++q) *std::min_element(slots.begin(), slots.end()) += *est;
  const milliseconds total = std::max(*std::max_element(slots.begin(), slots.end()), trace_left);
  return std::string(past_estimate ? "ETA at least " : "ETA ") + format_duration(total) +
         (m_finished == 0 ? " (from run " + std::to_string(m_earlier_run) + "'s passes)" : "");
}

void Progress::clear_line() {
  if (m_tty && m_line_drawn) {
    m_os << "\r\x1b[K";
    m_line_drawn = false;
  }
}

void Progress::draw() {
  if (m_quiet || !m_tty) return;
  const auto now = m_now();
  std::string line = "[" + std::to_string(m_done) + "/" + std::to_string(m_total) + " done]";
  for (const auto& [ord, r] : m_running)
    line += " " + r.label + " " +
            format_duration(std::chrono::duration_cast<milliseconds>(now - r.since));
  const std::string e = eta();
  if (!e.empty()) line += " | " + e;
  m_os << "\r\x1b[K" << line << std::flush;
  m_line_drawn = true;
}

void Progress::message(const std::string& text) {
  if (m_quiet) return;
  clear_line();
  // On a terminal the message wraps at its width (stdout is the terminal m_tty is about).
  m_os << (m_tty ? note_line(text, STDOUT_FILENO) : "kprof: " + text) << "\n";
  draw();
}

void Progress::pass_started(long long ordinal, bool trace, const std::vector<std::string>& counters,
                            const std::vector<int>& gpus) {
  (void)counters;  // named in `kprof plan` and `kprof query DB passes`; too long for a label
  m_running[ordinal] = {label_of(ordinal, trace, m_counter_passes, gpus), trace, m_now()};
  if (m_quiet) return;
  if (!m_tty) {
    m_os << "kprof: [" << m_done << "/" << m_total << "] " << m_running[ordinal].label
         << " started\n"
         << std::flush;
  }
  draw();
}

void Progress::pass_finished(long long ordinal, const std::string& status, milliseconds took,
                             const std::string& reason) {
  const std::string label =
      m_running.count(ordinal) ? m_running[ordinal].label : "pass " + std::to_string(ordinal);
  m_running.erase(ordinal);
  if (status == "done") {
    ++m_done;
    ++m_finished;
    m_finished_time += took;
  }
  if (status != "retry") ++m_ended_here;
  if (m_quiet) return;
  clear_line();
  m_os << "kprof: [" << m_done << "/" << m_total << "] " << label << " " << status << " in "
       << format_duration(took) << (reason.empty() ? "" : ": " + reason);
  // Plain output (logs, CI) has no live line: each finished pass says what is left.
  if (!m_tty && status == "done") {
    const std::string e = eta();
    if (!e.empty()) m_os << "; " << e;
  }
  m_os << "\n" << std::flush;
  draw();
}

void Progress::tick() { draw(); }

void Progress::finish() { clear_line(); }

}  // namespace kprof::exec
