// The JSON pieces of the Perfetto export (perfetto.cpp), not part of the report API: numbers as
// nlohmann's dump writes them, the event writer, the tracks of overlapping dispatches, and the
// export's caches of kernel names, variants and quoted strings.
//
// The slices are written as text straight into a buffer: building an nlohmann object per slice
// and dumping it cost more than the rest of the export together (perf, 1M dispatches with
// counters). What is written is what nlohmann's dump wrote: keys in its object order (std::map,
// sorted), strings through json_quote (nlohmann, error_handler replace), integers in decimal,
// doubles through nlohmann's own float formatting (append_double).
#pragma once

#include <charconv>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/analysis/structure/capture.hpp"
#include "core/analysis/structure/family.hpp"
#include "core/store/rows.hpp"

namespace kprof::report::perfetto_json {

inline void append_int(std::string& out, int64_t v) {
  char buf[24];
  out.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
}

// nlohmann's serializer::dump_float: null for NaN/inf, else its Grisu2 shortest round trip.
// nlohmann::detail::to_chars is the library's internal function (include/nlohmann/detail/
// conversions/to_chars.hpp, nlohmann-json3-dev 3.11.2 in Debian 12), called so that the numbers
// stay byte for byte what json::dump wrote before: std::to_chars (Ryu) is always shortest and
// writes "8273" where Grisu2 via dump writes "8273.0". ctest -R SliceArgsAreWhatNlohmannsDumpWrites
// checks every slice's args against dump.
void append_double(std::string& out, double v);

// Microseconds with nanosecond digits ("%" PRId64 ".%03" PRId64, minus sign first when the
// fraction is negative), from nanoseconds relative to the pass's first start. Perfetto reads such
// a number as a double (google/perfetto src/trace_processor/util/json_parser.h
// internal::StringToDouble: integer part + fraction as doubles) and then llround(v * 1000) ns
// (importers/json/json_trace_tokenizer.cc CoerceToTs), which gives back the exact nanoseconds only
// below 2^51 ns, 26 days (the sum's and the product's roundings stay under 0.37 ns there; that
// arithmetic run on random values: about one in a hundred off by 1 ns between 2^51 and 2^52, up to
// 250 ns off at an epoch clock's 1.7e18 ns). rocprofv3's timestamps are of a boot-relative clock,
// as large as the host's uptime: the real captures of tests/data/captures start between 1.8e13 and
// 2.4e15 ns, the last already past 2^51. So ts is written relative to the pass's first start
// (PerfettoOutline::base_ns), which keeps it small and exact, and never negative (Perfetto's
// sorter drops a negative ts: src/trace_processor/sorter/trace_sorter.h TraceSorter::Stream::Push,
// stat trace_sorter_negative_timestamp_dropped).
void append_us(std::string& out, int64_t ns);

class Writer {
 public:
  explicit Writer(std::ostream& os) : m_os(os) {}
  // One event object; `args` is a JSON object's text, or empty for none.
  void event(const std::string& name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
             int64_t dur_ns, const std::string& cat, const std::string& args);
  // The same with the name and the category (empty: none) already through json_quote.
  void event_quoted(std::string_view name, const char* ph, int64_t pid, int64_t tid, int64_t ts_ns,
                    int64_t dur_ns, std::string_view cat, std::string_view args) {
    std::string& b = m_buf;
    b += m_first ? "\n{\"name\":" : ",\n{\"name\":";
    b += name;
    b += ",\"ph\":\"";
    b += ph;
    b += "\",\"pid\":";
    append_int(b, pid);
    b += ",\"tid\":";
    append_int(b, tid);
    if (!cat.empty()) {
      b += ",\"cat\":";
      b += cat;
    }
    if (ph[0] == 'X') {
      b += ",\"ts\":";
      append_us(b, ts_ns);
      b += ",\"dur\":";
      append_us(b, dur_ns);
    }
    if (ph[0] == 'i') {  // an instant event on its thread's track ("s":"t")
      b += ",\"ts\":";
      append_us(b, ts_ns);
      b += ",\"s\":\"t\"";
    }
    if (!args.empty()) {
      b += ",\"args\":";
      b += args;
    }
    b += '}';
    m_first = false;
    if (b.size() >= k_flush_bytes) flush();
  }
  // Hands the buffered text to the stream (done every k_flush_bytes and at the end).
  void flush() {
    m_os.write(m_buf.data(), static_cast<std::streamsize>(m_buf.size()));
    m_buf.clear();
  }
  void name_process(int64_t pid, const std::string& name, int sort);
  void name_thread(int64_t pid, int64_t tid, const std::string& name, int sort);

