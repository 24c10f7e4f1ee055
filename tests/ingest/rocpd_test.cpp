// The rocpd reader against databases built here with the schema of
// ROCm/rocm-systems projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/*.sql
// (rocprofiler-sdk source/share/rocprofiler-sdk-rocpd/*.sql): `_<uuid>` tables, with and
// without the unsuffixed views rocprofv3 adds.
#include <gtest/gtest.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "core/base/error.hpp"
#include "core/ingest/read_file.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;

const char* k_uuid = "_0190a1b2_c3d4_7e5f_8a9b_0c1d2e3f4a5b";

void build_rocpd(const std::string& path, bool with_views) {
  fs::remove(path);
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  const std::string u = k_uuid;
  const std::vector<std::string> tables = {
      "rocpd_metadata(id INTEGER PRIMARY KEY, tag TEXT, value TEXT)",
      "rocpd_string(id INTEGER PRIMARY KEY, guid TEXT, string TEXT)",
      "rocpd_info_process(id INTEGER PRIMARY KEY, guid TEXT, nid INT, ppid INT, pid INT, init INT, "
      "fini INT, start INT, end INT, command TEXT, environment TEXT, extdata TEXT)",
      "rocpd_info_thread(id INTEGER PRIMARY KEY, guid TEXT, nid INT, ppid INT, pid INT, tid INT, "
      "name TEXT, start INT, end INT, extdata TEXT)",
      "rocpd_info_agent(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, type TEXT, "
      "absolute_index INT, logical_index INT, type_index INT, uuid INT, name TEXT, model_name "
      "TEXT, vendor_name TEXT, product_name TEXT, user_name TEXT, extdata TEXT)",
      "rocpd_info_pmc(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, agent_id INT, "
      "target_arch TEXT, event_code INT, instance_id INT, name TEXT, symbol TEXT, description "
      "TEXT, long_description TEXT, component TEXT, units TEXT, value_type TEXT, block TEXT, "
      "expression TEXT, is_constant INT, is_derived INT, extdata TEXT)",
      "rocpd_info_kernel_symbol(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, "
      "code_object_id INT, kernel_name TEXT, display_name TEXT, kernel_object INT, "
      "kernarg_segment_size INT, kernarg_segment_alignment INT, group_segment_size INT, "
      "private_segment_size INT, sgpr_count INT, arch_vgpr_count INT, accum_vgpr_count INT, "
      "extdata TEXT)",
      "rocpd_event(id INTEGER PRIMARY KEY, guid TEXT, category_id INT, stack_id INT, "
      "parent_stack_id INT, correlation_id INT, call_stack TEXT, line_info TEXT, extdata TEXT)",
      "rocpd_pmc_event(id INTEGER PRIMARY KEY, guid TEXT, event_id INT, pmc_id INT, value REAL, "
      "extdata TEXT)",
      "rocpd_kernel_dispatch(id INTEGER PRIMARY KEY, guid TEXT, nid INT, pid INT, tid INT, "
      "agent_id INT, kernel_id INT, dispatch_id INT, queue_id INT, stream_id INT, start INT, end "
      "INT, private_segment_size INT, group_segment_size INT, workgroup_size_x INT, "
      "workgroup_size_y INT, workgroup_size_z INT, grid_size_x INT, grid_size_y INT, grid_size_z "
      "INT, region_name_id INT, event_id INT, extdata TEXT)"};
  for (const auto& t : tables) {
    const std::string name = t.substr(0, t.find('('));
    db.exec("CREATE TABLE " + name + u + t.substr(t.find('(')));
    if (with_views) db.exec("CREATE VIEW " + name + " AS SELECT * FROM " + name + u);
  }
  db.exec("INSERT INTO rocpd_metadata" + u + " VALUES (1,'schema_version','3')");
  db.exec("INSERT INTO rocpd_info_process" + u +
          " (id, pid, command) VALUES (1, 31337, 'python3 serve.py')");
  db.exec("INSERT INTO rocpd_info_thread" + u + " (id, pid, tid) VALUES (1, 1, 31338)");
  // node 0 = CPU, node 1 = GPU (logical index 1, so CSV would say "Agent 1").
  db.exec("INSERT INTO rocpd_info_agent" + u +
          " (id, type, absolute_index, logical_index, type_index, name, product_name) VALUES "
          "(10,'CPU',0,0,0,'AMD EPYC','AMD EPYC 9654'),(11,'GPU',1,1,0,'gfx942','AMD Instinct "
          "MI300X')");
  db.exec("INSERT INTO rocpd_info_kernel_symbol" + u +
          " (id, kernel_name, display_name, sgpr_count, arch_vgpr_count, accum_vgpr_count) VALUES "
          "(5,'_Z4gemmIfEvPT_.kd','void gemm<float>(float*, int)',32,64,8),"
          "(6,'_Z3addv.kd','add()',16,8,0)");
  db.exec("INSERT INTO rocpd_info_pmc" + u +
          " (id, name) VALUES (1,'SQ_WAVES'),(2,'GRBM_GUI_ACTIVE')");
  for (int i = 1; i <= 3; ++i) {
    const std::string s = std::to_string(i);
    db.exec("INSERT INTO rocpd_event" + u + " (id, correlation_id) VALUES (" +
            std::to_string(100 + i) + "," + std::to_string(500 + i) + ")");
    db.exec("INSERT INTO rocpd_kernel_dispatch" + u +
            " (id, pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id, start, end, "
            "private_segment_size, group_segment_size, workgroup_size_x, workgroup_size_y, "
            "workgroup_size_z, grid_size_x, grid_size_y, grid_size_z, event_id) VALUES (" +
            s + ",1,1,11," + (i == 2 ? "6" : "5") + "," + s + ",1,0," + std::to_string(1000 * i) +
            "," + std::to_string(1000 * i + 100 * i) + ",0,1024,256,1,1,4096,2,1," +
            std::to_string(100 + i) + ")");
    // Two instances of SQ_WAVES per dispatch (summed by the reader), one GRBM_GUI_ACTIVE.
    db.exec("INSERT INTO rocpd_pmc_event" + u + " (event_id, pmc_id, value) VALUES (" +
            std::to_string(100 + i) + ",1," + std::to_string(10 * i) + "),(" +
            std::to_string(100 + i) + ",1,0.5),(" + std::to_string(100 + i) + ",2,7)");
  }
}

