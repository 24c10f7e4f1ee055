// PassLoader: every row kind stored and read back with its provenance, misuse refused, the run
// marked simulated, and the RawInsert baseline (atomicity: loader_atomic_test.cpp).
#include <gtest/gtest.h>

#include <fstream>

#include "core/base/error.hpp"
#include "core/base/sha256.hpp"
#include "loader_test_util.hpp"

namespace kprof::store {
namespace {

using testing::dispatch;
using testing::read_dispatches;
using testing::same;
using testing::TempDir;

TEST(PassLoader, StoresEveryRowKindAndProvenance) {
  TempDir dir;
  const auto trace_file = dir / "kernel_trace.csv";
  std::ofstream(trace_file) << "Kind,Agent_Id\nKERNEL_DISPATCH,\"Agent 2\"\n";
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 1, PassKind::counters);

  AgentRow gpu{4, 1, "GPU", "gfx942", "AMD Instinct MI300X (simulated)", 304, 1216, 64, 8, 8, 2100};
  AgentRow cpu{0, 0, "CPU", "AMD EPYC", "AMD EPYC 9654", 0, 0, 0, 0, 0, 3700};
  DispatchRow full = dispatch(1, "gemm<128, 64>(float const*, float*)");
  DispatchRow products = dispatch(2, "gemm<128, 64>(float const*, float*)");
  products.stream_id.reset();
  products.grid_y = products.grid_z = products.wg_y = products.wg_z = 1;
  products.dims_known = false;
  products.vgpr.reset();
  products.agpr.reset();
  products.sgpr.reset();
  KernelStatRow stat{"gemm<128, 64>(float const*, float*)", 2, 500, 250.0, 99.5, 200, 300, 50.25};
  MemoryCopyRow copy{77, "MEMORY_COPY_HOST_TO_DEVICE", 3, 0, 2, 55, 900, 950};
  ApiCallRow call{"HIP_RUNTIME_API_EXT", "hipLaunchKernel", 77, 78, 1001, 800, 810};
  ApiCallRow marker{"MARKER_CORE_RANGE_API", "decode step 3", 77, 78, 0, 700, 990};
  MemoryAllocationRow alloc{
      77, "MEMORY_ALLOCATION_ALLOCATE", 2, 4096, "0x00007f0000001000", 12, 600, 640};
  MemoryAllocationRow free{
      77, "MEMORY_ALLOCATION_FREE", std::nullopt, 0, "0x00007f0000001000", 13, 980, 985};

  {
    PassLoader loader(db, pass);
    loader.begin_file(trace_file.string(), "kernel_trace");
    loader.profiler_version("1.0.0 (rocm 7.0.2)");
    loader.agent(gpu);
    loader.agent(cpu);
    loader.agent(gpu);  // a second process's agent_info repeats it
    loader.dispatch(full);
    loader.dispatch(products);
    loader.counter({1, 77, "SQ_WAVES", 16});
    loader.counter({1, 77, "TCC_HIT_sum", 12.5});
    loader.counter({2, 77, "SQ_WAVES", 4});
    loader.bad_row({trace_file.string(), 12,
                    "line 12, column 'Start_Timestamp': expected an "
                    "integer, got 'abc'"});
    loader.bad_row({trace_file.string(), 30, "second problem"});
    loader.counter({1, 77, "SQ_WAVES", 99});  // duplicate: rejected, first kept
    // The reader hashes the bytes it reads; the loader stores what it is given.
    loader.file_digest(static_cast<int64_t>(std::filesystem::file_size(trace_file)),
                       sha256_file(trace_file));
    loader.end_file(9);
    loader.begin_file((dir / "missing_stats.csv").string(), "kernel_stats");
    loader.kernel_stat(stat);
    loader.memory_copy(copy);
    loader.api_call(call);
    loader.api_call(marker);
    loader.memory_allocation(alloc);
    loader.memory_allocation(free);
    loader.end_file(1);
    EXPECT_EQ(loader.rows_rejected(), 3);
    loader.commit();
  }

  auto agents = db.agents(pass);
  ASSERT_EQ(agents.size(), 2u);
  EXPECT_EQ(agents[0].type, "CPU");
  EXPECT_EQ(agents[0].max_engine_clk_mhz, 3700);
  EXPECT_EQ(agents[1].node_id, 4);
  EXPECT_EQ(agents[1].logical_node_id, 1);
  EXPECT_EQ(agents[1].product_name, "AMD Instinct MI300X (simulated)");
  EXPECT_EQ(agents[1].cu_count, 304);
  EXPECT_EQ(agents[1].simd_count, 1216);
  EXPECT_EQ(agents[1].wave_front_size, 64);
  EXPECT_EQ(agents[1].max_waves_per_simd, 8);
  EXPECT_EQ(agents[1].num_xcc, 8);

