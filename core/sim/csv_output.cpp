// CSV writers in rocprofv3's layouts
// (ROCm/rocm-systems projects/rocprofiler-sdk/source/lib/output/generateCSV.cpp, csv.hpp).
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "core/base/text.hpp"
#include "core/sim/capture.hpp"
#include "core/sim/format.hpp"

namespace kprof::sim {

namespace {

std::string header(const std::vector<std::string>& cols) {
  std::vector<std::string> q;
  q.reserve(cols.size());
  for (const auto& c : cols) q.push_back(csv_quoted(c));
  return join(q, ",") + "\n";
}

// LDS is allocated in 512-byte granules on gfx9 (UNCERTAIN: granule size not checked against the
// SDK; real gfx942 captures show multiples of 512 such as 34816).
uint32_t lds_block(uint32_t bytes) { return (bytes + 511) / 512 * 512; }

void log_opened(const std::filesystem::path& p, uint64_t tid) {
  std::cerr << glog_prefix('E', tid, "output_stream.cpp:111")
            << "Opened result file: " << p.string() << "\n";
}

struct Writer {
  const ProcessCapture& cap;
  const OutputSettings& out;
  std::vector<std::filesystem::path> written;

  std::filesystem::path open(const std::string& name, std::ofstream& f) {
    std::filesystem::path p = out.prefix;
    p += "_" + name + ".csv";
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
    f.open(p, std::ios::binary | std::ios::trunc);
    log_opened(p, cap.tid);
    written.push_back(p);
    return p;
  }

  const Agent& gpu() const { return cap.model->agents[cap.model->gpu]; }
  const std::string agent() const { return agent_id_text(gpu(), out.agent_index, out.layout); }
  std::string agent_field() const { return out.layout == 6 ? agent() : csv_quoted(agent()); }

  // roctxProfilerResume/Pause as ROCm 6.x's tool records them with --marker-trace
  // (ROCm/rocprofiler-sdk tag rocm-6.2.0 source/lib/rocprofiler-sdk-tool/generateCSV.cpp, the
  // marker_api_trace columns; tool.cpp cntrl_tracing_callback: enter and exit timestamps).
  void markers() {
    if (!cap.region_markers) return;
    std::ofstream f;
    open("marker_api_trace", f);
    std::string buf = header({"Domain", "Function", "Process_Id", "Thread_Id", "Correlation_Id",
                              "Start_Timestamp", "End_Timestamp"});
    const auto [resume, pause] = *cap.region_markers;
    const auto row = [&](const char* fn, uint64_t cid, uint64_t start, uint64_t end) {
      std::ostringstream r;
      r << csv_quoted("MARKER_CONTROL_API") << ',' << csv_quoted(fn) << ',' << cap.pid << ','
        << cap.tid << ',' << cid << ',' << start << ',' << end << '\n';
      buf += r.str();
    };
    row("roctxProfilerResume", 1, resume - 200, resume);
    row("roctxProfilerPause", 2, pause, pause + 200);
    f << buf;
  }

  void kernel_trace() {
    if (!out.kernel_trace || cap.stream.records.empty()) return;
    std::ofstream f;
    open("kernel_trace", f);
    std::string buf = header(kernel_trace_columns(out.layout));
    const std::string ag = agent_field();
    for (const auto& r : cap.stream.records) {
      const auto& d = *r.plan;
      const auto& s = cap.model->symbols[d.symbol];
      std::ostringstream row;
      row << csv_quoted("KERNEL_DISPATCH") << ',' << ag << ',' << d.queue << ',';
      if (out.layout != 6) row << d.stream << ',';
      row << cap.tid << ',' << r.dispatch_id << ',' << s.kernel_id << ','
          << csv_quoted(display_name(*cap.model, r, out.truncate_names)) << ',' << r.correlation_id
          << ',' << r.start << ',' << r.end << ',';
      if (out.layout == 6)
        row << s.scratch << ',' << lds_block(s.lds) << ',';
      else
        row << lds_block(s.lds) << ',' << s.scratch << ',' << s.arch_vgpr << ',' << s.accum_vgpr
            << ',' << s.sgpr << ',';
      row << s.workgroup[0] << ',' << s.workgroup[1] << ',' << s.workgroup[2] << ',' << d.grid[0]
          << ',' << d.grid[1] << ',' << d.grid[2] << '\n';
      buf += row.str();
    }
    f << buf;
  }