class RocpdReader : public ::testing::TestWithParam<bool> {};

TEST_P(RocpdReader, ReadsAgentsDispatchesAndSummedCounters) {
  const std::string path =
      (fs::temp_directory_path() / ("kprof_ingest_" + std::to_string(GetParam()) + "_results.db"))
          .string();
  build_rocpd(path, GetParam());
  test::VectorSink sink;
  FileResult r = read_file(path, sink);
  EXPECT_EQ(r.kind, "rocpd");
  ASSERT_EQ(sink.files.size(), 1u);
  EXPECT_EQ(sink.files[0], "rocpd " + path);

  ASSERT_EQ(sink.agents.size(), 2u);
  EXPECT_EQ(sink.agents[1].type, "GPU");
  EXPECT_EQ(sink.agents[1].name, "gfx942");
  EXPECT_EQ(sink.agents[1].product_name, "AMD Instinct MI300X");

  ASSERT_EQ(sink.dispatches.size(), 3u);
  const auto& d = sink.dispatches[1];
  EXPECT_EQ(d.dispatch_id, 2);
  EXPECT_EQ(d.kernel_name, "add()");
  EXPECT_EQ(d.agent, 1);  // logical index, as "Agent 1" in CSV
  EXPECT_EQ(d.pid, 31337);
  EXPECT_EQ(d.tid, 31338);
  EXPECT_EQ(d.correlation_id, 502);
  EXPECT_EQ(d.start_ns, 2000);
  EXPECT_EQ(d.end_ns, 2200);
  EXPECT_EQ(d.lds, 1024);
  EXPECT_EQ(d.grid_x, 4096);
  EXPECT_EQ(d.grid_y, 2);
  EXPECT_EQ(d.wg_x, 256);
  EXPECT_TRUE(d.dims_known);
  EXPECT_EQ(d.vgpr, 8);
  EXPECT_EQ(sink.dispatches[0].kernel_name, "void gemm<float>(float*, int)");
  EXPECT_EQ(sink.dispatches[0].sgpr, 32);

  ASSERT_EQ(sink.counters.size(), 6u);
  EXPECT_EQ(sink.counters[0].dispatch_id, 1);
  EXPECT_EQ(sink.counters[0].counter, "SQ_WAVES");
  EXPECT_DOUBLE_EQ(sink.counters[0].value, 10.5);
  EXPECT_EQ(sink.counters[1].counter, "GRBM_GUI_ACTIVE");
  EXPECT_DOUBLE_EQ(sink.counters[1].value, 7);
  EXPECT_DOUBLE_EQ(sink.counters[4].value, 30.5);
  EXPECT_EQ(sink.counters[4].pid, 31337);
  EXPECT_EQ(r.dispatches, 3);
  EXPECT_EQ(r.counters, 6);
  fs::remove(path);
}

