// The shipped real-node runbook rehearsed on this machine: the real workload script
// (runbooks/workloads/qwen3_generate.py) runs under rocprofv3-sim against the simulation stand-ins
// (tests/standins: vLLM's parent + EngineCore process model, torch.cuda, ROCTx), and the double
// fails where the real ROCm stack fails:
//   - regions are per process (a process that never resumed records nothing);
//   - ROCR_VISIBLE_DEVICES filters, HIP_VISIBLE_DEVICES indexes the rest (no device: the app
//   fails);
//   - ROCm 7.0 needs --marker-trace for regions and never pauses counters.
// Real processes: kprof, rocprofv3-sim and python3; real SQLite files.
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>

#include "tests/sim/sim_harness.hpp"

namespace kprof::sim::testing {
namespace {

const fs::path k_source(KPROF_SOURCE_DIR);
const fs::path k_script = k_source / "runbooks" / "workloads" / "qwen3_generate.py";

// Runs a shell command line; stdout+stderr captured.
RunResult shell(const std::string& line, const fs::path& dir) {
  const std::string cmd = line + " > " + (dir / ".shout").string() + " 2>&1";
  RunResult r;
  r.status = std::system(cmd.c_str());
  r.out = read_file(dir / ".shout");
  return r;
}

RunResult kprof(const fs::path& dir, const std::string& args, const std::string& env = "") {
  return shell("cd " + dir.string() + " && " + env + " ROCPROF_SIM_CLOCK_BASE_NS=1000000000 " +
                   (fs::path(KPROF_BIN_DIR) / "kprof").string() + " " + args,
               dir);
}

// The shipped real-node runbook in `dir` (sim_harness.hpp).
fs::path shipped_runbook(const fs::path& dir, const std::string& name = "rb.yaml",
                         const std::function<void(std::string&)>& edit = {}) {
  return shipped_runbook_in(dir, "qwen3-30b-a3b-mi300x", name, edit);
}

int64_t scalar(const fs::path& db, const std::string& sql) {
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  return d.execAndGet(sql).getInt64();
}

std::vector<std::string> column(const fs::path& db, const std::string& sql) {
  SQLite::Database d(db.string(), SQLite::OPEN_READONLY);
  SQLite::Statement q(d, sql);
  std::vector<std::string> out;
  while (q.executeStep()) out.push_back(q.getColumn(0).getString());
  return out;
}

// The shipped runbook has repeat_option: --repeat, so replay: auto rotates its 3 roofline passes
// in ONE run of the script (repeating the request): 2 application runs instead of 4.
TEST(RealRunbookRehearsal, TwoRunsWithTheRealScriptAndTheStandins) {
  TempDir t;
  const auto rb = shipped_runbook(t.path);
  const auto r = kprof(t.path, "run " + rb.string() + " --simulate --quiet");
  ASSERT_EQ(r.exit_code(), 0) << r.out;
  const auto db = t.path / "rb.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'done'"), 2);
  const std::string rotated = read_file(t.path / "rb-captures" / "run-1" / "logs" / "pass-1.log");
  EXPECT_NE(rotated.find(" -i "), std::string::npos) << rotated;
  EXPECT_NE(rotated.find("--graph-mode none --repeat "), std::string::npos) << rotated;
  // The model's measured region: 54,194 dispatches (the double may add or drop one lazy-init
  // kernel in a rerun).
  EXPECT_NEAR(static_cast<double>(scalar(db,
                                         "SELECT count(*) FROM dispatches d JOIN passes p ON "
                                         "p.id = d.pass_id WHERE p.ordinal = 0")),
              54194.0, 1.0);
  // The workload's argv was exercised, not skipped: the script generated its tokens in-process.
  const std::string log = read_file(t.path / "rb-captures" / "run-1" / "logs" / "pass-0.log");
  EXPECT_NE(log.find("generated 64 tokens for a 128-token prompt"), std::string::npos) << log;
  EXPECT_NE(log.find("--tokens 64 --graph-mode none"), std::string::npos) << log;
  EXPECT_NE(log.find("VLLM_ENABLE_V1_MULTIPROCESSING=0"), std::string::npos) << log;
  // The profiler's version was read once and stored with the run.
  EXPECT_NE(column(db, "SELECT profiler_version FROM runs")[0].find("version: 1.3.0"),
            std::string::npos);
  const auto q = kprof(t.path, "query " + db.string() + " explain");
  ASSERT_EQ(q.exit_code(), 0) << q.out;
  EXPECT_NE(q.out.find("fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 "
                       "variants) + 3024 + 3024 (decode, 63 steps × 48 layers × 2 variants)"),
            std::string::npos)
      << q.out;
}

