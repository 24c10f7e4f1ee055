// One column table per row type of rows.hpp: which table column holds which struct field. The
// loader's INSERTs, the RawInsert baseline, the readers' SELECTs and the kernel-variant key are all
// made from these tables, so a column is named once (the schema itself is core/store/schema/*.sql;
// tests/store checks every table against it). Internal to core/store. Everything resolves at
// compile time: binding a row is the same sequence of sqlite3_bind_* calls a hand-written one was.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>

#include "core/store/analysis_reads.hpp"  // DispatchTiming
#include "core/store/capture_db.hpp"      // IngestFileInfo; rows.hpp

namespace kprof::store::columns {

// A column holding the field as it is.
template <class Row, class T>
struct Plain {
  const char* name;
  T Row::*field;
};

// A string stored as an id into `strings` (the column is `<stem>_id`); written as the interned id,
// read back through a JOIN on `strings` aliased `s_<stem>` (so an ORDER BY can name its text).
template <class Row>
struct Interned {
  const char* name;
  std::string Row::*field;
};

template <class Row, class T>
constexpr Plain<Row, T> col(const char* name, T Row::*field) {
  return {name, field};
}
template <class Row>
constexpr Interned<Row> interned(const char* name, std::string Row::*field) {
  return {name, field};
}

template <class... C>
struct Table {
  const char* name;
  std::tuple<C...> cols;
};
template <class... C>
constexpr Table<C...> table(const char* name, C... cols) {
  return {name, std::tuple<C...>{cols...}};
}
// The columns of `a` then those of `b`, read from `name` (a view or a join of the two).
template <class... A, class... B>
constexpr Table<A..., B...> joined(const char* name, const Table<A...>& a, const Table<B...>& b) {
  return {name, std::tuple_cat(a.cols, b.cols)};
}

// ---- the tables

inline constexpr auto agents = table(
    "agents", col("node_id", &AgentRow::node_id),
    col("logical_node_id", &AgentRow::logical_node_id), col("type", &AgentRow::type),
    col("name", &AgentRow::name), col("product_name", &AgentRow::product_name),
    col("cu_count", &AgentRow::cu_count), col("simd_count", &AgentRow::simd_count),
    col("wave_front_size", &AgentRow::wave_front_size),
    col("max_waves_per_simd", &AgentRow::max_waves_per_simd), col("num_xcc", &AgentRow::num_xcc),
    col("max_engine_clk_mhz", &AgentRow::max_engine_clk_mhz));

// kernel_stats also holds the file it came from (file_id), bound before these.
inline constexpr auto kernel_stats = table(
    "kernel_stats", interned("name_id", &KernelStatRow::name), col("calls", &KernelStatRow::calls),
    col("total_ns", &KernelStatRow::total_ns), col("average_ns", &KernelStatRow::average_ns),
    col("percentage", &KernelStatRow::percentage), col("min_ns", &KernelStatRow::min_ns),
    col("max_ns", &KernelStatRow::max_ns), col("stddev_ns", &KernelStatRow::stddev_ns));

inline constexpr auto memory_copies =
    table("memory_copies", col("pid", &MemoryCopyRow::pid),
          interned("direction_id", &MemoryCopyRow::direction),
          col("stream_id", &MemoryCopyRow::stream_id), col("src_agent", &MemoryCopyRow::src_agent),
          col("dst_agent", &MemoryCopyRow::dst_agent),
          col("correlation_id", &MemoryCopyRow::correlation_id),
          col("start_ns", &MemoryCopyRow::start_ns), col("end_ns", &MemoryCopyRow::end_ns));

inline constexpr auto memory_allocations = table(
    "memory_allocations", col("pid", &MemoryAllocationRow::pid),
    interned("operation_id", &MemoryAllocationRow::operation),
    col("agent", &MemoryAllocationRow::agent), col("size_bytes", &MemoryAllocationRow::size_bytes),
    col("address", &MemoryAllocationRow::address),
    col("correlation_id", &MemoryAllocationRow::correlation_id),
    col("start_ns", &MemoryAllocationRow::start_ns), col("end_ns", &MemoryAllocationRow::end_ns));

inline constexpr auto api_calls =
    table("api_calls", interned("domain_id", &ApiCallRow::domain),
          interned("function_id", &ApiCallRow::function), col("pid", &ApiCallRow::pid),
          col("tid", &ApiCallRow::tid), col("correlation_id", &ApiCallRow::correlation_id),
          col("start_ns", &ApiCallRow::start_ns), col("end_ns", &ApiCallRow::end_ns));

inline constexpr auto counter_values = table(
    "counter_values", col("pid", &CounterRow::pid), col("dispatch_id", &CounterRow::dispatch_id),
    interned("counter_id", &CounterRow::counter), col("value", &CounterRow::value));

// A dispatch is two rows (schema 5): its kernel variant, stored once per pass, and the narrow row
// of when and where it ran (which also holds variant_id, bound before these). The view
// `dispatches` has both tables' columns under these names.
inline constexpr auto kernel_variants =
    table("kernel_variants", col("kernel_id", &DispatchRow::kernel_id),
          interned("kernel_name_id", &DispatchRow::kernel_name),
          col("grid_x", &DispatchRow::grid_x), col("grid_y", &DispatchRow::grid_y),
          col("grid_z", &DispatchRow::grid_z), col("wg_x", &DispatchRow::wg_x),
          col("wg_y", &DispatchRow::wg_y), col("wg_z", &DispatchRow::wg_z),
          col("dims_known", &DispatchRow::dims_known), col("lds", &DispatchRow::lds),
          col("scratch", &DispatchRow::scratch), col("vgpr", &DispatchRow::vgpr),
          col("agpr", &DispatchRow::agpr), col("sgpr", &DispatchRow::sgpr));

inline constexpr auto dispatch_rows =
    table("dispatch_rows", col("dispatch_id", &DispatchRow::dispatch_id),
          col("correlation_id", &DispatchRow::correlation_id), col("agent", &DispatchRow::agent),
          col("queue_id", &DispatchRow::queue_id), col("stream_id", &DispatchRow::stream_id),
          col("pid", &DispatchRow::pid), col("tid", &DispatchRow::tid),
          col("start_ns", &DispatchRow::start_ns), col("end_ns", &DispatchRow::end_ns));

// What the analysis reads of a narrow row (analysis_reads.hpp DispatchTiming).
inline constexpr auto dispatch_timings =
    table("dispatch_rows", col("dispatch_id", &DispatchTiming::dispatch_id),
          col("variant_id", &DispatchTiming::variant_id), col("pid", &DispatchTiming::pid),
          col("agent", &DispatchTiming::agent), col("queue_id", &DispatchTiming::queue_id),
          col("start_ns", &DispatchTiming::start_ns), col("end_ns", &DispatchTiming::end_ns));

// Read back through the view: both halves of a dispatch.
inline constexpr auto dispatches = joined("dispatches", dispatch_rows, kernel_variants);

inline constexpr auto ingest_stats =
    table("ingest_stats", col("id", &IngestFileInfo::id), col("pass_id", &IngestFileInfo::pass_id),
          col("path", &IngestFileInfo::path), col("kind", &IngestFileInfo::kind),
          col("size_bytes", &IngestFileInfo::size_bytes), col("sha256", &IngestFileInfo::sha256),
          col("tool_version", &IngestFileInfo::tool_version),
          col("rows_read", &IngestFileInfo::rows_read),
          col("rows_rejected", &IngestFileInfo::rows_rejected),
          col("first_reject_line", &IngestFileInfo::first_reject_line),
          col("first_reject_reason", &IngestFileInfo::first_reject_reason),
          col("loaded_ms", &IngestFileInfo::loaded_ms));

// ---- SQL made from a table

// "INSERT INTO t(<leading>, c1, c2, ...) VALUES (?1, ?2, ...) <suffix>": the leading columns
// (pass_id, file_id, ...) are bound first, then the table's in order.
template <class... C>
std::string insert_sql(const Table<C...>& t, std::initializer_list<const char*> leading,
                       const char* suffix = "") {
  std::string names, marks;
  int n = 0;
  auto add = [&](const char* name) {
    names += (n ? ", " : "") + std::string(name);
    marks += (n ? ", ?" : "?") + std::to_string(n + 1);
    ++n;
  };
  for (const char* l : leading) add(l);
  std::apply([&](const auto&... c) { (add(c.name), ...); }, t.cols);
  return "INSERT INTO " + std::string(t.name) + "(" + names + ") VALUES (" + marks + ")" + suffix;
}

namespace detail {
inline std::string stem(const char* id_column) {  // "kernel_name_id" -> "s_kernel_name"
  std::string s(id_column);
  return "s_" + s.substr(0, s.size() - 3);
}
template <class Row, class T>
void select_one(const Plain<Row, T>& c, std::string& list, std::string&) {
  list += (list.empty() ? "t." : ", t.") + std::string(c.name);
}
template <class Row>
void select_one(const Interned<Row>& c, std::string& list, std::string& joins) {
  const std::string alias = stem(c.name);
  list += (list.empty() ? "" : ", ") + alias + ".value";
  joins += " JOIN strings " + alias + " ON " + alias + ".id = t." + c.name;
}
}  // namespace detail

// "SELECT <every column, interned ones as their text> FROM t <joins> <rest>": the table is
// aliased `t`, so `rest` reads like "WHERE t.pass_id = ? ORDER BY t.rowid".
template <class... C>
std::string select_sql(const Table<C...>& t, const std::string& rest) {
  std::string list, joins;
  std::apply([&](const auto&... c) { (detail::select_one(c, list, joins), ...); }, t.cols);
  return "SELECT " + list + " FROM " + t.name + " t" + joins + " " + rest;
}

// Calls fn(column) for each column of `t`, in order.
template <class Tbl, class F>
void for_each(const Tbl& t, F&& fn) {
  std::apply([&](const auto&... c) { (fn(c), ...); }, t.cols);
}

}  // namespace kprof::store::columns
