// One column table per rocprofv3 CSV row type: which header column fills which field of a store::
// row, how its text is read, whether the header must have it, and what makes a parsed value wrong.
// CsvFormatReader::bind_fields/read_fields (csv_format_reader.hpp) look the columns up and read a
// row from a table, so each reader names its columns once and the readers of kernel_trace.csv and
// counter_collection.csv share the columns of a dispatch (dispatch_fields). Everything resolves at
// compile time: reading a row is the same sequence of field parses a hand-written reader made.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>

#include "core/store/rows.hpp"

namespace kprof::ingest::csv {

// How a field's text becomes its value.
enum class As {
  integer,        // int64 (into an optional<int64_t>: empty when the layout lacks the column)
  number,         // double
  text,           // the field as written; must be valid UTF-8
  agent,          // "Agent N", a bare N, or type-relative "GPU N"/"CPU N" (field_parse.hpp)
  agent_or_none,  // an agent, or an empty field (rocprofv3 leaves a free's Agent_Id empty)
  pid,            // Process_Id; a layout without it takes the %pid% file prefix (ReadOptions::pid)
};

// A column's header name, and the name older layouts or rocpd-converted files give it.
struct Names {
  constexpr Names(const char* n) : name(n) {}  // NOLINT(google-explicit-constructor)
  constexpr Names(const char* n, const char* a) : name(n), alias(a) {}
  std::string_view name, alias;
};

// Why a row's value, once parsed, is not usable (nullptr: it is). Runs right after its field is
// read, so a row's first problem is reported, column by column, in table order.
template <class Row>
using Check = const char* (*)(const Row&);

template <class Row, class T>
struct Field {
  Names names;
  T Row::*field;
  As as;
  bool required;  // else a layout may lack it: the field is 0, empty or nullopt (pid: the prefix's)
  Check<Row> check;
};

template <class Row, class T>
constexpr Field<Row, T> need(Names n, T Row::*f, As as = As::integer,
                             std::type_identity_t<Check<Row>> check = nullptr) {
  return {n, f, as, true, check};
}
template <class Row, class T>
constexpr Field<Row, T> maybe(Names n, T Row::*f, As as = As::integer,
                              std::type_identity_t<Check<Row>> check = nullptr) {
  return {n, f, as, false, check};
}

// ---- checks shared by several tables

template <class Row>
constexpr const char* ends_after_start(const Row& r) {
  return r.end_ns < r.start_ns ? "ends before it starts" : nullptr;
}
constexpr const char* kernel_named(const store::DispatchRow& d) {
  return d.kernel_name.empty() ? "empty kernel name" : nullptr;
}

// The columns kernel_trace.csv and counter_collection.csv share: where a dispatch ran, what
// launched it, the kernel and its resources (grid, workgroup and timestamps are laid out
// differently in the two files: each reader's own table). Early layouts name the segment sizes as
// the HSA kernel object does; rocpd-converted files say Pid/Tid.
using store::DispatchRow;
inline constexpr auto dispatch_fields = std::tuple{
    need("Agent_Id", &DispatchRow::agent, As::agent),
    need("Queue_Id", &DispatchRow::queue_id),
    maybe({"Process_Id", "Pid"}, &DispatchRow::pid, As::pid),
    maybe({"Thread_Id", "Tid"}, &DispatchRow::tid),
    need("Dispatch_Id", &DispatchRow::dispatch_id),
    need("Kernel_Id", &DispatchRow::kernel_id),
    need("Correlation_Id", &DispatchRow::correlation_id),
    need({"LDS_Block_Size", "Group_Segment_Size"}, &DispatchRow::lds),
    need({"Scratch_Size", "Private_Segment_Size"}, &DispatchRow::scratch),
    maybe({"VGPR_Count", "Arch_VGPR_Count"}, &DispatchRow::vgpr),
    maybe("Accum_VGPR_Count", &DispatchRow::agpr),
    maybe("SGPR_Count", &DispatchRow::sgpr),
    need("Kernel_Name", &DispatchRow::kernel_name, As::text, &kernel_named),
};
// Indices into dispatch_fields that the readers use on their own.
inline constexpr size_t k_pid_field = 2, k_dispatch_field = 4, k_name_field = 12;
static_assert(std::get<k_pid_field>(dispatch_fields).field == &DispatchRow::pid);
static_assert(std::get<k_dispatch_field>(dispatch_fields).field == &DispatchRow::dispatch_id);
static_assert(std::get<k_name_field>(dispatch_fields).field == &DispatchRow::kernel_name);

}  // namespace kprof::ingest::csv