  auto ds = read_dispatches(db, pass);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_TRUE(same(ds[0], full));
  EXPECT_TRUE(same(ds[1], products));
  EXPECT_FALSE(ds[1].dims_known);
  EXPECT_FALSE(ds[1].vgpr);
  EXPECT_FALSE(ds[1].stream_id);

  std::vector<CounterRow> cs;
  db.for_each_counter(pass, [&](const CounterRow& c) { cs.push_back(c); });
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].counter, "SQ_WAVES");
  EXPECT_EQ(cs[0].value, 16);
  EXPECT_EQ(cs[1].counter, "TCC_HIT_sum");
  EXPECT_EQ(cs[1].value, 12.5);
  EXPECT_EQ(cs[2].dispatch_id, 2);
  EXPECT_EQ(cs[2].pid, 77);

  auto stats = db.kernel_stats(pass);
  ASSERT_EQ(stats.size(), 1u);
  EXPECT_EQ(stats[0].name, stat.name);
  EXPECT_EQ(stats[0].calls, 2);
  EXPECT_EQ(stats[0].total_ns, 500);
  EXPECT_EQ(stats[0].average_ns, 250.0);
  EXPECT_EQ(stats[0].percentage, 99.5);
  EXPECT_EQ(stats[0].min_ns, 200);
  EXPECT_EQ(stats[0].max_ns, 300);
  EXPECT_EQ(stats[0].stddev_ns, 50.25);

  auto copies = db.memory_copies(pass);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies[0].direction, "MEMORY_COPY_HOST_TO_DEVICE");
  EXPECT_EQ(copies[0].dst_agent, 2);
  EXPECT_EQ(copies[0].end_ns, 950);
  auto allocs = db.memory_allocations(pass);
  ASSERT_EQ(allocs.size(), 2u);
  EXPECT_EQ(allocs[0].operation, "MEMORY_ALLOCATION_ALLOCATE");
  EXPECT_EQ(allocs[0].agent, 2);
  EXPECT_EQ(allocs[0].size_bytes, 4096);
  EXPECT_EQ(allocs[0].address, "0x00007f0000001000");
  EXPECT_EQ(allocs[0].correlation_id, 12);
  EXPECT_EQ(allocs[1].operation, "MEMORY_ALLOCATION_FREE");
  EXPECT_FALSE(allocs[1].agent);
  EXPECT_EQ(allocs[1].end_ns, 985);
  auto calls = db.api_calls(pass);
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].function, "hipLaunchKernel");
  EXPECT_EQ(calls[1].domain, "MARKER_CORE_RANGE_API");
  EXPECT_EQ(calls[1].function, "decode step 3");
  EXPECT_EQ(calls[1].start_ns, 700);

  auto files = db.ingest_files(pass);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].path, trace_file.string());
  EXPECT_EQ(files[0].kind, "kernel_trace");
  EXPECT_EQ(files[0].size_bytes, static_cast<int64_t>(std::filesystem::file_size(trace_file)));
  EXPECT_EQ(files[0].sha256, sha256_file(trace_file));
  EXPECT_EQ(files[0].tool_version, "1.0.0 (rocm 7.0.2)");
  EXPECT_EQ(files[0].rows_read, 9);
  EXPECT_EQ(files[0].rows_rejected, 3);
  EXPECT_EQ(files[0].first_reject_line, 12);
  EXPECT_EQ(files[0].first_reject_reason,
            "line 12, column 'Start_Timestamp': expected an integer, got 'abc'");
  EXPECT_EQ(files[1].kind, "kernel_stats");
  EXPECT_EQ(files[1].size_bytes, 0);  // the file does not exist: nothing to measure
  EXPECT_EQ(files[1].sha256, "");
  EXPECT_EQ(files[1].rows_rejected, 0);
  EXPECT_FALSE(files[1].first_reject_line);

  // The kernel name is stored once, however many rows use it.
  EXPECT_EQ(db.sql()
                .execAndGet("SELECT count(*) FROM strings WHERE value = 'gemm<128, 64>(float "
                            "const*, float*)'")
                .getInt(),
            1);
  auto counts = db.row_counts(pass);
  EXPECT_EQ(counts.agents, 2);
  EXPECT_EQ(counts.dispatches, 2);
  EXPECT_EQ(counts.counter_values, 3);
  EXPECT_EQ(counts.kernel_stats, 1);
  EXPECT_EQ(counts.memory_copies, 1);
  EXPECT_EQ(counts.memory_allocations, 2);
  EXPECT_EQ(counts.api_calls, 2);
  EXPECT_EQ(counts.ingest_files, 2);
}

