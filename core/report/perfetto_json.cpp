// The JSON pieces of the Perfetto export (perfetto_json.hpp).
#include "core/report/perfetto_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "core/base/text.hpp"

namespace kprof::report::perfetto_json {
namespace {

using nlohmann::json;

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string dims(const int64_t v[3]) {
  return std::to_string(v[0]) + "x" + std::to_string(v[1]) + "x" + std::to_string(v[2]);
}

}  // namespace

void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[64];
  out.append(buf, nlohmann::detail::to_chars(buf, buf + sizeof buf, v));
}

void append_us(std::string& out, int64_t ns) {
  const int64_t whole = ns / 1000, frac = ns % 1000;
  int64_t f = frac;
  if (ns < 0 && frac != 0) {
    out += '-';
    append_int(out, -(ns / 1000));
    f = -frac;
  } else {
    append_int(out, whole);
  }
  const char digits[4] = {'.', static_cast<char>('0' + f / 100),
                          static_cast<char>('0' + f / 10 % 10), static_cast<char>('0' + f % 10)};
  out.append(digits, 4);
}

void Writer::event(const std::string& name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
                   int64_t dur_ns, const std::string& cat, const std::string& args) {
  event_quoted(json_quote(name), ph, pid, tid, ts_ns, dur_ns, cat.empty() ? "" : json_quote(cat),
               args);
}

void Writer::name_process(int64_t pid, const std::string& name, int sort) {
  event("process_name", "M", pid, 0, 0, 0, "", dump(json{{"name", name}}));
  event("process_sort_index", "M", pid, 0, 0, 0, "", dump(json{{"sort_index", sort}}));
}

void Writer::name_thread(int64_t pid, int64_t tid, const std::string& name, int sort) {
  event("thread_name", "M", pid, tid, 0, 0, "", dump(json{{"name", name}}));
  event("thread_sort_index", "M", pid, tid, 0, 0, "", dump(json{{"sort_index", sort}}));
}

int64_t Tracks::place(Writer& w, int64_t pid, int64_t agent, int64_t queue, int64_t start,
                      int64_t end, int64_t& new_lanes) {
  auto& lanes = m_lanes[{pid, agent, queue}];
  size_t lane = 0;
  while (lane < lanes.size() && lanes[lane].second > start) ++lane;
  if (lane == lanes.size()) {
    const int64_t tid = ++m_next_tid;
    lanes.push_back({tid, end});
    if (lane > 0) ++new_lanes;
    std::string name = "agent " + std::to_string(agent) + " queue " + std::to_string(queue) +
                       (lane ? " (overlap " + std::to_string(lane) + ")" : "");
    w.name_thread(pid, tid, name, static_cast<int>(tid));
  } else {
    lanes[lane].second = end;
  }
  return lanes[lane].first;
}

uint32_t Kernels::id(const std::string& name) {
  auto [it, added] = m_ids.try_emplace(name, static_cast<uint32_t>(m_names.size()));
  if (added) {
    m_names.push_back(name);
    m_families.push_back(m_rules.family_of(name));
    m_quoted_names.push_back(json_quote(m_names.back()));
    m_quoted_families.push_back(json_quote(m_families.back()));
  }
  return it->second;
}

const std::string& QuotedNames::of(const analysis::NameTable& table, uint32_t id) {
  while (m_quoted.size() <= id)
    m_quoted.push_back(json_quote(table.name(static_cast<uint32_t>(m_quoted.size()))));
  return m_quoted[id];
}

const std::string& QuotedWords::of(std::string_view s) {
  auto it = m_quoted.find(s);
  if (it == m_quoted.end()) it = m_quoted.emplace(std::string(s), json_quote(s)).first;
  return it->second;
}

uint32_t Variants::of(const store::DispatchRow& r, uint32_t name, const std::string& family) {
  const Key key{r.kernel_id, name,  r.grid_x,  r.grid_y, r.grid_z, r.wg_x, r.wg_y,
                r.wg_z,      r.lds, r.scratch, r.vgpr,   r.agpr,   r.sgpr};
  auto [it, added] = m_index.try_emplace(key, static_cast<uint32_t>(m_list.size()));
  if (added) {
    m_list.push_back({static_cast<int>(m_list.size()) + 1,
                      name,
                      {r.grid_x, r.grid_y, r.grid_z},
                      {r.wg_x, r.wg_y, r.wg_z},
                      {},
                      {},
                      {}});
    m_list.back().grid_quoted = json_quote(dims(m_list.back().grid));
    m_list.back().wg_quoted = json_quote(dims(m_list.back().wg));
    m_list.back().short_quoted = json_quote(family + " v" + std::to_string(m_list.back().index));
  }
  return it->second;
}

}  // namespace kprof::report::perfetto_json