// Every release the shipped runbook runs on: all passes done, the trace cut to the measured
// region, and the same explanation. Before ROCm 7.0 there is no --selected-regions: the tool traces
// from the start (warm-up included) and kprof cuts every pass to the roctxProfilerResume/Pause
// markers at ingest.
TEST(RealRunbookRehearsal, EveryReleaseCompletesWithTheMeasuredRegion) {
  for (const std::string release : {"6.3", "6.4", "7.0", "latest"}) {
    TempDir t;
    const auto rb = shipped_runbook(t.path);
    const auto r = kprof(t.path, "run " + rb.string() + " --simulate --quiet",
                         "ROCPROF_SIM_VERSION=" + release);
    ASSERT_EQ(r.exit_code(), 0) << release << "\n" << r.out;
    const auto db = t.path / "rb.db";
    EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state != 'done'"), 0) << release;
    EXPECT_NEAR(static_cast<double>(scalar(db,
                                           "SELECT count(*) FROM dispatches d JOIN passes p ON "
                                           "p.id = d.pass_id WHERE p.ordinal = 0")),
                54194.0, 1.0)
        << release;
    const std::string trace = read_file(t.path / "rb-captures" / "run-1" / "logs" / "pass-0.log");
    const bool six = release[0] == '6';
    EXPECT_EQ(trace.find("--selected-regions") == std::string::npos, six) << trace;
    EXPECT_EQ(trace.find("--output-format csv") != std::string::npos, six) << trace;
    if (six) {
      // The warm-up was traced and left out at ingest, between the markers.
      const std::regex kept("has no region switch: process [0-9]+ kept 54194 of ([0-9]+) traced");
      std::smatch m;
      ASSERT_TRUE(std::regex_search(trace, m, kept)) << trace;
      EXPECT_GT(std::stoll(m[1]), 54194) << trace;
      // The tool's whole-run statistics are left out; the region's come from the trace kept.
      EXPECT_GT(scalar(db, "SELECT count(*) FROM kernel_stats"), 0) << release;
      EXPECT_EQ(
          scalar(db, "SELECT count(*) FROM ingest_stats WHERE kind = 'kernel_stats_from_trace'"), 1)
          << release;
    }
    const auto q = kprof(t.path, "query " + db.string() + " explain");
    ASSERT_EQ(q.exit_code(), 0) << q.out;
    EXPECT_NE(q.out.find("fused_moe_kernel: 6144 = 48 + 48 (prefill, 1 step × 48 layers × 2 "
                         "variants) + 3024 + 3024 (decode, 63 steps × 48 layers × 2 variants)"),
              std::string::npos)
        << release << "\n"
        << q.out;
  }
}

// The script as it was before the fix resumes the profiler in its own process while vLLM V1 runs
// the model in its EngineCore child: every pass exits 0 with an empty capture, and kprof fails it
// with the cause instead of recording it as done (or retrying it).
TEST(RealRunbookRehearsal, ResumeInTheParentProcessFailsEveryPassWithTheCause) {
  TempDir t;
  const auto rb = shipped_runbook(t.path, "prefix.yaml", [](std::string& text) {
    const std::string from = "command: [python3, workloads/qwen3_generate.py";
    text.replace(
        text.find(from), from.size(),
        "command: [python3, " +
            (k_source / "tests" / "sim" / "data" / "qwen3_generate_resume_in_parent.py").string());
    const std::string graph = ", --graph-mode, none";
    text.replace(text.find(graph), graph.size(), "");
    const std::string mp = "    VLLM_ENABLE_V1_MULTIPROCESSING: \"0\"\n";
    text.replace(text.find(mp), mp.size(), "    KPROF_TEST: \"vLLM default process model\"\n");
  });
  const auto r = kprof(t.path, "run " + rb.string() + " --simulate --quiet");
  EXPECT_EQ(r.exit_code(), 1) << r.out;
  const auto db = t.path / "prefix.db";
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'failed' AND attempts = 1"), 1);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM dispatches"), 0);
  const auto reasons = column(db, "SELECT reason FROM passes ORDER BY ordinal");
  ASSERT_EQ(reasons.size(), 4u);
  EXPECT_EQ(reasons[0],
            "no dispatch recorded inside the selected region: the process that launched kernels "
            "never called roctxProfilerResume (or the profiler ignored it) (not retried: "
            "deterministic)");
  // The counter passes would fail the same way, each a full run: they were never launched.
  EXPECT_EQ(scalar(db,
                   "SELECT count(*) FROM passes WHERE kind = 'counters' AND state = "
                   "'planned' AND attempts = 0 AND reason LIKE 'blocked: the trace pass "
                   "failed (no dispatch recorded inside the selected region%'"),
            3);
  EXPECT_FALSE(fs::exists(t.path / "prefix-captures" / "run-1" / "logs" / "pass-1.log"));
}