 private:
  static constexpr size_t k_flush_bytes = 1 << 16;
  std::ostream& m_os;
  std::string m_buf;
  bool m_first = true;
};

// Threads of one process: (agent, queue, lane) -> tid, with the lane's last end time.
class Tracks {
 public:
  // The thread for a dispatch on (agent, queue) that starts at `start` and ends at `end`: the first
  // lane of that queue whose last dispatch has ended. In start order the fewest lanes; in any
  // order the slices of a lane never overlap.
  int64_t place(Writer& w, int64_t pid, int64_t agent, int64_t queue, int64_t start, int64_t end,
                int64_t& new_lanes);

 private:
  std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> m_lanes;
  int64_t m_next_tid = 1;  // tid 1: the phases-and-steps thread
};

// Kernel names met in the stream, each once, with its family.
class Kernels {
 public:
  explicit Kernels(const analysis::FamilyRules& rules) : m_rules(rules) {}
  uint32_t id(const std::string& name);
  const std::string& name(uint32_t id) const { return m_names[id]; }
  const std::string& family(uint32_t id) const { return m_families[id]; }
  // The same as JSON strings (json_quote), made once per kernel name.
  const std::string& quoted_name(uint32_t id) const { return m_quoted_names[id]; }
  const std::string& quoted_family(uint32_t id) const { return m_quoted_families[id]; }

 private:
  const analysis::FamilyRules& m_rules;
  std::unordered_map<std::string, uint32_t> m_ids;
  std::vector<std::string> m_names, m_families, m_quoted_names, m_quoted_families;
};

// json_quote of the names of one name table (counter names), made once per name.
class QuotedNames {
 public:
  const std::string& of(const analysis::NameTable& table, uint32_t id);

 private:
  std::vector<std::string> m_quoted;
};

// json_quote of a few distinct strings (phases, FLOP types), made once each.
class QuotedWords {
 public:
  const std::string& of(std::string_view s);

 private:
  std::map<std::string, std::string, std::less<>> m_quoted;
};

// A variant as the trace model numbers them (analysis::build_trace_model): a distinct (Kernel_Id,
// name, grid, workgroup, LDS, scratch, VGPR, AGPR, SGPR), 1-based in order of first launch in
// (pid, Dispatch_Id) order, which is the order the store streams the rows in.
struct VariantInfo {
  int index = 0;
  uint32_t name = 0;
  int64_t grid[3] = {0, 1, 1}, wg[3] = {0, 1, 1};
  std::string grid_quoted, wg_quoted;  // json_quote(dims(grid)), json_quote(dims(wg))
  // The slice's name as people say it, the family and the variant number ("fused_moe_kernel v3"):
  // Perfetto shows a slice's name on it, and a demangled name starts with its return type and
  // namespaces ("std::enable_if<..."). The args' "kernel" holds the full name.
  std::string short_quoted;
};
class Variants {
 public:
  uint32_t of(const store::DispatchRow& r, uint32_t name, const std::string& family);
  const VariantInfo& operator[](uint32_t i) const { return m_list[i]; }

 private:
  using Registers = std::optional<int64_t>;
  using Key = std::tuple<int64_t, uint32_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                         int64_t, int64_t, Registers, Registers, Registers>;
  std::map<Key, uint32_t> m_index;
  std::vector<VariantInfo> m_list;
};

}  // namespace kprof::report::perfetto_json