  void counter_collection() {
    if (cap.counters.empty() || !cap.counter_model) return;
    std::string buf;
    const std::string ag = agent_field();
    for (const auto& r : cap.stream.records) {
      if (!r.collect) continue;
      std::vector<std::string> names = cap.counters_of(r);
      std::sort(names.begin(), names.end());
      const auto& d = *r.plan;
      const auto& s = cap.model->symbols[d.symbol];
      std::ostringstream pre;
      pre << r.correlation_id << ',' << r.dispatch_id << ',' << ag << ',' << d.queue << ','
          << cap.pid << ',' << cap.tid << ',' << uint64_t(d.grid[0]) * d.grid[1] * d.grid[2] << ','
          << s.kernel_id << ',' << csv_quoted(display_name(*cap.model, r, out.truncate_names))
          << ',' << s.workgroup[0] * s.workgroup[1] * s.workgroup[2] << ',' << lds_block(s.lds)
          << ',' << s.scratch << ',' << s.arch_vgpr << ',';
      if (out.layout != 6) pre << s.accum_vgpr << ',';
      pre << s.sgpr << ',';
      const std::string p = pre.str();
      for (const auto& c : names) {
        const auto v = cap.counter_model->value(r, c);
        if (!v) continue;
        buf += p + csv_quoted(c) + ',' + format_counter_value(*v) + ',' + std::to_string(r.start) +
               ',' + std::to_string(r.end) + '\n';
      }
    }
    if (buf.empty()) return;
    std::ofstream f;
    open("counter_collection", f);
    f << header(counter_collection_columns(out.layout)) << buf;
  }

  struct Stat {
    uint64_t calls = 0, total = 0, min = UINT64_MAX, max = 0;
    double sum_sq = 0;  // of durations, for the sample standard deviation
  };

  static std::string stat_row(const std::string& name, const Stat& s, double domain_total) {
    const double avg = double(s.total) / double(s.calls);
    const double var =
        s.calls > 1 ? (s.sum_sq - double(s.calls) * avg * avg) / double(s.calls - 1) : 0;
    return csv_quoted(name) + ',' + std::to_string(s.calls) + ',' + std::to_string(s.total) + ',' +
           format_stats_double(avg) + ',' +
           format_percentage(100.0 * double(s.total) / domain_total) + ',' + std::to_string(s.min) +
           ',' + std::to_string(s.max) + ',' + format_stats_double(std::sqrt(std::max(0.0, var))) +
           '\n';
  }

  void stats() {
    if (!out.stats || !out.kernel_trace || cap.stream.records.empty()) return;
    std::map<std::string, Stat> per;
    Stat all;
    const auto add = [](Stat& s, uint64_t dur) {
      ++s.calls;
      s.total += dur;
      s.min = std::min(s.min, dur);
      s.max = std::max(s.max, dur);
      s.sum_sq += double(dur) * double(dur);
    };
    for (const auto& r : cap.stream.records) {
      const uint64_t dur = r.end - r.start;
      add(per[display_name(*cap.model, r, out.truncate_names)], dur);
      add(all, dur);
    }
    std::vector<std::pair<std::string, Stat>> rows(per.begin(), per.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second.total > b.second.total; });
    const double total = double(all.total);
    std::ofstream f;
    open("kernel_stats", f);
    std::string buf = header(stats_columns());
    for (const auto& [name, s] : rows) buf += stat_row(name, s, total);
    f << buf;
    std::ofstream g;
    open("domain_stats", g);
    g << header(stats_columns()) << stat_row("KERNEL_DISPATCH", all, total);
  }

  void agent_info() {
    if (written.empty()) return;
    std::ofstream f;
    open("agent_info", f);
    std::string buf = header(agent_info_columns());
    static const std::vector<std::string> k_text = {"Agent_Type", "Name", "Vendor_Name",
                                                    "Product_Name", "Model_Name"};
    for (const auto& a : cap.model->agents) {
      std::vector<std::string> vals;
      for (const auto& c : agent_info_columns()) {
        const auto it = a.fields.find(c);
        const std::string v =
            it == a.fields.end()
                ? (std::find(k_text.begin(), k_text.end(), c) != k_text.end() ? std::string()
                                                                              : std::string("0"))
                : it->second;
        vals.push_back(std::find(k_text.begin(), k_text.end(), c) != k_text.end() ? csv_quoted(v)
                                                                                  : v);
      }
      buf += join(vals, ",") + "\n";
    }
    f << buf;
  }
};

}  // namespace

