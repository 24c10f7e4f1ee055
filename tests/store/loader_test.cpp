// PassLoader: every row kind stored and read back, replacement on re-ingest, rollback without
// commit, a process killed mid-load, and the RawInsert baseline.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/base/error.hpp"
#include "core/base/sha256.hpp"
#include "store_test_util.hpp"

namespace kprof::store {
namespace {

using testing::TempDir;

DispatchRow dispatch(int64_t id, const std::string& name, int64_t pid = 77) {
  DispatchRow d;
  d.dispatch_id = id;
  d.kernel_id = 10 + id % 3;
  d.correlation_id = 1000 + id;
  d.agent = 2;
  d.queue_id = 5;
  d.stream_id = id % 2;
  d.pid = pid;
  d.tid = pid + 1;
  d.start_ns = 1'000'000 + id * 100;
  d.end_ns = d.start_ns + 40 + id;
  d.kernel_name = name;
  d.grid_x = 1024;
  d.grid_y = 2;
  d.grid_z = 3;
  d.wg_x = 64;
  d.wg_y = 1;
  d.wg_z = 4;
  d.lds = 8192;
  d.scratch = 16;
  d.vgpr = 128;
  d.agpr = 8;
  d.sgpr = 96;
  return d;
}

bool same(const DispatchRow& a, const DispatchRow& b) {
  return a.dispatch_id == b.dispatch_id && a.kernel_id == b.kernel_id &&
         a.correlation_id == b.correlation_id && a.agent == b.agent && a.queue_id == b.queue_id &&
         a.stream_id == b.stream_id && a.pid == b.pid && a.tid == b.tid &&
         a.start_ns == b.start_ns && a.end_ns == b.end_ns && a.kernel_name == b.kernel_name &&
         a.grid_x == b.grid_x && a.grid_y == b.grid_y && a.grid_z == b.grid_z && a.wg_x == b.wg_x &&
         a.wg_y == b.wg_y && a.wg_z == b.wg_z && a.dims_known == b.dims_known && a.lds == b.lds &&
         a.scratch == b.scratch && a.vgpr == b.vgpr && a.agpr == b.agpr && a.sgpr == b.sgpr;
}

std::vector<DispatchRow> read_dispatches(CaptureDb& db, int64_t pass) {
  std::vector<DispatchRow> out;
  db.for_each_dispatch(pass, [&](const DispatchRow& d) { out.push_back(d); });
  return out;
}

// Loads n dispatches named from `names` round-robin into pass, committing.
void load_trace(CaptureDb& db, int64_t pass, int64_t n, const std::vector<std::string>& names) {
  PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  for (int64_t i = 0; i < n; ++i) {
    loader.dispatch(dispatch(i + 1, names[static_cast<size_t>(i) % names.size()]));
  }
  loader.end_file(n);
  loader.commit();
}

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

TEST(PassLoader, RepeatedIngestReplacesAndLeavesOtherPassesAlone) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t p0 = testing::make_pass(db, run, 0);
  int64_t p1 = testing::make_pass(db, run, 1);
  load_trace(db, p0, 500, {"a", "b"});
  load_trace(db, p1, 300, {"a", "c"});
  load_trace(db, p0, 200, {"b", "d"});
  load_trace(db, p0, 200, {"b", "d"});

  EXPECT_EQ(db.row_counts(p0).dispatches, 200);
  EXPECT_EQ(db.row_counts(p0).ingest_files, 1);
  EXPECT_EQ(db.row_counts(p1).dispatches, 300);
  auto ds = read_dispatches(db, p0);
  ASSERT_EQ(ds.size(), 200u);
  EXPECT_EQ(ds[0].kernel_name, "b");
  EXPECT_EQ(ds[1].kernel_name, "d");
  EXPECT_EQ(read_dispatches(db, p1)[1].kernel_name, "c");
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM strings").getInt(), 4);
  EXPECT_EQ(db.sql().execAndGet("SELECT count(*) FROM dispatches").getInt(), 500);
}

TEST(PassLoader, DestroyedWithoutCommitLeavesDatabaseExactlyAsBefore) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 0);
  load_trace(db, pass, 100, {"k1", "k2"});
  const std::string before = testing::dump_all_tables(db.sql());
  ASSERT_NE(before.find("k2"), std::string::npos);
  {
    PassLoader loader(db, pass);
    loader.begin_file("other.csv", "kernel_trace");
    for (int i = 0; i < 5000; ++i)
      loader.dispatch(dispatch(i + 1, "new_kernel_" + std::to_string(i % 7)));
    loader.counter({1, 77, "NEW_COUNTER", 1});
    loader.bad_row({"other.csv", 3, "bad"});
    // No commit: e.g. the reader threw on a truncated file.
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  // The connection is usable again, and a new load works.
  load_trace(db, pass, 10, {"k3"});
  EXPECT_EQ(db.row_counts(pass).dispatches, 10);
}

