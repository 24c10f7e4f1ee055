// kernel_trace.csv: 22 columns in ROCm 7.x; 19 in the early layout of the rocprofiler-sdk docs
// sample (Private_Segment_Size/Group_Segment_Size, no VGPR/SGPR columns, bare-integer agents);
// rocpd-converted files add a leading "Guid" (rocprofiler-sdk
// source/lib/python/rocpd/source/csv.cpp). Columns are found by name, so order and extra columns do
// not matter.
#include "core/ingest/kernel_trace_reader.hpp"

namespace kprof::ingest {

void KernelTraceReader::bind_columns() {
  m_agent = require({"Agent_Id"});
  m_queue = require({"Queue_Id"});
  m_stream = column({"Stream_Id"});
  m_pid = column({"Process_Id", "Pid"});
  m_tid = column({"Thread_Id", "Tid"});
  m_dispatch = require({"Dispatch_Id"});
  m_kernel_id = require({"Kernel_Id"});
  m_name = require({"Kernel_Name"});
  m_corr = require({"Correlation_Id"});
  m_start = require({"Start_Timestamp"});
  m_end = require({"End_Timestamp"});
  m_lds = require({"LDS_Block_Size", "Group_Segment_Size"});
  m_scratch = require({"Scratch_Size", "Private_Segment_Size"});
  m_vgpr = column({"VGPR_Count", "Arch_VGPR_Count"});
  m_agpr = column({"Accum_VGPR_Count"});
  m_sgpr = column({"SGPR_Count"});
  m_wg[0] = require({"Workgroup_Size_X"});
  m_wg[1] = require({"Workgroup_Size_Y"});
  m_wg[2] = require({"Workgroup_Size_Z"});
  m_grid[0] = require({"Grid_Size_X"});
  m_grid[1] = require({"Grid_Size_Y"});
  m_grid[2] = require({"Grid_Size_Z"});
  set_text_column(m_name);
}

void KernelTraceReader::read_row(const CsvRow& row) {
  store::DispatchRow& d = m_row;
  d.agent = agent(row, m_agent);
  d.queue_id = i64(row, m_queue);
  if (m_stream >= 0)
    d.stream_id = i64(row, m_stream);
  else
    d.stream_id.reset();
  d.pid = pid_or_default(row, m_pid);
  d.tid = i64_or(row, m_tid, 0);
  d.dispatch_id = i64(row, m_dispatch);
  d.kernel_id = i64(row, m_kernel_id);
  d.correlation_id = i64(row, m_corr);
  d.start_ns = i64(row, m_start);
  d.end_ns = i64(row, m_end);
  if (d.end_ns < d.start_ns) throw RowProblem{m_end, "ends before it starts"};
  d.lds = i64(row, m_lds);
  d.scratch = i64(row, m_scratch);
  if (m_vgpr >= 0)
    d.vgpr = i64(row, m_vgpr);
  else
    d.vgpr.reset();
  if (m_agpr >= 0)
    d.agpr = i64(row, m_agpr);
  else
    d.agpr.reset();
  if (m_sgpr >= 0)
    d.sgpr = i64(row, m_sgpr);
  else
    d.sgpr.reset();
  d.wg_x = i64(row, m_wg[0]);
  d.wg_y = i64(row, m_wg[1]);
  d.wg_z = i64(row, m_wg[2]);
  d.grid_x = i64(row, m_grid[0]);
  d.grid_y = i64(row, m_grid[1]);
  d.grid_z = i64(row, m_grid[2]);
  d.dims_known = true;
  std::string_view name = text(row, m_name);
  if (name.empty()) throw RowProblem{m_name, "empty kernel name"};
  d.kernel_name.assign(name.data(), name.size());  // reuses the capacity of earlier rows
  sink().dispatch(d);
  ++m_dispatches;
}

}  // namespace kprof::ingest