// A trace pass that fails for a reason a retry will not fix (here the workload's usage error,
// exit 2) holds the counter passes back as blocked; `kprof resume --retry-failed` runs them once
// the trace pass is done.
TEST(BlockedCounterPasses, WaitForTheTracePassAndResumeRunsThem) {
  TempDir t;
  const fs::path flag = t.path / "broken";
  std::ofstream(flag) << "x";
  std::string text = read_file(k_source / "runbooks" / "qwen3-30b-a3b-sim.yaml");
  const std::string cmd = "  command: [\"true\"]\n";
  text.replace(text.find(cmd), cmd.size(),
               "  command: [/bin/sh, -c, \"test ! -e " + flag.string() + " || exit 2\"]\n");
  const std::string dbline = "database: qwen3-30b-a3b-sim.db\n";
  text.replace(text.find(dbline), dbline.size(),
               "database: " + (t.path / "b.db").string() +
                   "\ncaptures: " + (t.path / "b-captures").string() + "\n");
  std::ofstream(t.path / "b.yaml") << text;
  const auto db = t.path / "b.db";
  const auto r = kprof(t.path, "run b.yaml --simulate --quiet");
  EXPECT_EQ(r.exit_code(), 1) << r.out;
  EXPECT_EQ(column(db, "SELECT state FROM passes ORDER BY ordinal"),
            (std::vector<std::string>{"failed", "planned", "planned", "planned"}));
  EXPECT_EQ(scalar(db, "SELECT sum(attempts) FROM passes WHERE kind = 'counters'"), 0);
  const auto reason = column(db, "SELECT reason FROM passes WHERE ordinal = 1")[0];
  EXPECT_EQ(reason.rfind("blocked: the trace pass failed (", 0), 0u) << reason;
  EXPECT_NE(reason.find("(not retried: deterministic)); `kprof resume --retry-failed` runs this "
                        "pass once the trace pass is done"),
            std::string::npos)
      << reason;
  const auto st = kprof(t.path, "status " + db.string());
  EXPECT_EQ(std::count(st.out.begin(), st.out.end(), '\n') > 3, true) << st.out;
  EXPECT_NE(st.out.find("blocked"), std::string::npos) << st.out;
  // A resume that leaves the failed trace pass failed runs none of them either.
  kprof(t.path, "resume " + db.string() + " --quiet");
  EXPECT_EQ(scalar(db, "SELECT sum(attempts) FROM passes WHERE kind = 'counters'"), 0);
  fs::remove(flag);
  const auto again = kprof(t.path, "resume " + db.string() + " --retry-failed --quiet");
  EXPECT_EQ(again.exit_code(), 0) << again.out;
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'done'"), 4);
}