void requote_csv(const std::filesystem::path& file, CsvQuoting quoting) {
  if (quoting == CsvQuoting::rocprofv3) return;
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  in.close();
  const std::string text = ss.str();
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) eol = text.size();
    // rocprofv3's dialect: a field is "..." (no escaping, commas inside belong to it) or bare.
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (size_t i = pos; i < eol; ++i) {
      const char c = text[i];
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        fields.push_back(std::move(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    fields.push_back(std::move(cur));
    for (size_t i = 0; i < fields.size(); ++i) {
      const std::string& f = fields[i];
      const bool needs = f.find_first_of(",\"\r\n") != std::string::npos;
      if (i) out += ',';
      if (quoting == CsvQuoting::all || needs) {
        out += '"';
        for (char c : f) out += c == '"' ? std::string("\"\"") : std::string(1, c);
        out += '"';
      } else {
        out += f;
      }
    }
    if (eol < text.size()) out += '\n';
    pos = eol + 1;
  }
  std::ofstream(file, std::ios::binary | std::ios::trunc) << out;
}

std::string agent_id_text(const Agent& agent, const std::string& agent_index, int layout) {
  if (layout == 6) return std::to_string(agent.node_id);
  if (agent_index == "absolute") return "Agent " + std::to_string(agent.node_id);
  if (agent_index == "type-relative")
    return std::string(agent.gpu ? "GPU " : "CPU ") + std::to_string(agent.type_index);
  return "Agent " + std::to_string(agent.logical_node_id);
}

std::vector<std::string> kernel_trace_columns(int layout) {
  if (layout == 6)
    return {"Kind",
            "Agent_Id",
            "Queue_Id",
            "Thread_Id",
            "Dispatch_Id",
            "Kernel_Id",
            "Kernel_Name",
            "Correlation_Id",
            "Start_Timestamp",
            "End_Timestamp",
            "Private_Segment_Size",
            "Group_Segment_Size",
            "Workgroup_Size_X",
            "Workgroup_Size_Y",
            "Workgroup_Size_Z",
            "Grid_Size_X",
            "Grid_Size_Y",
            "Grid_Size_Z"};
  return {"Kind",
          "Agent_Id",
          "Queue_Id",
          "Stream_Id",
          "Thread_Id",
          "Dispatch_Id",
          "Kernel_Id",
          "Kernel_Name",
          "Correlation_Id",
          "Start_Timestamp",
          "End_Timestamp",
          "LDS_Block_Size",
          "Scratch_Size",
          "VGPR_Count",
          "Accum_VGPR_Count",
          "SGPR_Count",
          "Workgroup_Size_X",
          "Workgroup_Size_Y",
          "Workgroup_Size_Z",
          "Grid_Size_X",
          "Grid_Size_Y",
          "Grid_Size_Z"};
}

std::vector<std::string> counter_collection_columns(int layout) {
  std::vector<std::string> c = {
      "Correlation_Id", "Dispatch_Id",   "Agent_Id",        "Queue_Id",         "Process_Id",
      "Thread_Id",      "Grid_Size",     "Kernel_Id",       "Kernel_Name",      "Workgroup_Size",
      "LDS_Block_Size", "Scratch_Size",  "VGPR_Count",      "Accum_VGPR_Count", "SGPR_Count",
      "Counter_Name",   "Counter_Value", "Start_Timestamp", "End_Timestamp"};
  if (layout == 6) c.erase(std::find(c.begin(), c.end(), "Accum_VGPR_Count"));
  return c;
}

std::vector<std::string> stats_columns() {
  return {"Name",       "Calls", "TotalDurationNs", "AverageNs",
          "Percentage", "MinNs", "MaxNs",           "StdDev"};
}

std::vector<std::string> agent_info_columns() {
  return {"Node_Id",
          "Logical_Node_Id",
          "Agent_Type",
          "Cpu_Cores_Count",
          "Simd_Count",
          "Cpu_Core_Id_Base",
          "Simd_Id_Base",
          "Max_Waves_Per_Simd",
          "Lds_Size_In_Kb",
          "Gds_Size_In_Kb",
          "Num_Gws",
          "Wave_Front_Size",
          "Num_Xcc",
          "Cu_Count",
          "Array_Count",
          "Num_Shader_Banks",
          "Simd_Arrays_Per_Engine",
          "Cu_Per_Simd_Array",
          "Simd_Per_Cu",
          "Max_Slots_Scratch_Cu",
          "Gfx_Target_Version",
          "Vendor_Id",
          "Device_Id",
          "Location_Id",
          "Domain",
          "Drm_Render_Minor",
          "Num_Sdma_Engines",
          "Num_Sdma_Xgmi_Engines",
          "Num_Sdma_Queues_Per_Engine",
          "Num_Cp_Queues",
          "Max_Engine_Clk_Ccompute",
          "Max_Engine_Clk_Fcompute",
          "Sdma_Fw_Version",
          "Fw_Version",
          "Capability",
          "Cu_Per_Engine",
          "Max_Waves_Per_Cu",
          "Family_Id",
          "Workgroup_Max_Size",
          "Grid_Max_Size",
          "Local_Mem_Size",
          "Hive_Id",
          "Gpu_Id",
          "Workgroup_Max_Dim_X",
          "Workgroup_Max_Dim_Y",
          "Workgroup_Max_Dim_Z",
          "Grid_Max_Dim_X",
          "Grid_Max_Dim_Y",
          "Grid_Max_Dim_Z",
          "Name",
          "Vendor_Name",
          "Product_Name",
          "Model_Name"};
}

std::vector<std::filesystem::path> write_csv(const ProcessCapture& cap, const OutputSettings& out) {
  Writer w{cap, out, {}};
  w.kernel_trace();
  w.counter_collection();
  w.stats();
  w.markers();
  w.agent_info();
  return w.written;
}

}  // namespace kprof::sim
