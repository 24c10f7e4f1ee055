// The check a rotated counter pass needs before it is stored: rocprofv3 collects ONE group of a
// `pmc_groups` list per dispatch and does not record which (the group index is in neither
// counter_collection.csv nor rocpd's pmc tables: ROCm/rocm-systems
// projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp, counter_info.hpp), so the group of
// a dispatch can only be told from the counter names its rows carry. kprof plans groups that
// share no counter; this sink, in front of the store's, finds each counted dispatch's group and
// refuses the pass when a dispatch's names name no group or more than one. The error is
// classified (what went wrong, how often, the first example), and since it is thrown before the
// loader commits, the database stays as it was.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest {

// The pass's files are readable but a dispatch's group cannot be told: running the same command
// again gives the same groups, so the executor does not retry it.
class GroupMismatch : public Error {
 public:
  explicit GroupMismatch(Error e) : Error(std::move(e)) {}
};

class GroupCheck : public store::RowSink {
 public:
  // Throws Error(input) when two groups share a counter: no dispatch could then be told apart.
  GroupCheck(store::RowSink& inner, std::vector<std::vector<std::string>> groups);

  void begin_file(const std::string& path, const std::string& kind) override;
  void agent(const store::AgentRow& row) override { m_inner.agent(row); }
  void dispatch(const store::DispatchRow& row) override { m_inner.dispatch(row); }
  void counter(const store::CounterRow& row) override;
  void kernel_stat(const store::KernelStatRow& row) override { m_inner.kernel_stat(row); }
  void bad_row(const store::BadRow& row) override { m_inner.bad_row(row); }
  void end_file(int64_t rows_read) override { m_inner.end_file(rows_read); }
  void memory_copy(const store::MemoryCopyRow& row) override { m_inner.memory_copy(row); }
  void api_call(const store::ApiCallRow& row) override { m_inner.api_call(row); }
  void memory_allocation(const store::MemoryAllocationRow& row) override {
    m_inner.memory_allocation(row);
  }
  void profiler_version(const std::string& v) override { m_inner.profiler_version(v); }
  void file_digest(int64_t size, const std::string& sha) override {
    m_inner.file_digest(size, sha);
  }

  // After the last file, before the loader commits: throws GroupMismatch (an input Error) when
  // any dispatch's counters named a counter of no group or counters of two groups.
  void finish() const;

  // Dispatches counted with each group.
  std::vector<int64_t> dispatches_per_group() const;

 private:
  store::RowSink& m_inner;
  std::vector<std::vector<std::string>> m_groups;
  std::unordered_map<std::string, int> m_index;  // counter -> its group
  std::map<std::pair<int64_t, int64_t>, int> m_group_of;
  std::string m_file;
  int64_t m_unknown = 0, m_mixed = 0;  // rows naming no group / dispatches spanning groups
  std::string m_first_unknown, m_first_mixed;
};

}  // namespace kprof::ingest
