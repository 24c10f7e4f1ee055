// rocpd output: "<prefix>_results.db", the SQLite database rocprofv3 7.0 writes by default.
// Schema: ROCm/rocm-systems projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/*.sql
// (schema_version 3; physical tables suffixed with the session UUID, unsuffixed views of them, and
// data views such as `kernels` and `counters_collection`). The DDL below is written from those
// files; the view column names follow rocprofiler-sdk's data_views.sql (ROCm/rocm-systems
// projects/rocprofiler-sdk/source/share/ rocprofiler-sdk-rocpd/data_views.sql) so that readers of
// real files can read ours. Simplifications (UNCERTAIN vs the real writer): tables the double never
// fills (regions, samples, memory copies, API args) are not created; a base counter's value is
// stored as one row per XCD instead of one per hardware instance; derived counters as one row.
#include <cstdio>
#include <random>

#include "core/sim/rocpd_db.hpp"

namespace kprof::sim::rocpd {

std::string make_uuid(uint64_t seed) {
  std::mt19937_64 rng(seed);
  char buf[40];
  const uint64_t a = rng(), b = rng();
  std::snprintf(buf, sizeof buf, "%08llx-%04llx-4%03llx-%04llx-%012llx",
                static_cast<unsigned long long>(a >> 32),
                static_cast<unsigned long long>((a >> 16) & 0xffff),
                static_cast<unsigned long long>(a & 0xfff),
                static_cast<unsigned long long>(((b >> 48) & 0x3fff) | 0x8000),
                static_cast<unsigned long long>(b & 0xffffffffffffULL));
  return buf;
}

// Table name -> column definitions (first column is the id).
const std::vector<std::pair<std::string, std::string>>& tables() {
  static const std::vector<std::pair<std::string, std::string>> k = {
      {"rocpd_metadata", "id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL"},
      {"rocpd_string", "id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL"},
      {"rocpd_info_node",
       "id INTEGER PRIMARY KEY, guid TEXT, hash BIGINT, machine_id TEXT, system_name TEXT, "
       "hostname TEXT, release TEXT, version TEXT, hardware_name TEXT, domain_name TEXT"},
      {"rocpd_info_process",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER, pid INTEGER, init BIGINT, "
       "fini BIGINT, start BIGINT, end BIGINT, command TEXT, environment JSONB, extdata JSONB"},
      {"rocpd_info_thread",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, ppid INTEGER, pid INTEGER, tid INTEGER, "
       "name TEXT, start BIGINT, end BIGINT, extdata JSONB"},
      {"rocpd_info_agent",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, type TEXT, absolute_index "
       "INTEGER, logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name "
       "TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT, extdata JSONB"},
      {"rocpd_info_queue",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, name TEXT, extdata JSONB"},
      {"rocpd_info_stream",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, name TEXT, extdata JSONB"},
      {"rocpd_info_pmc",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, agent_id INTEGER, "
       "target_arch TEXT, event_code INTEGER, instance_id INTEGER, name TEXT, symbol TEXT, "
       "description TEXT, long_description TEXT, component TEXT, units TEXT, value_type TEXT, "
       "block TEXT, expression TEXT, is_constant INTEGER, is_derived INTEGER, extdata JSONB"},
      {"rocpd_info_code_object",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, agent_id INTEGER, uri TEXT, "
       "load_base BIGINT, load_size BIGINT, load_delta BIGINT, storage_type TEXT, extdata JSONB"},
      {"rocpd_info_kernel_symbol",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, code_object_id INTEGER, "
       "kernel_name TEXT, display_name TEXT, kernel_object INTEGER, kernarg_segment_size INTEGER, "
       "kernarg_segment_alignment INTEGER, group_segment_size INTEGER, private_segment_size "
       "INTEGER, sgpr_count INTEGER, arch_vgpr_count INTEGER, accum_vgpr_count INTEGER, extdata "
       "JSONB"},
      {"rocpd_event",
       "id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER, stack_id INTEGER, "
       "parent_stack_id INTEGER, correlation_id INTEGER, call_stack JSONB, line_info JSONB, "
       "extdata JSONB"},
      {"rocpd_pmc_event",
       "id INTEGER PRIMARY KEY, guid TEXT, event_id INTEGER, pmc_id INTEGER, value REAL, extdata "
       "JSONB"},
      {"rocpd_kernel_dispatch",
       "id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER, pid INTEGER, tid INTEGER, agent_id "
       "INTEGER, kernel_id INTEGER, dispatch_id INTEGER, queue_id INTEGER, stream_id INTEGER, "
       "start BIGINT, end BIGINT, private_segment_size INTEGER, group_segment_size INTEGER, "
       "workgroup_size_x INTEGER, workgroup_size_y INTEGER, workgroup_size_z INTEGER, grid_size_x "
       "INTEGER, grid_size_y INTEGER, grid_size_z INTEGER, region_name_id INTEGER, event_id "
       "INTEGER, extdata JSONB"},
  };
  return k;
}

const char* data_views() {
  return R"SQL(
CREATE VIEW kernels AS
SELECT K.id, K.guid, T.tid, CS.string AS category, R.string AS region, S.display_name AS name,
       K.nid, P.pid, A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
       A.type_index AS agent_type_index, A.type AS agent_type, S.code_object_id, K.kernel_id,
       K.dispatch_id, K.stream_id, K.queue_id, Q.name AS queue, ST.name AS stream, K.start, K.end,
       K.end - K.start AS duration, K.grid_size_x AS grid_x, K.grid_size_y AS grid_y,
       K.grid_size_z AS grid_z, K.workgroup_size_x AS workgroup_x,
       K.workgroup_size_y AS workgroup_y, K.workgroup_size_z AS workgroup_z,
       K.group_segment_size AS lds_size, K.private_segment_size AS scratch_size,
       S.group_segment_size AS static_lds_size, S.private_segment_size AS static_scratch_size,
       E.stack_id, E.parent_stack_id, E.correlation_id AS corr_id
FROM rocpd_kernel_dispatch K
JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
JOIN rocpd_event E ON E.id = K.event_id AND E.guid = K.guid
LEFT JOIN rocpd_string CS ON CS.id = E.category_id AND CS.guid = E.guid
JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
LEFT JOIN rocpd_info_stream ST ON ST.id = K.stream_id AND ST.guid = K.guid
LEFT JOIN rocpd_info_queue Q ON Q.id = K.queue_id AND Q.guid = K.guid
JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid
JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid;

CREATE VIEW pmc_info AS
SELECT I.id, I.guid, I.nid, P.pid, A.absolute_index AS agent_abs_index, I.is_constant,
       I.is_derived, I.name, I.description, I.block, I.expression
FROM rocpd_info_pmc I
JOIN rocpd_info_agent A ON A.id = I.agent_id AND A.guid = I.guid
JOIN rocpd_info_process P ON P.id = I.pid AND P.guid = I.guid;

CREATE VIEW counters_collection AS
SELECT MIN(PE.id) AS id, PE.guid, K.dispatch_id, K.kernel_id, E.id AS event_id, E.correlation_id,
       E.stack_id, E.parent_stack_id, P.pid, T.tid, K.agent_id,
       A.absolute_index AS agent_abs_index, A.logical_index AS agent_log_index,
       A.type_index AS agent_type_index, A.type AS agent_type, K.queue_id,
       K.grid_size_x, K.grid_size_y, K.grid_size_z,
       K.grid_size_x * K.grid_size_y * K.grid_size_z AS grid_size, S.display_name AS kernel_name,
       R.string AS kernel_region, K.workgroup_size_x, K.workgroup_size_y, K.workgroup_size_z,
       K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z AS workgroup_size,
       K.group_segment_size AS lds_block_size, K.private_segment_size AS scratch_size,
       S.arch_vgpr_count AS vgpr_count, S.accum_vgpr_count, S.sgpr_count,
       I.name AS counter_name, I.symbol AS counter_symbol, I.component, I.description, I.block,
       I.expression, I.value_type, I.id AS counter_id, SUM(PE.value) AS value, K.start, K.end,
       I.is_constant, I.is_derived, K.end - K.start AS duration, CS.string AS category, K.nid,
       E.extdata, S.code_object_id
FROM rocpd_pmc_event PE
JOIN rocpd_info_pmc I ON I.id = PE.pmc_id AND I.guid = PE.guid
JOIN rocpd_event E ON E.id = PE.event_id AND E.guid = PE.guid
LEFT JOIN rocpd_string CS ON CS.id = E.category_id AND CS.guid = E.guid
JOIN rocpd_kernel_dispatch K ON K.event_id = PE.event_id AND K.guid = PE.guid
LEFT JOIN rocpd_string R ON R.id = K.region_name_id AND R.guid = K.guid
JOIN rocpd_info_agent A ON A.id = K.agent_id AND A.guid = K.guid
JOIN rocpd_info_kernel_symbol S ON S.id = K.kernel_id AND S.guid = K.guid
JOIN rocpd_info_process P ON P.id = K.pid AND P.guid = K.guid
JOIN rocpd_info_thread T ON T.id = K.tid AND T.guid = K.guid
GROUP BY PE.guid, K.dispatch_id, I.name, K.agent_id;
)SQL";
}

}  // namespace kprof::sim::rocpd
