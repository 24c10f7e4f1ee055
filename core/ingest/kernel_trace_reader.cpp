// kernel_trace.csv: 22 columns in ROCm 7.x; 19 in the early layout of the rocprofiler-sdk docs
// sample (Private_Segment_Size/Group_Segment_Size, no VGPR/SGPR columns, bare-integer agents);
// rocpd-converted files add a leading "Guid" (rocprofiler-sdk
// source/lib/python/rocpd/source/csv.cpp). Columns are found by name, so order and extra columns do
// not matter.
#include "core/ingest/kernel_trace_reader.hpp"

namespace kprof::ingest {

namespace {

using csv::As;
using store::DispatchRow;

// What kernel_trace.csv has besides the columns it shares with counter_collection.csv.
constexpr auto k_trace_fields = std::tuple{
    csv::maybe("Stream_Id", &DispatchRow::stream_id),
    csv::need("Start_Timestamp", &DispatchRow::start_ns),
    csv::need("End_Timestamp", &DispatchRow::end_ns, As::integer,
              &csv::ends_after_start<DispatchRow>),
    csv::need("Workgroup_Size_X", &DispatchRow::wg_x),
    csv::need("Workgroup_Size_Y", &DispatchRow::wg_y),
    csv::need("Workgroup_Size_Z", &DispatchRow::wg_z),
    csv::need("Grid_Size_X", &DispatchRow::grid_x),
    csv::need("Grid_Size_Y", &DispatchRow::grid_y),
    csv::need("Grid_Size_Z", &DispatchRow::grid_z),
};

}  // namespace

void KernelTraceReader::bind_columns() {
  m_shared = bind_fields(csv::dispatch_fields);
  m_own = bind_fields(k_trace_fields);
  set_text_column(m_shared[csv::k_name_field]);
}

void KernelTraceReader::read_row(const CsvRow& row) {
  store::DispatchRow& d = m_row;
  read_fields<k_trace_fields>(row, m_own, d);
  d.dims_known = true;
  read_fields<csv::dispatch_fields>(row, m_shared, d);
  sink().dispatch(d);
  ++m_dispatches;
}

}  // namespace kprof::ingest
