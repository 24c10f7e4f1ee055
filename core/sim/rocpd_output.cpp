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
  db.exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; BEGIN;");
  for (const auto& [name, cols] : rocpd::tables()) {
    db.exec("CREATE TABLE `" + name + suffix + "` (" + cols + ");");
    db.exec("CREATE VIEW `" + name + "` AS SELECT * FROM `" + name + suffix + "`;");
  }
  db.exec(rocpd::data_views());
  const std::string guid = uuid;
  const auto tbl = [&](const std::string& n) { return "`" + n + suffix + "`"; };
  {
    Insert meta(db, "INSERT INTO " + tbl("rocpd_metadata") + " (tag, value) VALUES (?, ?)");
    meta.t("schema_version").t("3").run();
    meta.t("uuid").t(suffix.substr(1)).run();
    meta.t("guid").t(guid).run();
    // Not a real rocprofv3 tag: marks every figure in this file as simulated.
    meta.t("simulated").t("rocprofv3-sim " + cap.model->source_path).run();
  }
  Insert str(db, "INSERT INTO " + tbl("rocpd_string") + " (id, guid, string) VALUES (?, ?, ?)");
  str.i(1).t(guid).t("KERNEL_DISPATCH").run();
  str.i(2).t(guid).t("").run();  // region name of dispatches outside any roctx range
  Insert(db, "INSERT INTO " + tbl("rocpd_info_node") +
                 " VALUES (1, ?, 0, ?, 'Linux', ?, '', '', 'x86_64', '')")
      .t(guid)
      .t("rocprofv3-sim")
      .t(hostname())
      .run();
  Insert(db, "INSERT INTO " + tbl("rocpd_info_process") +
                 " VALUES (1, ?, 1, ?, ?, ?, ?, ?, ?, ?, '{}', '{}')")
      .t(guid)
      .i(cap.ppid)
      .i(cap.pid)
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .t(join(cap.command, " "))
      .run();
  Insert(db,
         "INSERT INTO " + tbl("rocpd_info_thread") + " VALUES (1, ?, 1, ?, 1, ?, ?, ?, ?, '{}')")
      .t(guid)
      .i(cap.ppid)
      .i(int64_t(cap.tid))
      .t("main")
      .i(int64_t(cap.start_ns))
      .i(int64_t(cap.end_ns))
      .run();
  {
    Insert ag(db, "INSERT INTO " + tbl("rocpd_info_agent") +
                      " VALUES (?, ?, 1, 1, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, '{}')");
    for (const auto& a : cap.model->agents) {
      const auto f = [&](const char* k) {
        const auto it = a.fields.find(k);
        return it == a.fields.end() ? std::string() : it->second;
      };
      ag.i(a.node_id)
          .t(guid)
          .t(a.gpu ? "GPU" : "CPU")
          .i(a.node_id)
          .i(a.logical_node_id)
          .i(a.type_index)
          .t(f("Name"))
          .t(f("Model_Name"))
          .t(f("Vendor_Name"))
          .t(f("Product_Name"))
          .t(f("Product_Name"))
          .run();
    }
  }
  std::map<int, int> queues, streams;
  for (const auto& r : cap.stream.records) {
    queues[r.plan->queue] = 1;
    streams[r.plan->stream] = 1;
  }
  for (const auto& [q, _] : queues)
    Insert(db, "INSERT INTO " + tbl("rocpd_info_queue") + " VALUES (?, ?, 1, 1, ?, '{}')")
        .i(q)
        .t(guid)
        .t("Queue " + std::to_string(q))
        .run();
  for (const auto& [s, _] : streams)
    Insert(db, "INSERT INTO " + tbl("rocpd_info_stream") + " VALUES (?, ?, 1, 1, ?, '{}')")
        .i(s)
        .t(guid)
        .t("Stream " + std::to_string(s))
        .run();
  const Agent& gpu = cap.model->agents[cap.model->gpu];
  Insert(db, "INSERT INTO " + tbl("rocpd_info_code_object") +
                 " VALUES (1, ?, 1, 1, ?, 'memory://simulated', 0, 0, 0, 'MEMORY', '{}')")
      .t(guid)
      .i(gpu.node_id)
      .run();
  {
    Insert ks(db, "INSERT INTO " + tbl("rocpd_info_kernel_symbol") +
                      " VALUES (?, ?, 1, 1, 1, ?, ?, ?, 0, 8, ?, ?, ?, ?, ?, ?)");
    for (const auto& s : cap.model->symbols) {
      const std::string ext = "{\"kernel_id\":" + std::to_string(s.kernel_id) +
                              ",\"truncated_kernel_name\":\"" + s.truncated + "\"}";
      ks.i(int64_t(s.kernel_id))
          .t(guid)
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
  // Counter catalog rows for what was collected.
  std::map<std::string, int64_t> pmc_ids;
  if (any_counter_rows) {
    Insert pmc(db,
               "INSERT INTO " + tbl("rocpd_info_pmc") +
                   " VALUES (?, ?, 1, 1, ?, ?, ?, 0, ?, ?, ?, ?, '', '', 'ABS', ?, ?, 0, ?, '{}')");
    int64_t id = 0;
    const hw::Target& target = cap.counter_model->target();
    for (const auto& c : cap.counters) {
      pmc_ids[c] = ++id;
      const auto* b = target.base(c);
      const auto* dc = target.derived(c);
      const std::string desc = b ? b->description : dc ? dc->description : "";
      pmc.i(id)
          .t(guid)
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
  }
  Insert ev(db, "INSERT INTO " + tbl("rocpd_event") +
                    " (id, guid, category_id, stack_id, parent_stack_id, correlation_id, extdata) "
                    "VALUES (?, ?, 1, ?, 0, ?, '{}')");
  Insert kd(db,
            "INSERT INTO " + tbl("rocpd_kernel_dispatch") +
                " VALUES (?, ?, 1, 1, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 2, ?, '{}')");
  Insert pe(db, "INSERT INTO " + tbl("rocpd_pmc_event") +
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
      for (int k = 0; k < parts; ++k) pe.t(guid).i(event_id).i(pmc_ids[c]).d(*v / parts).run();
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
    ev.i(event_id).t(guid).i(int64_t(r.correlation_id)).i(int64_t(r.correlation_id)).run();
    kd.i(int64_t(r.dispatch_id))
        .t(guid)
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
  db.exec("COMMIT;");
  return {p};
}

}  // namespace kprof::sim
