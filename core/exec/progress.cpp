#include "core/exec/progress.hpp"

#include <ostream>

#include "core/base/duration.hpp"
#include "core/base/text.hpp"

namespace kprof::exec {

std::string pass_label(bool trace, long long ordinal, int counter_passes) {
  if (trace) return "trace";
  return "counters " + std::to_string(ordinal) + "/" + std::to_string(counter_passes);
}

namespace {
// "pass 2 (counters 2/3) on gpu 1": the ordinal, as `plan`, `status` and `query passes` print it.
std::string label_of(long long ordinal, bool trace, int counter_passes, int gpu) {
  return "pass " + std::to_string(ordinal) + " (" + pass_label(trace, ordinal, counter_passes) +
         ")" + (gpu >= 0 ? " on gpu " + std::to_string(gpu) : "");
}
}  // namespace

Progress::Progress(std::ostream& os, bool tty, bool quiet) : m_os(os), m_tty(tty), m_quiet(quiet) {}

std::string Progress::eta_text(std::chrono::milliseconds mean, int remaining, int parallel) {
  if (remaining <= 0 || mean.count() <= 0) return "";
  const int waves = (remaining + std::max(parallel, 1) - 1) / std::max(parallel, 1);
  return "ETA " + format_duration(mean * waves);
}

void Progress::clear_line() {
  if (m_tty && m_line_drawn) {
    m_os << "\r\x1b[K";
    m_line_drawn = false;
  }
}

void Progress::draw() {
  if (m_quiet || !m_tty) return;
  const auto now = std::chrono::steady_clock::now();
  std::string line = "[" + std::to_string(m_done) + "/" + std::to_string(m_total) + " done]";
  for (const auto& [ord, r] : m_running) {
    line += " " + r.label + " " +
            format_duration(std::chrono::duration_cast<std::chrono::milliseconds>(now - r.since));
  }
  if (m_finished_here > 0) {
    const auto mean = m_finished_time / m_finished_here;
    const std::string eta =
        eta_text(mean, m_total - m_done, static_cast<int>(std::max<size_t>(m_running.size(), 1)));
    if (!eta.empty()) line += " | " + eta;
  }
  m_os << "\r\x1b[K" << line << std::flush;
  m_line_drawn = true;
}

void Progress::message(const std::string& text) {
  if (m_quiet) return;
  clear_line();
  m_os << "kprof: " << text << "\n";
  draw();
}

void Progress::pass_started(long long ordinal, bool trace, const std::vector<std::string>& counters,
                            int gpu) {
  (void)counters;  // named in `kprof plan` and `kprof query DB passes`; too long for a label
  m_running[ordinal] = {label_of(ordinal, trace, m_counter_passes, gpu),
                        std::chrono::steady_clock::now()};
  if (m_quiet) return;
  if (!m_tty) {
    m_os << "kprof: [" << m_done << "/" << m_total << "] " << m_running[ordinal].label
         << " started\n"
         << std::flush;
  }
  draw();
}

void Progress::pass_finished(long long ordinal, const std::string& status,
                             std::chrono::milliseconds took, const std::string& reason) {
  const std::string label =
      m_running.count(ordinal) ? m_running[ordinal].label : "pass " + std::to_string(ordinal);
  m_running.erase(ordinal);
  if (status == "done") {
    ++m_done;
    ++m_finished_here;
    m_finished_time += took;
  }
  if (m_quiet) return;
  clear_line();
  m_os << "kprof: [" << m_done << "/" << m_total << "] " << label << " " << status << " in "
       << format_duration(took) << (reason.empty() ? "" : ": " + reason) << "\n"
       << std::flush;
  draw();
}

void Progress::tick() { draw(); }

void Progress::finish() { clear_line(); }

}  // namespace kprof::exec