TEST(PassLoader, MisuseIsRefused) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 0);
  const std::string before = testing::dump_all_tables(db.sql());
  try {
    PassLoader l(db, 999);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.diagnostics()[0].line(),
              "capture database '" + (dir / "c.db").string() +
                  "' has no pass 999 (add the pass (CaptureDb::add_planned_pass) before loading "
                  "it)");
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  {
    PassLoader loader(db, pass);
    EXPECT_THROW(PassLoader second(db, pass), Error);
    // Bookkeeping through the same connection would join (and vanish with) the load.
    EXPECT_THROW(db.set_pass_state(pass, {PassState::done, {}, 0, {}, {}, {}, {}, ""}), Error);
    EXPECT_THROW(db.intern("x"), Error);
    EXPECT_THROW(loader.kernel_stat({}), Error);  // outside begin_file/end_file
    DispatchRow backwards = dispatch(1, "k");
    backwards.end_ns = backwards.start_ns - 1;
    loader.begin_file("t.csv", "kernel_trace");
    loader.dispatch(backwards);
    loader.end_file(1);
    EXPECT_EQ(loader.rows_rejected(), 1);
    loader.commit();
    EXPECT_THROW(loader.dispatch(dispatch(2, "k")), Error);
    EXPECT_THROW(loader.commit(), Error);
  }
  EXPECT_EQ(db.row_counts(pass).dispatches, 0);
  auto files = db.ingest_files(pass);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].first_reject_reason, "dispatch 1 ends (1000099) before it starts (1000100)");
}

TEST(RawInsert, StoresTheSameRowsAsTheLoader) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t p0 = testing::make_pass(db, run, 0);
  int64_t p1 = testing::make_pass(db, run, 1, PassKind::counters);
  std::vector<DispatchRow> rows;
  for (int i = 0; i < 100; ++i) rows.push_back(dispatch(i + 1, "k"));
  EXPECT_EQ(RawInsert::dispatches(db, p0, rows, db.intern("k")), 100);
  auto back = read_dispatches(db, p0);
  ASSERT_EQ(back.size(), 100u);
  EXPECT_TRUE(same(back[42], rows[42]));

  std::vector<CounterRow> cs = {{1, 77, "A", 1.5}, {1, 77, "B", 2}, {1, 77, "A", 3}};
  std::vector<int64_t> ids = {db.intern("A"), db.intern("B"), db.intern("A")};
  EXPECT_EQ(RawInsert::counters(db, p1, cs, ids), 2);  // the duplicate is skipped
  EXPECT_EQ(db.row_counts(p1).counter_values, 2);
  EXPECT_THROW(RawInsert::counters(db, p1, cs, std::span<const int64_t>(ids).first(1)), Error);
}

// The loader decides "simulated" from the agents it stores, and records a counter pass's counters
// when the pass was made without a list (kprof ingest does not know them before reading).
TEST(PassLoader, MarksRunSimulatedAndRecordsCounterNames) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = db.create_run({"r", "", "", "", "h", "0.1.0", false, std::nullopt});
  int64_t pass = testing::make_pass(db, run, 1, PassKind::counters);
  int64_t planned =
      db.add_planned_pass(run, {2, PassKind::counters, {"SQ_WAVES", "GRBM_COUNT"}, {}, {}, "", ""});
  for (int64_t p : {pass, planned}) {
    PassLoader loader(db, p);
    loader.begin_file("a.csv", "agent_info");
    AgentRow gpu;
    gpu.node_id = 2;
    gpu.type = "GPU";
    gpu.product_name = p == pass ? "AMD Instinct MI300X" : "AMD Instinct MI300X (simulated)";
    loader.agent(gpu);
    loader.begin_file("c.csv", "counter_collection");
    loader.dispatch(dispatch(1, "k"));
    loader.counter({1, 77, "TCC_HIT_sum", 1});
    loader.counter({1, 77, "SQ_WAVES", 2});
    loader.counter({2, 77, "SQ_WAVES", 3});
    loader.commit();
    EXPECT_EQ(db.find_run(run)->simulated, p == planned);
  }
  EXPECT_EQ(db.find_pass(pass)->counters, (std::vector<std::string>{"SQ_WAVES", "TCC_HIT_sum"}));
  // A pass planned with its counters keeps what was requested.
  EXPECT_EQ(db.find_pass(planned)->counters, (std::vector<std::string>{"SQ_WAVES", "GRBM_COUNT"}));
}

}  // namespace
}  // namespace kprof::store