TEST(PassLoader, ProcessKilledMidLoadLeavesNoPartialPass) {
  TempDir dir;
  const auto path = dir / "c.db";
  int64_t pass;
  std::string before;
  {
    CaptureDb db(path);
    int64_t run = testing::make_run(db);
    pass = testing::make_pass(db, run, 0);
    load_trace(db, pass, 1000, {"committed"});
    before = testing::dump_all_tables(db.sql());
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child never returns to GoogleTest: it dies by SIGKILL mid-transaction.
    CaptureDb db(path);
    PassLoader loader(db, pass);
    // A small page cache makes SQLite spill the uncommitted pages into the WAL file, so the
    // kill leaves real uncommitted frames behind (not only memory).
    db.sql().exec("PRAGMA cache_size=-500");
    loader.begin_file("big.csv", "kernel_trace");
    for (int i = 0; i < 100000; ++i)
      loader.dispatch(dispatch(i + 1, "partial_" + std::to_string(i % 50)));
    ::kill(::getpid(), SIGKILL);
    ::_exit(3);  // not reached
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(path.string() + "-wal", ec);
  EXPECT_GT(wal_bytes, 1u << 20) << "the child should have spilled uncommitted pages";

  CaptureDb db(path);
  EXPECT_EQ(db.sql().execAndGet("PRAGMA integrity_check").getString(), "ok");
  EXPECT_EQ(db.row_counts(pass).dispatches, 1000);
  EXPECT_FALSE(db.find_string("partial_0"));
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
}

TEST(PassLoader, ReadersSeeTheOldPassUntilCommit) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t run = testing::make_run(db);
  int64_t pass = testing::make_pass(db, run, 0);
  load_trace(db, pass, 50, {"old"});
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  {
    PassLoader loader(db, pass);
    loader.begin_file("t.csv", "kernel_trace");
    for (int i = 0; i < 80; ++i) loader.dispatch(dispatch(i + 1, "new"));
    EXPECT_EQ(reader.row_counts(pass).dispatches, 50);
    loader.end_file(80);
    loader.commit();
  }
  EXPECT_EQ(reader.row_counts(pass).dispatches, 80);
  EXPECT_EQ(read_dispatches(reader, pass)[0].kernel_name, "new");
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

}  // namespace
}  // namespace kprof::store

namespace kprof::store {
namespace {

using testing::TempDir;

// `kprof ingest` writes the run, its passes and all their rows in one WriteTransaction.
TEST(WriteTransaction, SeveralPassesAreAllOrNothing) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  int64_t kept_run = testing::make_run(db, "kept");
  int64_t kept = testing::make_pass(db, kept_run, 0);
  load_trace(db, kept, 50, {"k1"});
  const std::string before = testing::dump_all_tables(db.sql());
  {
    WriteTransaction tx(db);
    int64_t run = testing::make_run(db, "new");
    int64_t p0 = testing::make_pass(db, run, 0);
    int64_t p1 = testing::make_pass(db, run, 1, PassKind::counters);
    load_trace(db, p0, 100, {"a", "b"});  // a PassLoader inside: a savepoint
    {
      PassLoader loader(db, p1);
      loader.begin_file("c.csv", "counter_collection");
      loader.dispatch(dispatch(1, "a"));
      loader.counter({1, 77, "SQ_WAVES", 1});
      // No commit: this pass's savepoint rolls back, the transaction goes on.
    }
    EXPECT_EQ(db.row_counts(p0).dispatches, 100);
    EXPECT_EQ(db.row_counts(p1).dispatches, 0);
    EXPECT_THROW(WriteTransaction again(db), Error);
    // Destroyed without commit: a broken file later in the command.
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  {
    WriteTransaction tx(db);
    int64_t run = testing::make_run(db, "new");
    load_trace(db, testing::make_pass(db, run, 0), 100, {"a"});
    tx.commit();
  }
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  auto run = reader.find_run_by_name("new");
  ASSERT_TRUE(run);
  EXPECT_EQ(reader.row_counts(reader.list_passes(run->id).at(0).id).dispatches, 100);
}

// Foreign keys are not enforced row by row inside a bulk write (pass_loader.cpp says why); the
// tables other writers add to are checked before COMMIT, and a dangling reference rolls back all.
TEST(WriteTransaction, DanglingReferenceIsRefusedAtCommitAndRollsBack) {
  TempDir dir;
  CaptureDb db(dir / "c.db");
  testing::make_run(db, "kept");
  const std::string before = testing::dump_all_tables(db.sql());
  {
    WriteTransaction tx(db, WriteKind::bulk_load);
    int64_t run = testing::make_run(db, "new");
    load_trace(db, testing::make_pass(db, run, 0), 20, {"a"});
    testing::make_pass(db, run + 1000, 0);  // a pass of a run that does not exist
    try {
      tx.commit();
      ADD_FAILURE() << "commit accepted a pass of a missing run";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("passes"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
  // Enforcement is back on outside the bulk write, and row by row in a `records` transaction.
  EXPECT_THROW(testing::make_pass(db, 999, 0), Error);
  {
    WriteTransaction tx(db);
    EXPECT_THROW(testing::make_pass(db, 999, 0), Error);
  }
  EXPECT_EQ(testing::dump_all_tables(db.sql()), before);
}

// Every writer's transaction is a WriteTransaction: one per connection, none on a read-only one.
TEST(WriteTransaction, IsTheOneWritePath) {
  TempDir dir;
  {
    CaptureDb db(dir / "c.db");
    int64_t run = testing::make_run(db, "r");
    WriteTransaction tx(db);
    // A multi-row writer of CaptureDb, or a PassLoader's own transaction, cannot open a second.
    EXPECT_THROW(WriteTransaction(db, WriteKind::bulk_load), Error);
    EXPECT_THROW(db.set_selected_kernels(run, {{"k", 1, "top"}}), Error);
  }
  CaptureDb reader(dir / "c.db", OpenMode::read_only);
  EXPECT_THROW(WriteTransaction{reader}, Error);
  EXPECT_THROW(PassLoader(reader, 1), Error);
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
