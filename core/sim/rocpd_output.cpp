// rocpd output: "<prefix>_results.db", the SQLite database rocprofv3 7.0 writes by default, with
// the schema of rocpd_schema.cpp (where its source and simplifications are given).
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/text.hpp"
#include "core/sim/capture.hpp"
#include "core/sim/format.hpp"
#include "core/sim/rocpd_db.hpp"

namespace kprof::sim {

using rocpd::Db;
using rocpd::Insert;

namespace {

// The open results database: every table is `<name>_<uuid>`, under a view named `<name>`.
struct RocpdFile {
  Db& db;
  std::string guid;    // the uuid, as rocpd's guid columns hold it
  std::string suffix;  // "_" and the uuid with '_' for '-'
  std::string table(const std::string& name) const { return "`" + name + suffix + "`"; }
  std::string insert_into(const std::string& name) const { return "INSERT INTO " + table(name); }
};

// The tables and views of rocpd_schema.cpp, in one transaction the caller commits.
void create_tables(const RocpdFile& f) {
  f.db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;");
  for (const auto& [name, cols] : rocpd::tables()) {
    f.db.exec("CREATE TABLE `" + name + f.suffix + "` (" + cols + ");");
    f.db.exec("CREATE VIEW `" + name + "` AS SELECT * FROM `" + name + f.suffix + "`;");
  }
  f.db.exec(rocpd::data_views());
}

// Metadata, the strings dispatches refer to, and the node, process and thread of the capture.
void write_run_info(const RocpdFile& f, const ProcessCapture& cap) {
  {
    Insert meta(f.db, f.insert_into("rocpd_metadata") + " (tag, value) VALUES (?, ?)");
    meta.t("schema_version").t("3").run();
    meta.t("uuid").t(f.suffix.substr(1)).run();
    meta.t("guid").t(f.guid).run();
    // Not a real rocprofv3 tag: marks every figure in this file as simulated.
    meta.t("simulated").t("rocprofv3-sim " + cap.model->source_path).run();
  }
  Insert str(f.db, f.insert_into("rocpd_string") + " (id, guid, string) VALUES (?, ?, ?)");
  str.i(1).t(f.guid).t("KERNEL_DISPATCH").run();
  str.i(2).t(f.guid).t("").run();  // region name of dispatches outside any roctx range
  Insert(f.db, f.insert_into("rocpd_info_node") +
                   " VALUES (1, ?, 0, ?, 'Linux', ?, '', '', 'x86_64', '')")
      .t(f.guid)
      .t("rocprofv3-sim")
      .t(hostname())
      .run();
  Insert(f.db,
         f.insert_into("rocpd_info_process") + " VALUES (1, ?, 1, ?, ?, ?, ?, ?, ?, ?, '{}', '{}')")
      .t(f.guid)
      .i(cap.ppid)
      .i(cap.pid)
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .t(join(cap.command, " "))
      .run();
  Insert(f.db, f.insert_into("rocpd_info_thread") + " VALUES (1, ?, 1, ?, 1, ?, ?, ?, ?, '{}')")
      .t(f.guid)
      .i(cap.ppid)
      .i(int64_t(cap.tid))
      .t("main")
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .run();
}

// The model's agents, and the queues and streams the dispatches use.
void write_agents_queues_streams(const RocpdFile& f, const ProcessCapture& cap) {
  Insert ag(f.db, f.insert_into("rocpd_info_agent") +
                      " VALUES (?, ?, 1, 1, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, '{}')");
  for (const auto& a : cap.model->agents) {
    const auto field = [&](const char* k) {
      const auto it = a.fields.find(k);
      return it == a.fields.end() ? std::string() : it->second;
    };
    ag.i(a.node_id)
        .t(f.guid)
        .t(a.gpu ? "GPU" : "CPU")
        .i(a.node_id)
        .i(a.logical_node_id)
        .i(a.type_index)
        .t(field("Name"))
        .t(field("Model_Name"))
        .t(field("Vendor_Name"))
        .t(field("Product_Name"))
        .t(field("Product_Name"))
        .run();
  }
  std::map<int, int> queues, streams;
  for (const auto& r : cap.stream.records) {
    queues[r.plan->queue] = 1;
    streams[r.plan->stream] = 1;
  }
  for (const auto& [q, _] : queues)
    Insert(f.db, f.insert_into("rocpd_info_queue") + " VALUES (?, ?, 1, 1, ?, '{}')")
        .i(q)
        .t(f.guid)
        .t("Queue " + std::to_string(q))
        .run();
  for (const auto& [s, _] : streams)
    Insert(f.db, f.insert_into("rocpd_info_stream") + " VALUES (?, ?, 1, 1, ?, '{}')")
        .i(s)
        .t(f.guid)
        .t("Stream " + std::to_string(s))
        .run();
}

// The one code object and the kernel symbols of the model.
void write_code_object(const RocpdFile& f, const ProcessCapture& cap, const OutputSettings& out) {
  const Agent& gpu = cap.model->agents[cap.model->gpu];
  Insert(f.db, f.insert_into("rocpd_info_code_object") +
                   " VALUES (1, ?, 1, 1, ?, 'memory://simulated', 0, 0, 0, 'MEMORY', '{}')")
      .t(f.guid)
      .i(gpu.node_id)
      .run();
  Insert ks(f.db, f.insert_into("rocpd_info_kernel_symbol") +
                      " VALUES (?, ?, 1, 1, 1, ?, ?, ?, 0, 8, ?, ?, ?, ?, ?, ?)");
  for (const auto& s : cap.model->symbols) {
    const std::string ext = "{\"kernel_id\":" + std::to_string(s.kernel_id) +
                            ",\"truncated_kernel_name\":\"" + s.truncated + "\"}";
    ks.i(int64_t(s.kernel_id))
        .t(f.guid)
        .t(s.name)
        .t(out.truncate_names ? s.truncated : s.name)
        .i(int64_t(s.kernel_id) * 4096)
        .i(s.lds)
        .i(s.scratch)
        .i(s.sgpr)
        .i(s.arch_vgpr)
        .i(s.accum_vgpr)
        .t(ext)
        .run();
  }
}

// Counter catalog rows for what was collected; their ids by counter name.
std::map<std::string, int64_t> write_counter_catalog(const RocpdFile& f,
                                                     const ProcessCapture& cap) {
  std::map<std::string, int64_t> pmc_ids;
  Insert pmc(f.db,
             f.insert_into("rocpd_info_pmc") +
                 " VALUES (?, ?, 1, 1, ?, ?, ?, 0, ?, ?, ?, ?, '', '', 'ABS', ?, ?, 0, ?, '{}')");
  int64_t id = 0;
  const hw::Target& target = cap.counter_model->target();
  const Agent& gpu = cap.model->agents[cap.model->gpu];
  for (const auto& c : cap.counters) {
    pmc_ids[c] = ++id;
    const auto* b = target.base(c);
    const auto* dc = target.derived(c);
    const std::string desc = b ? b->description : dc ? dc->description : "";
    pmc.i(id)
        .t(f.guid)
        .i(gpu.node_id)
        .t(cap.model->arch)
        .i(b ? b->event_id : -1)
        .t(c)
        .t(c)
        .t(desc)
        .t(desc)
        .t(b ? b->block : "")
        .t(dc ? dc->expression : "")
        .i(dc ? 1 : 0)
        .run();
  }
  return pmc_ids;
}

// One event and dispatch row per dispatch id, and the counter rows of every pass.
void write_dispatches(const RocpdFile& f, const ProcessCapture& cap, const OutputSettings& out,
                      std::map<std::string, int64_t>& pmc_ids) {
  const Agent& gpu = cap.model->agents[cap.model->gpu];
  Insert ev(f.db, f.insert_into("rocpd_event") +
                      " (id, guid, category_id, stack_id, parent_stack_id, correlation_id, "
                      "extdata) VALUES (?, ?, 1, ?, 0, ?, '{}')");
  Insert kd(f.db,
            f.insert_into("rocpd_kernel_dispatch") +
                " VALUES (?, ?, 1, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?, '{}')");
  Insert pe(f.db, f.insert_into("rocpd_pmc_event") +
                      " (guid, event_id, pmc_id, value, extdata) VALUES (?, ?, ?, ?, '{}')");
  // Kernel replay reuses one dispatch id for every pass of a dispatch. The rocpd writer keeps the
  // first pass's dispatch row only and attaches every pass's counter rows to that event, with
  // nothing saying which pass produced them (ROCm/rocm-systems PR #11422, open in 2026-09, which
  // describes generateRocpd's early return on a repeated dispatch_id); with distinct counters per
  // group the values survive, the later passes' timestamps do not.
  std::unordered_set<uint64_t> written;
  const auto counters = [&](const DispatchRecord& r, int64_t event_id) {
    if (!r.collect || !cap.counter_model) return;
    for (const auto& c : cap.counters_of(r)) {
      const auto v = cap.counter_model->value(r, c);
      if (!v) continue;
      const int parts = cap.counter_model->is_base(c) ? cap.model->num_xcd : 1;
      for (int k = 0; k < parts; ++k) pe.t(f.guid).i(event_id).i(pmc_ids[c]).d(*v / parts).run();
    }
  };
  for (const auto& r : cap.stream.records) {
    // With counter collection only, dispatch rows come from the counter records (7.0 behaviour).
    if (!out.kernel_trace && !r.collect) continue;
    const auto& d = *r.plan;
    const auto& s = cap.model->symbols[d.symbol];
    const auto event_id = int64_t(r.dispatch_id);
    if (!written.insert(r.dispatch_id).second) {
      counters(r, event_id);
      continue;
    }
    ev.i(event_id).t(f.guid).i(int64_t(r.correlation_id)).i(int64_t(r.correlation_id)).run();
    kd.i(int64_t(r.dispatch_id))
        .t(f.guid)
        .i(gpu.node_id)
        .i(int64_t(s.kernel_id))
        .i(int64_t(r.dispatch_id))
        .i(d.queue)
        .i(d.stream)
        .i(int64_t(r.start))
        .i(int64_t(r.end))
        .i(s.scratch)
        .i(s.lds)
        .i(s.workgroup[0])
        .i(s.workgroup[1])
        .i(s.workgroup[2])
        .i(d.grid[0])
        .i(d.grid[1])
        .i(d.grid[2])
        .i(event_id)
        .run();
    counters(r, event_id);
  }
}

}  // namespace

std::vector<std::filesystem::path> write_rocpd(const ProcessCapture& cap,
                                               const OutputSettings& out) {
  if (cap.stream.records.empty()) return {};
  const bool any_counter_rows =
      !cap.counters.empty() && std::any_of(cap.stream.records.begin(), cap.stream.records.end(),
                                           [](const auto& r) { return r.collect; });
  if (!out.kernel_trace && !any_counter_rows) return {};
  std::filesystem::path p = out.prefix;
  p += "_results.db";
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path());
  std::filesystem::remove(p);
  const std::string uuid = rocpd::make_uuid(static_cast<uint64_t>(cap.pid) * 7919 + cap.start_ns);
  std::string suffix = "_" + uuid;
  for (auto& c : suffix)
    if (c == '-') c = '_';
  std::cerr << glog_prefix('E', cap.tid, "generateRocpd.cpp:262")
            << "Opened result file: " << p.string() << " (UUID=" << uuid << ")\n";

  Db db(p.string());
  const RocpdFile file{db, uuid, suffix};
  create_tables(file);
  write_run_info(file, cap);
  write_agents_queues_streams(file, cap);
  write_code_object(file, cap, out);
  std::map<std::string, int64_t> pmc_ids;
  if (any_counter_rows) pmc_ids = write_counter_catalog(file, cap);
  write_dispatches(file, cap, out, pmc_ids);
  db.exec("COMMIT;");
  return {p};
}

}  // namespace kprof::sim
