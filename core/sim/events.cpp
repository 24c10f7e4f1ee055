#include "core/sim/events.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace kprof::sim {

AppEvents read_app_events(const std::filesystem::path& file) {
  AppEvents ev;
  std::ifstream in(file);
  if (!in) return ev;
  std::map<pid_t, int> depth;  // resume minus pause, per process (0 = paused)
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    long long pid = 0;
    std::string what;
    if (!(ls >> pid >> what)) continue;
    ev.any = true;
    const pid_t p = static_cast<pid_t>(pid);
    if (what == "resume") {
      // rocprofv3 does not count nested resumes unless --selected-regions-ref-count: the first
      // resume starts the contexts, the first pause stops them (tool.cpp, cntrl_tracing_callback).
      depth[p] = 1;
      if (std::find(ev.resumed.begin(), ev.resumed.end(), p) == ev.resumed.end())
        ev.resumed.push_back(p);
    } else if (what == "pause") {
      depth[p] = 0;
    } else if (what == "rank") {
      RankEvent r;
      r.pid = p;
      std::string gpu_word, ppid_word;
      long long ppid = 0;
      ls >> r.rank >> r.size >> gpu_word >> r.device >> ppid_word >> ppid;
      r.ppid = static_cast<pid_t>(ppid);
      ev.ranks.push_back(r);
    } else if (what == "work") {
      WorkEvent w;
      w.pid = p;
      std::string kind;
      ls >> kind >> w.tokens;
      std::getline(ls, w.detail);
      w.region_active = depth[p] > 0;
      ev.work.push_back(w);
    }
  }
  return ev;
}

}  // namespace kprof::sim
