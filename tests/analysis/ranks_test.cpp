// The `ranks` view (structure/ranks.hpp, views/ranks_view.cpp) on tensor-parallel traces made up
// here and loaded through the real store loader into a real database. Every expected figure is
// derived by hand from the rows, in the comment above the rows or beside the expectation.
#include "core/analysis/structure/ranks.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/analysis/join/analysis_db.hpp"
#include "core/analysis/views/query.hpp"
#include "core/analysis/views/streamed_views.hpp"
#include "core/store/capture_db.hpp"
#include "tests/analysis/capture_fixture.hpp"
#include "tests/analysis/mi300x_csv.hpp"
#include "tests/analysis/synthetic.hpp"

namespace kprof::analysis {
namespace {

// vLLM's one-shot all-reduce as rocprofv3 prints it demangled (family
// vllm::cross_device_reduce_1stage, configs/families/collectives.yaml), and two compute kernels.
const char* const k_ar =
    "void vllm::cross_device_reduce_1stage<__hip_bfloat16, 4>(vllm::RankData*)";
const char* const k_gemm = "Cijk_Alik_Bljk_BBS_BH_MT64x64";
const char* const k_head = "void vllm::rms_norm_kernel<c10::BFloat16>(c10::BFloat16*)";

struct Row {
  int64_t pid, agent, queue, start, end;
  std::string name;
  int64_t grid = 1024, kernel_id = 0;  // 0: 1 for the all-reduce, 2 for the others
};

// One trace pass holding `rows` (Dispatch_Id in row order per pid).
int64_t load_trace(store::CaptureDb& db, const std::vector<Row>& rows) {
  const int64_t run = test::new_run(db, true);
  store::PlannedPass p;
  p.ordinal = 0;
  p.kind = store::PassKind::trace;
  const int64_t pass = db.add_planned_pass(run, p);
  store::PassLoader loader(db, pass);
  loader.begin_file("kernel_trace.csv", "kernel_trace");
  int64_t id = 1;
  for (const auto& r : rows) {
    store::DispatchRow d;
    d.dispatch_id = id;
    d.correlation_id = id++;
    d.kernel_id = r.kernel_id ? r.kernel_id : r.name == k_ar ? 1 : 2;
    d.pid = r.pid;
    d.tid = r.pid;
    d.agent = r.agent;
    d.queue_id = r.queue;
    d.start_ns = r.start;
    d.end_ns = r.end;
    d.kernel_name = r.name;
    d.grid_x = r.grid;
    d.wg_x = 256;
    loader.dispatch(d);
  }
  loader.end_file(static_cast<int64_t>(rows.size()));
  loader.commit();
  store::PassTransition done;
  done.state = store::PassState::done;
  db.set_pass_state(pass, done);
  return pass;
}

RankAnalysis analyze(store::CaptureDb& db, int64_t pass) {
  return analyze_ranks(db, pass, FamilyRules::load_default(), CollectiveRules::load_default());
}

// Four ranks (pids 101-104 on agents 1-4), two layers of (compute, all-reduce) × 2. Every rank
// starts compute segment k at the same time c_k; rank r's compute lasts 100 + D[k][r] ns, so it
// arrives at collective k at a_kr = c_k + 100 + D[k][r]; the all-reduce ends for every rank 40 ns
// after the last arrival (e_k = max_r a_kr + 40), and the next segment starts there (c_k+1 = e_k).
//   D = {0, 20, 5, 10} at k = 0, 1, 3; {30, 0, 0, 0} at k = 2.
//   c0 = 1000: a0 = 1100, 1120, 1105, 1110; e0 = 1160
//   c1 = 1160: a1 = 1260, 1280, 1265, 1270; e1 = 1320
//   c2 = 1320: a2 = 1450, 1420, 1420, 1420; e2 = 1490
//   c3 = 1490: a3 = 1590, 1610, 1595, 1600; e3 = 1650
// then rms_norm from 1650 to 1700 on every rank.
std::vector<Row> four_ranks() {
  const int64_t delay[4][4] = {{0, 20, 5, 10}, {0, 20, 5, 10}, {30, 0, 0, 0}, {0, 20, 5, 10}};
  const int64_t c[4] = {1000, 1160, 1320, 1490}, e[4] = {1160, 1320, 1490, 1650};
  std::vector<Row> rows;
  for (int r = 0; r < 4; ++r) {
    for (int k = 0; k < 4; ++k) {
      const int64_t arrive = c[k] + 100 + delay[k][r];
      rows.push_back({101 + r, 1 + r, 1, c[k], arrive, k_gemm});
      rows.push_back({101 + r, 1 + r, 1, arrive, e[k], k_ar});
    }
    rows.push_back({101 + r, 1 + r, 1, 1650, 1700, k_head});
  }
  return rows;
}

TEST(Ranks, FourRanksComputeCollectivesSkewAndTheLastRank) {
  test::TempDb tmp("ranks4");
  store::CaptureDb db(tmp.path());
  const RankAnalysis ra = analyze(db, load_trace(db, four_ranks()));
  ASSERT_EQ(ra.ranks.size(), 4u);
  // compute = sum of (100 + D[k][r]) over k, plus rms_norm's 50:
  //   r0 100+100+130+100+50 = 480, r1 120+120+100+120+50 = 510, r2 105+105+100+105+50 = 465,
  //   r3 110+110+100+110+50 = 480.
  // collective = sum of (e_k - a_kr): r0 60+60+40+60 = 220, r1 40+40+70+40 = 190,
  //   r2 55+55+70+55 = 235, r3 50+50+70+50 = 220.
  // Each rank runs back to back from 1000 to 1700: busy = span = 700 = compute + collective, and
  // with one queue nothing overlaps a collective: exposed = collective.
  const int64_t compute[4] = {480, 510, 465, 480}, collective[4] = {220, 190, 235, 220};
  for (int r = 0; r < 4; ++r) {
    const auto& f = ra.ranks[static_cast<size_t>(r)];
    EXPECT_EQ(f.rank.rank, r);
    EXPECT_EQ(f.rank.pid, 101 + r);
    EXPECT_EQ(f.rank.agent, 1 + r);
    EXPECT_EQ(f.kernels, 9);  // 4 gemm + 4 all-reduce + rms_norm
    EXPECT_EQ(f.compute_ns, compute[r]) << "rank " << r;
    EXPECT_EQ(f.collective_ns, collective[r]) << "rank " << r;
    EXPECT_EQ(f.exposed_ns, collective[r]) << "rank " << r;
    EXPECT_EQ(f.busy_ns, 700);
    EXPECT_EQ(f.span_ns(), 700);
    EXPECT_EQ(f.collectives, 4);
  }
  EXPECT_TRUE(ra.counts_equal);
  EXPECT_EQ(ra.matched, 4);
  EXPECT_EQ(ra.family_mismatches, 0);
  // skew_k = max_r a_kr - min_r a_kr: 1120-1100 = 20, 1280-1260 = 20, 1450-1420 = 30, 1610-1590.
  EXPECT_EQ(ra.skew_ns, (std::vector<int64_t>{20, 20, 30, 20}));
  // wait_k = sum over r of (max a_kr - a_kr): k0 20+0+15+10 = 45, k1 45, k2 0+30+30+30 = 90, k3 45.
  EXPECT_EQ(ra.wait_ns, (std::vector<int64_t>{45, 45, 90, 45}));
  // Last: rank 1 at k = 0, 1, 3 (waits 45 × 3 = 135), rank 0 at k = 2 (90).
  EXPECT_EQ(ra.ranks[1].last_arrivals, 3);
  EXPECT_EQ(ra.ranks[1].wait_caused_ns, 135);
  EXPECT_EQ(ra.ranks[0].last_arrivals, 1);
  EXPECT_EQ(ra.ranks[0].wait_caused_ns, 90);
  EXPECT_EQ(ra.ranks[2].last_arrivals + ra.ranks[3].last_arrivals, 0);
  // Sorted skews 20, 20, 20, 30: mean 90/4 = 22.5, median (2nd) 20, p95 (ceil(3.8) = 4th) 30.
  const SkewStats s = skew_stats(ra.skew_ns);
  EXPECT_DOUBLE_EQ(s.mean_ns, 22.5);
  EXPECT_EQ(s.median_ns, 20);
  EXPECT_EQ(s.p95_ns, 30);
  EXPECT_EQ(s.max_ns, 30);
  // The widest skew is collective 2 (30 ns): its window runs from the end of collective 1 on every
  // rank (e1 = 1320) to its end (e2 = 1490), and holds each rank's GEMM and all-reduce of k = 2:
  // rank 0's GEMM 1320-1450 and all-reduce 1450-1490.
  EXPECT_EQ(ra.widest.ordinal, 2);
  EXPECT_EQ(ra.widest.from_ns, 1320);
  EXPECT_EQ(ra.widest.to_ns, 1490);
  const auto lanes =
      rank_lanes(db, ra, FamilyRules::load_default(), CollectiveRules::load_default(), 1320, 1490);
  ASSERT_EQ(lanes.size(), 8u);
  EXPECT_EQ(lanes[0].rank, 0u);
  EXPECT_EQ(lanes[0].start_ns, 1320);
  EXPECT_EQ(lanes[0].end_ns, 1450);
  EXPECT_FALSE(lanes[0].collective);
  EXPECT_EQ(lanes[1].start_ns, 1450);
  EXPECT_EQ(lanes[1].end_ns, 1490);
  EXPECT_TRUE(lanes[1].collective);
  EXPECT_EQ(lanes[1].family, "vllm::cross_device_reduce_1stage");
  ASSERT_EQ(ra.collective_families.size(), 1u);
  const auto& fam = ra.collective_families.begin();
  EXPECT_EQ(fam->first, "vllm::cross_device_reduce_1stage");
  EXPECT_EQ(fam->second.kind.library, "vllm custom all-reduce");
  EXPECT_EQ(fam->second.launches, 16);  // 4 ranks × 4
}

// Rank 0 (pid 7, agent 1) overlaps its collectives with compute on other queues:
//   q1 compute [0,100]; q2 collective [50,150]; q1 compute [120,130]; q3 compute [125,140];
//   q2 collective [200,260]; q1 compute [250,300].
//   compute union [0,100] + [120,140] + [250,300] = 100 + 20 + 50 = 170
//   collective union [50,150] + [200,260] = 100 + 60 = 160
//   covered: [50,100] 50 + [120,140] 20 + [250,260] 10 = 80; exposed 160 - 80 = 80
//   busy [0,150] + [200,300] = 250
// Rank 1 (pid 8, agent 2) on one queue: compute [0,60], collective [60,150], collective [200,260],
// compute [260,300]: compute 100, collective 150, exposed 150, busy 250.
// Skew: k0 starts 50 and 60 -> 10, rank 1 last (wait 10); k1 both 200 -> 0, a tie goes to the
// lower rank (rank 0, wait 0).
TEST(Ranks, ComputeOnAnotherQueueHidesCollectiveTime) {
  test::TempDb tmp("ranks_overlap");
  store::CaptureDb db(tmp.path());
  const RankAnalysis ra = analyze(db, load_trace(db, {{7, 1, 1, 0, 100, k_gemm},
                                                      {7, 1, 2, 50, 150, k_ar},
                                                      {7, 1, 1, 120, 130, k_gemm},
                                                      {7, 1, 3, 125, 140, k_head},
                                                      {7, 1, 2, 200, 260, k_ar},
                                                      {7, 1, 1, 250, 300, k_gemm},
                                                      {8, 2, 1, 0, 60, k_gemm},
                                                      {8, 2, 1, 60, 150, k_ar},
                                                      {8, 2, 1, 200, 260, k_ar},
                                                      {8, 2, 1, 260, 300, k_gemm}}));
  ASSERT_EQ(ra.ranks.size(), 2u);
  const auto& r0 = ra.ranks[0];
  EXPECT_EQ(r0.compute_ns, 170);
  EXPECT_EQ(r0.collective_ns, 160);
  EXPECT_EQ(r0.exposed_ns, 80);
  EXPECT_EQ(r0.busy_ns, 250);
  const auto& r1 = ra.ranks[1];
  EXPECT_EQ(r1.compute_ns, 100);
  EXPECT_EQ(r1.collective_ns, 150);
  EXPECT_EQ(r1.exposed_ns, 150);
  EXPECT_EQ(r1.busy_ns, 250);
  EXPECT_EQ(ra.skew_ns, (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(ra.wait_ns, (std::vector<int64_t>{10, 0}));
  EXPECT_EQ(r1.last_arrivals, 1);
  EXPECT_EQ(r1.wait_caused_ns, 10);
  EXPECT_EQ(r0.last_arrivals, 1);
  EXPECT_EQ(r0.wait_caused_ns, 0);
}

// Rank 0 runs 3 all-reduces (starts 10, 110, 210), rank 1 runs 2 (starts 15, 130): only the first
// 2 of each are matched (skews 5 and 20), and the view says the match is weak.
TEST(Ranks, UnequalCollectiveCountsMatchUpToTheSmallestAndSaySo) {
  test::TempDb tmp("ranks_unequal");
  store::CaptureDb db(tmp.path());
  const int64_t pass = load_trace(db, {{7, 1, 1, 10, 50, k_ar},
                                       {7, 1, 1, 110, 150, k_ar},
                                       {7, 1, 1, 210, 250, k_ar},
                                       {8, 2, 1, 15, 50, k_ar},
                                       {8, 2, 1, 130, 150, k_ar}});
  const RankAnalysis ra = analyze(db, pass);
  EXPECT_FALSE(ra.counts_equal);
  EXPECT_EQ(ra.matched, 2);
  EXPECT_EQ(ra.skew_ns, (std::vector<int64_t>{5, 20}));
  EXPECT_EQ(ra.ranks[1].last_arrivals, 2);
  EXPECT_EQ(ra.ranks[1].wait_caused_ns, 25);
  const Table t = ranks_table(db, find_run_trace(db, std::nullopt), FamilyRules::load_default());
  bool said = false;
  for (const auto& n : t.notes)
    said = said || n.find(
                       "[low]: the ranks ran 3, 2 collectives (rank order); only the first 2 of "
                       "each are matched") != std::string::npos;
  EXPECT_TRUE(said);
}

// Two ranks without a collective: nothing to match, and the claim says it is unknown.
TEST(Ranks, RanksWithoutCollectivesHaveNoSkew) {
  test::TempDb tmp("ranks_none");
  store::CaptureDb db(tmp.path());
  load_trace(db, {{7, 1, 1, 0, 100, k_gemm}, {8, 2, 1, 0, 120, k_gemm}});
  const Table t = ranks_table(db, find_run_trace(db, std::nullopt), FamilyRules::load_default());
  ASSERT_EQ(t.rows.size(), 2u);
  const auto has = [&](const std::string& text) {
    for (const auto& n : t.notes)
      if (n.find(text) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has("[unknown]: no rank ran a collective"));
  EXPECT_TRUE(has("no collective is matched on every rank: no arrival skew"));
  // Spans 100 and 120 ns.
  EXPECT_TRUE(has("spread over ranks 20 ns (max 120, min 100)"));
}

TEST(Ranks, OneRankHasNothingToCompare) {
  test::TempDb tmp("ranks_one");
  store::CaptureDb db(tmp.path());
  load_trace(db, {{7, 3, 1, 0, 100, k_gemm}, {7, 3, 1, 100, 140, k_ar}});
  const Table t = ranks_table(db, find_run_trace(db, std::nullopt), FamilyRules::load_default());
  ASSERT_EQ(t.rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(t.rows[0][0]), "1 rank (pid 7, GPU agent 3): nothing to compare");
}

// `kprof query DB ranks` through the use case: streamed (no session), one row per rank, the claim
// and the skew in the notes; the same table through a session's QueryContext.
TEST(Ranks, QueryUseCaseStreamsTheViewAndTheSessionGivesTheSame) {
  test::TempDb tmp("ranks_query");
  {
    store::CaptureDb db(tmp.path());
    load_trace(db, four_ranks());
  }
  QueryRequest r;
  r.db = tmp.path();
  r.view = "ranks";
  const QueryResult streamed = run_query(r);
  ASSERT_EQ(streamed.table.rows.size(), 4u);
  EXPECT_TRUE(streamed.table.simulated);
  bool claim = false, last = false;
  for (const auto& n : streamed.table.notes) {
    claim = claim || n.find("[high]: every rank ran 4 collectives") != std::string::npos;
    last = last || n.find(
                       "rank 1 (GPU agent 2) arrived last most often: at 3 of 4 (75.0%); the "
                       "other ranks waited 135 ns for it there, of 225 ns") != std::string::npos;
  }
  EXPECT_TRUE(claim);
  EXPECT_TRUE(last);
  QuerySession session = QuerySession::open(r.db, {});
  const Table via_session = session.view("ranks", {});
  EXPECT_EQ(via_session.rows, streamed.table.rows);
  EXPECT_EQ(via_session.notes, streamed.table.notes);
  // Machine formats add exposed time over the span: rank 1 190 / 700 = 27.14 %.
  r.options.structured = true;
  const Table machine = run_query(r).table;
  ASSERT_EQ(machine.columns.back(), "exposed_span_pct");
  EXPECT_DOUBLE_EQ(std::get<double>(machine.rows[1].back()), 100.0 * 190 / 700);
}

// `explain` says the rank structure of a pass with several ranks: 4 ranks on agents 1-4, each with
// 4 all-reduces (four_ranks: 2 layers × 2).
TEST(Ranks, ExplainSaysTheRankStructure) {
  test::TempDb tmp("ranks_explain");
  {
    store::CaptureDb db(tmp.path());
    load_trace(db, four_ranks());
  }
  QuerySession session = QuerySession::open(tmp.path(), {});
  const Table t = session.view("explain", {});
  bool said = false;
  for (const auto& n : t.notes)
    said = said || n.rfind("4 ranks (GPU agents 1-4), collectives per rank 4, 4, 4, 4", 0) == 0;
  EXPECT_TRUE(said);
}

// An LLM-like run on 4 ranks (tests/analysis/synthetic.hpp: moe_like, 4 layers, 1 prefill and 8
// decode steps), each layer with two vLLM all-reduces, one after the attention GEMM and one after
// the MoE; rank r is pid 101 + r on agent 1 + r, all with the same rows. Per rank:
// 9 steps × 4 layers × 2 = 72 all-reduces; in the decode steps of the main stream 8 × 4 × 2 = 64.
TEST(Ranks, ExplainDerivesCollectivesPerStepAndLayerFromTheCounts) {
  test::Workload w = test::moe_like(4, 8);
  const test::Kernel ar{k_ar, 4096, 4096, 512, 20, 20};
  w.per_layer.insert(w.per_layer.begin() + 3, ar);  // after the attention
  w.per_layer.push_back(ar);                        // after the MoE
  std::vector<Row> rows;
  NameTable table;
  for (int r = 0; r < 4; ++r) {
    w.pid = 101 + r;
    w.agent = 1 + r;
    const PassData p = test::build(w, table);
    for (const auto& d : p.dispatches)
      rows.push_back({d.pid, p.agent(d), 1, d.start_ns, d.end_ns, table.name(p.shape(d).name),
                      p.shape(d).grid[0], p.shape(d).kernel_id});
  }
  test::TempDb tmp("ranks_explain_steps");
  {
    store::CaptureDb db(tmp.path());
    load_trace(db, rows);
  }
  QuerySession session = QuerySession::open(tmp.path(), {});
  const Table t = session.view("explain", {});
  bool said = false;
  for (const auto& n : t.notes)
    said = said || n ==
                       "4 ranks (GPU agents 1-4), collectives per rank 72, 72, 72, 72: each decode "
                       "step = 4 layers × 2 all-reduces (vllm custom all-reduce: "
                       "vllm::cross_device_reduce_1stage, 64 launches in 8 steps) (`kprof query DB "
                       "ranks` compares the ranks)";
  EXPECT_TRUE(said) << ::testing::PrintToString(t.notes);
  // A session that holds no trace dispatch reads them again for the counts: the same notes.
  SessionOptions bounded;
  bounded.bounded = true;
  QuerySession b = QuerySession::open(tmp.path(), bounded);
  ASSERT_TRUE(b.holds_no_dispatches());
  EXPECT_EQ(b.view("explain", {}).notes, t.notes);
}

// The counter views per rank: one process drives two MI300X (agents 1 and 2), one copy kernel of
// 1 us on each (trace rows), and a counter pass reads FETCH_SIZE 1000 KiB on agent 1 and 2000 KiB
// on agent 2 (WRITE_SIZE 0), and L2 hits and misses (below). Bytes = FETCH_SIZE × 1024 (KiB, as
// PeakFlags reads it): rank 0 moves 1,024,000 B in 1 us = 1.024 TB/s, rank 1 2,048,000 B = 2.048
// TB/s; spread 2.048 / 1.024 = 2.
TEST(Ranks, CounterViewsGiveEachRanksRatesAndTheirSpread) {
  test::TempDb tmp("ranks_counters");
  const auto dir = tmp.dir();
  std::string agents = test::mi300x_agents();
  // The second GPU: the first one's row with node ids 2.
  const size_t gpu = agents.find("\n1,1,\"GPU\"");
  agents += "2,2" + agents.substr(gpu + 4);
  test::write(dir / "100_agent_info.csv", agents);
  test::write(dir / "100_kernel_trace.csv",
              test::k_trace_header +
                  "\"KERNEL_DISPATCH\",\"Agent 1\",1,1,100,1,7,\"copy_kernel\",1,1000000,1001000,"
                  "0,0,16,0,32,256,1,1,65536,1,1\n"
                  "\"KERNEL_DISPATCH\",\"Agent 2\",1,1,100,2,7,\"copy_kernel\",2,1000000,1001000,"
                  "0,0,16,0,32,256,1,1,65536,1,1\n");
  std::string counters = test::k_counter_header;
  for (int id : {1, 2}) {
    const std::string pre = std::to_string(id) + "," + std::to_string(id) + ",\"Agent " +
                            std::to_string(id) +
                            "\",1,100,100,65536,7,\"copy_kernel\",256,0,0,16,0,32,";
    counters += pre + "\"FETCH_SIZE\"," + std::to_string(1000 * id) + ",0,0\n";
    counters += pre + "\"WRITE_SIZE\",0,0,0\n";
    counters += pre + "\"TCC_HIT_sum\"," + std::string(id == 1 ? "60" : "90") + ",0,0\n";
    counters += pre + "\"TCC_MISS_sum\"," + std::string(id == 1 ? "40" : "10") + ",0,0\n";
  }
  test::write(dir / "200_counter_collection.csv", counters);
  {
    store::CaptureDb db(tmp.path());
    test::load_trace_and_counters(db, dir, {"200_counter_collection.csv"});
    const Capture cap = load_capture(db, std::nullopt);
    ASSERT_EQ(cap.arch, "gfx942");
    ensure_joins(db, cap);
  }
  store::CaptureDb db(tmp.path(), store::OpenMode::read_only);
  QueryContext q(db, std::nullopt, FamilyRules::load_default());
  for (const char* view : {"metrics", "roofline"}) {
    const Table t = q.view(view, {});
    bool said = false;
    for (const auto& n : t.notes)
      said = said || n == "TB/s per rank: rank 0 (GPU agent 1) 1.02, rank 1 (GPU agent 2) 2.05; "
                          "spread max/min 2";
    EXPECT_TRUE(said) << view;
  }
  // metric_sets: l2_hit_percent = 100 × TCC_HIT_sum / (TCC_HIT_sum + TCC_MISS_sum)
  // (configs/metrics/memory.yaml): rank 0 100 × 60 / 100 = 60, rank 1 100 × 90 / 100 = 90;
  // spread 90 / 60 = 1.5.
  const Table sets = q.view("metric_sets", {});
  bool per_rank = false;
  for (const auto& n : sets.notes)
    per_rank =
        per_rank || (n.find(" per rank 0, 1 (GPU agents 1, 2), mean over each rank's "
                            "launches: ") != std::string::npos &&
                     n.find("l2_hit_percent 60.00 / 90.00 (spread 1.50)") != std::string::npos);
  EXPECT_TRUE(per_rank) << ::testing::PrintToString(sets.notes);
}

}  // namespace
}  // namespace kprof::analysis