// A workload program that is not there fails the trace pass with the double's exit 127, which no
// retry fixes: the counter passes stay blocked, never launched, and the runbook's retry is not
// spent on the trace pass either.
TEST(BlockedCounterPasses, AMissingWorkloadProgramBlocksThem) {
  TempDir t;
  std::string text = read_file(k_source / "runbooks" / "qwen3-30b-a3b-sim.yaml");
  const std::string cmd = "  command: [\"true\"]\n";
  text.replace(text.find(cmd), cmd.size(),
               "  command: [\"" + (t.path / "no-such-program").string() + "\"]\n");
  const std::string dbline = "database: qwen3-30b-a3b-sim.db\n";
  text.replace(text.find(dbline), dbline.size(),
               "database: " + (t.path / "m.db").string() +
                   "\ncaptures: " + (t.path / "m-captures").string() + "\n");
  std::ofstream(t.path / "m.yaml") << text;
  const auto db = t.path / "m.db";
  const auto r = kprof(t.path, "run m.yaml --simulate --quiet");
  EXPECT_EQ(r.exit_code(), 1) << r.out;
  EXPECT_EQ(column(db, "SELECT state FROM passes ORDER BY ordinal"),
            (std::vector<std::string>{"failed", "planned", "planned", "planned"}));
  EXPECT_EQ(scalar(db, "SELECT attempts FROM passes WHERE ordinal = 0"), 1);
  EXPECT_EQ(scalar(db, "SELECT sum(attempts) FROM passes WHERE kind = 'counters'"), 0);
  const auto reason = column(db, "SELECT reason FROM passes WHERE ordinal = 0")[0];
  EXPECT_NE(reason.find("exit 127 (the workload program was not found"), std::string::npos)
      << reason;
  EXPECT_EQ(column(db, "SELECT reason FROM passes WHERE ordinal = 1")[0].rfind(
                "blocked: the trace pass failed (", 0),
            0u);
}

// Any failed trace pass stops the run: a workload exiting 1 (a failure a retry may fix) is
// launched as often as the trace pass's retry policy allows and no counter pass starts; `kprof
// status` then names the failed pass's log and prints its last lines.
TEST(BlockedCounterPasses, AFailingWorkloadIsLaunchedOnlyAsTheTraceRetryPolicyAllows) {
  TempDir t;
  const fs::path launches = t.path / "launches";
  std::string text = read_file(k_source / "runbooks" / "qwen3-30b-a3b-sim.yaml");
  const std::string cmd = "  command: [\"true\"]\n";
  text.replace(text.find(cmd), cmd.size(),
               "  command: [/bin/sh, -c, \"echo x >> " + launches.string() +
                   "; echo 'weights not found: /models/qwen3' >&2; exit 1\"]\n");
  const std::string dbline = "database: qwen3-30b-a3b-sim.db\n";
  text.replace(text.find(dbline), dbline.size(), "database: " + (t.path / "f.db").string() + "\n");
  const std::string retry = "retry:\n  attempts: 2\n  backoff: 1s\n";
  text.replace(text.find(retry), retry.size(), "retry:\n  attempts: 3\n  backoff: 10ms\n");
  std::ofstream(t.path / "f.yaml") << text;
  const auto db = t.path / "f.db";
  const auto r = kprof(t.path, "run f.yaml --simulate --quiet");
  EXPECT_EQ(r.exit_code(), 1) << r.out;
  EXPECT_EQ(read_file(launches), "x\nx\nx\n");  // the trace pass's 3 attempts, nothing more
  EXPECT_EQ(column(db, "SELECT state FROM passes ORDER BY ordinal"),
            (std::vector<std::string>{"failed", "planned", "planned", "planned"}));
  EXPECT_EQ(scalar(db, "SELECT sum(attempts) FROM passes WHERE kind = 'counters'"), 0);
  const auto st = kprof(t.path, "status " + db.string());
  const auto log = column(db, "SELECT log_path FROM passes WHERE ordinal = 0")[0];
  ASSERT_FALSE(log.empty());
  EXPECT_NE(st.out.find("pass 0 (trace) failed; log: " + log + "\n"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("  | weights not found: /models/qwen3\n"), std::string::npos) << st.out;
}

// The double directly: the same script in the two process models, and ROCm 7.0's marker rule.
RunResult sim_script(const fs::path& dir, const std::vector<std::string>& extra,
                     std::map<std::string, std::string> env) {
  std::vector<std::string> args{
      "--kernel-trace", "--selected-regions", "-f", "csv", "-d", "out", "-o", "t"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), {"--", "python3", k_script.string(), "--tokens", "64"});
  env["ROCPROF_SIM_MODEL"] = "qwen3-30b-a3b-mi300x";
  return run_sim(dir, args, env);
}

size_t trace_rows(const fs::path& dir) {
  const std::string text = read_file(dir / "out" / "t_kernel_trace.csv");
  return text.empty() ? 0 : static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) - 1;
}

