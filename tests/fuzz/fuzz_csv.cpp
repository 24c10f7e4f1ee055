// libFuzzer target: the rocprofv3 CSV readers, every format, through the same tokenizer and
// reader the ingest uses. The first byte picks the format (see k_formats); the rest is the file,
// fed in three chunks so rows span chunk boundaries as they do in a 1 MiB-buffered read. Any bytes
// must end in rows or kprof::Error; every row delivered must satisfy what the database's CHECKs
// and its readers rely on (valid UTF-8 text, a dispatch that does not end before it starts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/ingest/format.hpp"
#include "core/ingest/read_file.hpp"
#include "core/store/rows.hpp"

namespace {

using kprof::ingest::Format;

struct Pick {
  char key;
  Format format;
  const char* name;  // a rocprofv3 file name of that format
};
// The seed files in tests/data/fuzz/csv start with one of these letters and a newline.
constexpr Pick k_formats[] = {
    {'k', Format::kernel_trace, "1_kernel_trace.csv"},
    {'c', Format::counter_collection, "1_counter_collection.csv"},
    {'a', Format::agent_info, "1_agent_info.csv"},
    {'s', Format::stats, "1_kernel_stats.csv"},
    {'m', Format::memory_copy_trace, "1_memory_copy_trace.csv"},
    {'l', Format::memory_allocation_trace, "1_memory_allocation_trace.csv"},
    {'h', Format::api_trace, "1_hip_api_trace.csv"},
};

void check_text(std::string_view s) {
  if (kprof::invalid_utf8_at(s) != std::string_view::npos) std::abort();
}

class CheckingSink : public kprof::store::RowSink {
 public:
  void begin_file(const std::string&, const std::string&) override {}
  void agent(const kprof::store::AgentRow& r) override {
    check_text(r.name);
    check_text(r.type);
    check_text(r.product_name);
  }
  void dispatch(const kprof::store::DispatchRow& r) override {
    check_text(r.kernel_name);
    if (r.end_ns < r.start_ns) std::abort();
  }
  void counter(const kprof::store::CounterRow& r) override { check_text(r.counter); }
  void kernel_stat(const kprof::store::KernelStatRow& r) override { check_text(r.name); }
  void bad_row(const kprof::store::BadRow&) override {}
  void end_file(int64_t) override {}
  void memory_copy(const kprof::store::MemoryCopyRow& r) override { check_text(r.direction); }
  void api_call(const kprof::store::ApiCallRow& r) override {
    check_text(r.domain);
    check_text(r.function);
  }
  void memory_allocation(const kprof::store::MemoryAllocationRow& r) override {
    check_text(r.operation);
    check_text(r.address);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Pick* pick = &k_formats[data[0] % std::size(k_formats)];
  for (const auto& p : k_formats)
    if (p.key == static_cast<char>(data[0])) pick = &p;
  std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (!body.empty() && body.front() == '\n') body.remove_prefix(1);
  const size_t third = body.size() / 3;
  std::vector<std::string_view> chunks = {body.substr(0, third), body.substr(third, third),
                                          body.substr(2 * third)};
  CheckingSink sink;
  kprof::ingest::ReadOptions options;
  options.pid = 1;
  try {
    (void)kprof::ingest::read_csv_chunks(pick->format, pick->name,
                                         kprof::ingest::kind_for(pick->format, pick->name), chunks,
                                         sink, options);
  } catch (const kprof::Error&) {
  }
  return 0;
}
