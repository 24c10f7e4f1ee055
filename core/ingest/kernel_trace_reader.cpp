// kernel_trace.csv: 22 columns in ROCm 7.x; 19 in the early layout of the rocprofiler-sdk docs
// sample (Private_Segment_Size/Group_Segment_Size, no VGPR/SGPR columns, bare-integer agents);
// rocpd-converted files add a leading "Guid" (rocprofiler-sdk
// source/lib/python/rocpd/source/csv.cpp). Columns are found by name, so order and extra columns do
// not matter.
#include "core/ingest/kernel_trace_reader.hpp"

namespace kprof::ingest {

void KernelTraceReader::bind_columns() {
  m_cols = bind_dispatch_columns();
  m_stream = column({"Stream_Id"});
  m_start = require({"Start_Timestamp"});
  m_end = require({"End_Timestamp"});
  m_wg[0] = require({"Workgroup_Size_X"});
  m_wg[1] = require({"Workgroup_Size_Y"});
  m_wg[2] = require({"Workgroup_Size_Z"});
  m_grid[0] = require({"Grid_Size_X"});
  m_grid[1] = require({"Grid_Size_Y"});
  m_grid[2] = require({"Grid_Size_Z"});
}

void KernelTraceReader::read_row(const CsvRow& row) {
  store::DispatchRow& d = m_row;
  d.stream_id = opt_i64(row, m_stream);
  d.start_ns = i64(row, m_start);
  d.end_ns = i64(row, m_end);
  if (d.end_ns < d.start_ns) throw RowProblem{m_end, "ends before it starts"};
  d.wg_x = i64(row, m_wg[0]);
  d.wg_y = i64(row, m_wg[1]);
  d.wg_z = i64(row, m_wg[2]);
  d.grid_x = i64(row, m_grid[0]);
  d.grid_y = i64(row, m_grid[1]);
  d.grid_z = i64(row, m_grid[2]);
  d.dims_known = true;
  read_dispatch_columns(row, m_cols, d);
  sink().dispatch(d);
  ++m_dispatches;
}

}  // namespace kprof::ingest