TEST(SimRegions, OnlyTheProcessThatResumedIsRecorded) {
  TempDir in_process, engine_child;
  const auto a = sim_script(in_process.path, {}, {{"VLLM_ENABLE_V1_MULTIPROCESSING", "0"}});
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  EXPECT_EQ(trace_rows(in_process.path), 54194u);
  // The fixed script refuses vLLM's default process model with a one-line reason (exit 2).
  const auto b = sim_script(engine_child.path, {}, {});
  EXPECT_EQ(b.exit_code(), 2);
  EXPECT_NE(b.err.find("qwen3_generate.py: VLLM_ENABLE_V1_MULTIPROCESSING=(unset, vLLM default "
                       "1): vLLM would run the model in its EngineCore process"),
            std::string::npos)
      << b.err;
  // The pre-fix script runs there: its EngineCore child launches every kernel and never resumes.
  std::vector<std::string> args{
      "--kernel-trace",
      "--selected-regions",
      "-f",
      "csv",
      "-d",
      "out",
      "-o",
      "t",
      "--",
      "python3",
      (k_source / "tests/sim/data/qwen3_generate_resume_in_parent.py").string(),
      "--tokens",
      "64"};
  const auto c = run_sim(engine_child.path, args, {{"ROCPROF_SIM_MODEL", "qwen3-30b-a3b-mi300x"}});
  ASSERT_EQ(c.exit_code(), 0) << c.err;
  EXPECT_EQ(trace_rows(engine_child.path), 0u);
  EXPECT_FALSE(fs::exists(engine_child.path / "out" / "t_kernel_trace.csv"));
  // Without --selected-regions the engine process's dispatches are all there, warm-up included.
  TempDir all;
  std::vector<std::string> no_regions = args;
  no_regions.erase(no_regions.begin() + 1);
  const auto d = run_sim(all.path, no_regions, {{"ROCPROF_SIM_MODEL", "qwen3-30b-a3b-mi300x"}});
  ASSERT_EQ(d.exit_code(), 0) << d.err;
  EXPECT_GT(trace_rows(all.path), 54194u);
}

TEST(SimRegions, Rocm70HonoursRegionsOnlyWithMarkerTrace) {
  TempDir without, with;
  const std::map<std::string, std::string> env{{"VLLM_ENABLE_V1_MULTIPROCESSING", "0"},
                                               {"ROCPROF_SIM_VERSION", "7.0"}};
  const auto a = sim_script(without.path, {}, env);
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  EXPECT_EQ(trace_rows(without.path), 0u);
  const auto b = sim_script(with.path, {"--marker-trace"}, env);
  ASSERT_EQ(b.exit_code(), 0) << b.err;
  EXPECT_EQ(trace_rows(with.path), 54194u);
}

// ROCR_VISIBLE_DEVICES filters, HIP_VISIBLE_DEVICES indexes what is left: kprof's old --gpus N
// (both set to N) leaves the application no GPU for N >= 1.
TEST(SimDevices, HipIndexesWhatRocrLeaves) {
  TempDir ok, none, script;
  const std::vector<std::string> args{
      "--kernel-trace", "-f", "csv", "-d", "out", "-o", "t", "--", "true"};
  const auto a = run_sim(ok.path, args,
                         {{"ROCPROF_SIM_MODEL", "vector-ops-8gpu"},
                          {"ROCR_VISIBLE_DEVICES", "3"},
                          {"HIP_VISIBLE_DEVICES", "0"}});
  ASSERT_EQ(a.exit_code(), 0) << a.err;
  const std::string agents = read_file(ok.path / "out" / "t_agent_info.csv");
  EXPECT_EQ(std::count(agents.begin(), agents.end(), '\n'), 4);           // header, 2 CPUs, 1 GPU
  EXPECT_NE(agents.find("\n5,2,\"GPU\","), std::string::npos) << agents;  // GPU 3 = KFD node 5
  const auto b = run_sim(none.path, args,
                         {{"ROCPROF_SIM_MODEL", "vector-ops-8gpu"},
                          {"ROCR_VISIBLE_DEVICES", "3"},
                          {"HIP_VISIBLE_DEVICES", "3"}});
  EXPECT_EQ(b.exit_code(), 1);
  EXPECT_NE(b.err.find("hipErrorNoDevice (no ROCm-capable device is detected; "
                       "ROCR_VISIBLE_DEVICES=3 HIP_VISIBLE_DEVICES=3)"),
            std::string::npos)
      << b.err;
  EXPECT_FALSE(fs::exists(none.path / "out"));
  // The workload script, through the torch stand-in, sees no GPU and says so (exit 2).
  const auto c = sim_script(script.path, {},
                            {{"VLLM_ENABLE_V1_MULTIPROCESSING", "0"},
                             {"ROCR_VISIBLE_DEVICES", "1"},
                             {"HIP_VISIBLE_DEVICES", "1"}});
  EXPECT_EQ(c.exit_code(), 2);
  EXPECT_NE(c.err.find("HIP_VISIBLE_DEVICES=1 indexes the 1 device(s) ROCR_VISIBLE_DEVICES=1 "
                       "leaves"),
            std::string::npos)
      << c.err;
}