INSTANTIATE_TEST_SUITE_P(ViewsAndSuffixedTables, RocpdReader, ::testing::Values(true, false));

// SQLite stores TEXT as given (https://sqlite.org/invalidutf.html): a damaged rocpd file can hold
// bytes that are not UTF-8. Like the CSV readers, the reader rejects such a row with its reason
// (table, column, byte, offset) and keeps the rest; --strict makes it an error; a file whose
// every row is bad is an error naming the first.
TEST(RocpdReaderErrors, InvalidUtf8RowsAreRejectedWithTheirReason) {
  const std::string path = (fs::temp_directory_path() / "kprof_ingest_utf8_results.db").string();
  build_rocpd(path, true);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    const std::string u = k_uuid;
    db.exec("UPDATE rocpd_info_kernel_symbol" + u +
            " SET display_name = 'add' || char(40) || CAST(x'ff41' AS TEXT) WHERE id = 6");
    db.exec("UPDATE rocpd_info_agent" + u +
            " SET product_name = CAST(x'414d44c3' AS TEXT) WHERE id = 10");
    db.exec("UPDATE rocpd_info_pmc" + u + " SET name = CAST(x'5351c0af' AS TEXT) WHERE id = 2");
  }
  test::VectorSink sink;
  const FileResult r = read_file(path, sink);
  EXPECT_EQ(sink.agents.size(), 1u);      // the CPU agent's product name is cut mid-sequence
  EXPECT_EQ(sink.dispatches.size(), 2u);  // dispatch 2 ran the kernel with the bad name
  EXPECT_EQ(sink.counters.size(), 3u);    // SQ_WAVES of each dispatch; GRBM_GUI_ACTIVE is bad
  EXPECT_EQ(r.rows_rejected, 1 + 1 + 3);
  ASSERT_EQ(sink.bad.size(), 5u);
  EXPECT_EQ(sink.bad[0].reason,
            "agent 0: rocpd_info_agent.product_name: not valid UTF-8: byte 0xC3 at offset 3 "
            "(after 'AMD')");
  EXPECT_EQ(sink.bad[1].reason,
            "dispatch 2: kernel name (rocpd_info_kernel_symbol.display_name): not valid UTF-8: "
            "byte 0xFF at offset 4 (after 'add(')");
  EXPECT_EQ(sink.bad[2].reason,
            "dispatch 1: rocpd_info_pmc.name: not valid UTF-8: byte 0xC0 at offset 2 (after 'SQ')");
  for (const auto& b : sink.bad) EXPECT_EQ(b.file, path);

  test::VectorSink strict_sink;
  ReadOptions strict;
  strict.strict = true;
  try {
    read_file(path, strict_sink, strict);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(e.diagnostics()[0].line().find("agent 0: rocpd_info_agent.product_name: not valid "
                                             "UTF-8: byte 0xC3 at offset 3"),
              std::string::npos)
        << e.diagnostics()[0].line();
  }

  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    const std::string u = k_uuid;
    db.exec("DELETE FROM rocpd_info_agent" + u);
    db.exec("DELETE FROM rocpd_pmc_event" + u);
    db.exec("UPDATE rocpd_info_kernel_symbol" + u + " SET display_name = CAST(x'ff' AS TEXT)");
  }
  test::VectorSink none;
  try {
    read_file(path, none);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(
        e.diagnostics()[0].line().find(
            "none of the 3 rows is usable; the first: dispatch 1: kernel name "
            "(rocpd_info_kernel_symbol.display_name): not valid UTF-8: byte 0xFF at offset 0"),
        std::string::npos)
        << e.diagnostics()[0].line();
  }
  fs::remove(path);
}

TEST(RocpdReaderErrors, SqliteFileWithoutRocpdTables) {
  const std::string path = (fs::temp_directory_path() / "kprof_ingest_other_results.db").string();
  fs::remove(path);
  {
    SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec("CREATE TABLE t(x)");
  }
  test::VectorSink sink;
  try {
    read_file(path, sink);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].line(),
              path +
                  ": SQLite file without rocpd tables (no rocpd_kernel_dispatch) (expected a "
                  "rocprofv3 rocpd database (<prefix>_results.db))");
  }
  EXPECT_TRUE(sink.files.empty());
  fs::remove(path);
}

}  // namespace
}  // namespace kprof::ingest