// `kprof run --gpus 0,1,2,3` on the double: every pass's application sees exactly one GPU, the
// one its slot names (agent_info's Node_Id is the physical KFD node: CPUs are nodes 0 and 1).
TEST(SimDevices, KprofGpusPutsEachPassOnTheDeviceNamed) {
  TempDir t;
  const auto rb = t.path / "gpus.yaml";
  std::ofstream(rb) << "schema_version: 1\nname: gpus\nworkload:\n  command: [\"true\"]\n"
                       "profiler:\n  output_format: csv\n"
                       "passes:\n  counters:\n    counters: [GRBM_COUNT, GRBM_GUI_ACTIVE, "
                       "GRBM_CP_BUSY, GRBM_CPC_BUSY, GRBM_CPF_BUSY, GRBM_EA_BUSY, GRBM_SPI_BUSY]\n"
                       "database: gpus.db\nsim: {model: vector-ops-8gpu, seed: 5}\n";
  const auto r = kprof(t.path, "run " + rb.string() + " --simulate --quiet --gpus 0,1,2,3");
  ASSERT_EQ(r.exit_code(), 0) << r.out;
  const auto db = t.path / "gpus.db";
  ASSERT_EQ(scalar(db, "SELECT count(*) FROM passes WHERE state = 'done'"), 5);
  std::set<int> used;
  for (int ordinal = 0; ordinal <= 4; ++ordinal) {
    const std::string log = read_file(t.path / "gpus-captures" / "run-1" / "logs" /
                                      ("pass-" + std::to_string(ordinal) + ".log"));
    std::smatch m;
    ASSERT_TRUE(std::regex_search(log, m, std::regex("ROCR_VISIBLE_DEVICES=([0-9]+) "))) << log;
    EXPECT_EQ(log.find("HIP_VISIBLE_DEVICES"), std::string::npos) << log;
    const int gpu = std::stoi(m[1]);
    if (ordinal > 0) used.insert(gpu);
    const auto nodes = column(db,
                              "SELECT a.node_id FROM agents a JOIN passes p ON p.id = a.pass_id "
                              "WHERE a.type = 'GPU' AND p.ordinal = " +
                                  std::to_string(ordinal));
    ASSERT_EQ(nodes.size(), 1u) << "pass " << ordinal;
    EXPECT_EQ(std::stoi(nodes[0]), gpu + 2) << "pass " << ordinal;
  }
  EXPECT_EQ(used, (std::set<int>{0, 1, 2, 3}));  // the four counter passes ran at once
}

// ROCm 7.0 behaviour end to end: kprof adds --marker-trace, so the trace is not empty; counter
// passes count outside the region, so kprof narrows them to the kernels the trace saw in it; and
// rocpd output (7.0's default) gives the database the CSV output gives.
TEST(SimRocm70, ShippedRunbookTracesAndCountsOnlyTheRegionsKernels) {
  TempDir t;
  const auto rocpd = shipped_runbook(t.path, "rocpd.yaml");
  const auto csv = shipped_runbook(t.path, "csv.yaml", [](std::string& text) {
    const std::string from = "  selected_regions: true\n";
    text.replace(text.find(from), from.size(), from + "  output_format: csv\n");
  });
  for (const auto& rb : {rocpd, csv}) {
    const auto r =
        kprof(t.path, "run " + rb.string() + " --simulate --quiet", "ROCPROF_SIM_VERSION=7.0");
    ASSERT_EQ(r.exit_code(), 0) << r.out;
  }
  const auto rocpd_db = t.path / "rocpd.db", csv_db = t.path / "csv.db";
  EXPECT_NE(column(rocpd_db, "SELECT profiler_version FROM runs")[0].find("version: 1.0.0"),
            std::string::npos);
  const std::string log = read_file(t.path / "rocpd-captures" / "run-1" / "logs" / "pass-1.log");
  EXPECT_NE(log.find("-f rocpd --kernel-include-regex '^(?:fused_moe_kernel)$' --marker-trace "
                     "--selected-regions"),
            std::string::npos)
      << log;
  EXPECT_NEAR(static_cast<double>(scalar(rocpd_db,
                                         "SELECT count(*) FROM dispatches d JOIN passes p ON "
                                         "p.id = d.pass_id WHERE p.ordinal = 0")),
              54194.0, 1.0);
  EXPECT_EQ(column(rocpd_db,
                   "SELECT DISTINCT s.value FROM dispatches d JOIN passes p ON p.id = d.pass_id "
                   "JOIN strings s ON s.id = d.kernel_name_id WHERE p.kind = 'counters'"),
            std::vector<std::string>{"fused_moe_kernel"});
  // 7.0 also counted the warm-up's 288 launches; kprof kept the region's 6,144, found against the
  // trace (core/exec/passes/region_window.hpp), and says so in each counter pass's log.
  EXPECT_EQ(column(rocpd_db,
                   "SELECT count(*) FROM dispatches d JOIN passes p ON p.id = d.pass_id WHERE "
                   "p.kind = 'counters' GROUP BY p.id"),
            (std::vector<std::string>{"6144", "6144", "6144"}));
  EXPECT_NE(log.find("counts outside --selected-regions: process "), std::string::npos) << log;
  EXPECT_NE(log.find(" left out 288 of 6432 counted dispatches outside the region"),
            std::string::npos)
      << log;
  // The kept launches are the region's: their Dispatch_Ids start after the warm-up's, where the
  // trace's do (give or take a lazy-init kernel a rerun adds or loses).
  const int64_t trace_first = scalar(
      rocpd_db,
      "SELECT min(d.dispatch_id) FROM dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings "
      "s ON s.id = d.kernel_name_id WHERE p.ordinal = 0 AND s.value = 'fused_moe_kernel'");
  const int64_t counter_first =
      scalar(rocpd_db,
             "SELECT min(d.dispatch_id) FROM dispatches d JOIN passes p ON p.id = d.pass_id WHERE "
             "p.ordinal = 1");
  EXPECT_NEAR(static_cast<double>(counter_first), static_cast<double>(trace_first), 2.0);
  // Same content from both formats: every dispatch and counter value, pids aside.
  const std::string dispatches =
      "SELECT p.ordinal, d.dispatch_id, d.kernel_id, s.value, d.agent, d.start_ns, d.end_ns, "
      "d.grid_x, d.wg_x FROM dispatches d JOIN passes p ON p.id = d.pass_id JOIN strings s ON "
      "s.id = d.kernel_name_id ORDER BY 1, 2";
  const std::string counters =
      "SELECT p.ordinal, c.dispatch_id, s.value, c.value FROM counter_values c JOIN passes p ON "
      "p.id = c.pass_id JOIN strings s ON s.id = c.counter_id ORDER BY 1, 2, 3";
  for (const auto& sql : {dispatches, counters}) {
    SQLite::Database a(rocpd_db.string(), SQLite::OPEN_READONLY);
    SQLite::Database b(csv_db.string(), SQLite::OPEN_READONLY);
    SQLite::Statement qa(a, sql), qb(b, sql);
    size_t rows = 0, differ = 0;
    for (bool ra = qa.executeStep(), rb2 = qb.executeStep(); ra || rb2;
         ra = qa.executeStep(), rb2 = qb.executeStep()) {
      ASSERT_TRUE(ra && rb2) << "row counts differ after " << rows << " rows: " << sql;
      ++rows;
      for (int c = 0; c < qa.getColumnCount(); ++c)
        if (qa.getColumn(c).getString() != qb.getColumn(c).getString()) ++differ;
    }
    EXPECT_GT(rows, 6144u);
    EXPECT_EQ(differ, 0u) << sql;
  }
}

}  // namespace
}  // namespace kprof::sim::testing
