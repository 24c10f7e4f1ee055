// The rocprofv3 JSON reader on documents written here in the layout of ROCm/rocprofiler-sdk
// source/lib/output/generateJSON.cpp (fields as in the real capture of
// tests/data/captures/aorta-fsdp-rank-908), and its errors. The real capture itself:
// json_capture_test.cpp.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/base/error.hpp"
#include "core/ingest/discover.hpp"
#include "core/ingest/read_file.hpp"
#include "tests/ingest/captures.hpp"
#include "tests/ingest/vector_sink.hpp"

namespace kprof::ingest {
namespace {

namespace fs = std::filesystem;

const std::string k_metadata = R"("metadata":{"pid":4242,"command":["python3","x.py"],)"
                               R"("config":{"kernel_rename":false}})";
// A CPU agent, and a GPU whose handle (9002) is neither its node id (5) nor its logical id (3).
const std::string k_agents =
    R"("agents":[{"id":{"handle":9001},"type":1,"node_id":0,"logical_node_id":0,)"
    R"("name":"AMD EPYC","product_name":"AMD EPYC 9575F","caches":[{"size":32}]},)"
    R"({"id":{"handle":9002},"type":2,"node_id":5,"logical_node_id":3,"name":"gfx950",)"
    R"("product_name":"AMD Instinct MI350X","cu_count":256,"simd_count":1024,)"
    R"("wave_front_size":64,"max_waves_per_simd":8,"num_xcc":8,)"
    R"("max_engine_clk_fcompute":2200,"caches":[{"size":32,"type":{"Data":1}}]}])";
const std::string k_symbols =
    R"("kernel_symbols":[{"kernel_id":7,"kernel_name":"_Z4gemmv.kd",)"
    R"J("formatted_kernel_name":"gemm()","demangled_kernel_name":"gemm()",)J"
    R"("group_segment_size":1000,"private_segment_size":0,"sgpr_count":32,)"
    R"("arch_vgpr_count":64,"accum_vgpr_count":8},)"
    R"({"kernel_id":8,"kernel_name":"_Z3addv.kd","group_segment_size":0,"sgpr_count":16,)"
    R"("arch_vgpr_count":8,"accum_vgpr_count":0}])";

std::string record(int id, int kernel, int64_t start, const std::string& agent = "9002") {
  return R"({"size":184,"kind":11,"operation":2,"thread_id":4243,"correlation_id":{"internal":)" +
         std::to_string(500 + id) + R"(,"external":0},"start_timestamp":)" + std::to_string(start) +
         R"(,"end_timestamp":)" + std::to_string(start + 100 * id) +
         R"(,"dispatch_info":{"size":72,"agent_id":{"handle":)" + agent +
         R"(},"queue_id":{"handle":16},"kernel_id":)" + std::to_string(kernel) +
         R"(,"dispatch_id":)" + std::to_string(id) +
         R"(,"private_segment_size":64,"group_segment_size":0,"workgroup_size":)"
         R"({"x":256,"y":1,"z":1},"grid_size":{"x":4096,"y":2,"z":1}},"stream_id":{"handle":3}})";
}

// One process's object of the "rocprofiler-sdk-tool" list.
std::string process(const std::string& dispatches, bool buffers_first = false) {
  const std::string buffers =
      R"("buffer_records":{"kernel_dispatch":[)" + dispatches + R"(],"hip_api":[]})";
  const std::string rest = k_metadata + "," + k_agents + "," + k_symbols;
  return "{" + (buffers_first ? buffers + "," + rest : rest + "," + buffers) + "}";
}

std::string document(const std::string& dispatches, bool buffers_first = false) {
  return R"({"rocprofiler-sdk-tool":[)" + process(dispatches, buffers_first) + "]}";
}

class JsonReader : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("kprof_json_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }
  std::string write(const std::string& text, const std::string& name = "4242_results.json") {
    const fs::path p = m_dir / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path m_dir;
};

TEST_F(JsonReader, MapsAgentsSymbolsAndDispatchesAsTheCsvWriterDoes) {
  const std::string path = write(document(record(1, 7, 1000) + "," + record(2, 8, 2000)));
  EXPECT_EQ(format_from_name(path), Format::json);
  test::VectorSink sink;
  const FileResult r = read_file(path, sink);
  EXPECT_EQ(r.kind, "json");
  EXPECT_EQ(sink.files, (std::vector<std::string>{"json " + path}));
  ASSERT_EQ(sink.agents.size(), 2u);
  EXPECT_EQ(sink.agents[0].type, "CPU");
  const auto& gpu = sink.agents[1];
  EXPECT_EQ(gpu.type, "GPU");
  EXPECT_EQ(gpu.node_id, 5);
  EXPECT_EQ(gpu.logical_node_id, 3);
  EXPECT_EQ(gpu.name, "gfx950");
  EXPECT_EQ(gpu.product_name, "AMD Instinct MI350X");
  EXPECT_EQ(gpu.cu_count, 256);
  EXPECT_EQ(gpu.simd_count, 1024);
  EXPECT_EQ(gpu.wave_front_size, 64);
  EXPECT_EQ(gpu.max_waves_per_simd, 8);
  EXPECT_EQ(gpu.num_xcc, 8);
  EXPECT_EQ(gpu.max_engine_clk_mhz, 2200);
  ASSERT_EQ(sink.dispatches.size(), 2u);
  // Dispatch 1: kernel 7; group_segment_size 1000 rounded up to 512-byte blocks is 1024.
  EXPECT_EQ(sink.events[3],
            "dispatch 4242:1 k7 c501 a3 q16 s3 t4243 1000-1100 g4096x2x1 w256x1x1 l1024 p64 "
            "v64/8/32 [gemm()]");
  // Kernel 8 has no formatted or demangled name: its mangled name is all there is.
  EXPECT_EQ(sink.events[4],
            "dispatch 4242:2 k8 c502 a3 q16 s3 t4243 2000-2200 g4096x2x1 w256x1x1 l0 p64 v8/0/16 "
            "[_Z3addv.kd]");
  EXPECT_EQ(r.rows_read, 2);  // the dispatch records
  EXPECT_EQ(r.dispatches, 2);
  EXPECT_EQ(r.rows_rejected, 0);
  ASSERT_EQ(sink.digests.size(), 1u);
  EXPECT_EQ(sink.digests[0].first, static_cast<int64_t>(fs::file_size(path)));
  EXPECT_EQ(sink.ends, (std::vector<int64_t>{2}));
}

// generateJSON.cpp writes buffer_records last; a document in another order reads the same.
TEST_F(JsonReader, DispatchesBeforeTheirSymbolsReadTheSame) {
  const std::string recs = record(1, 7, 1000) + "," + record(2, 8, 2000);
  test::VectorSink in_order, buffers_first;
  read_file(write(document(recs)), in_order);
  read_file(write(document(recs, true), "4242b_results.json"), buffers_first);
  ASSERT_EQ(in_order.dispatches.size(), 2u);
  std::vector<std::string> a(in_order.events.begin() + 1, in_order.events.end());
  std::vector<std::string> b(buffers_first.events.begin() + 1, buffers_first.events.end());
  EXPECT_EQ(a, b);
}

TEST_F(JsonReader, ARecordWithoutAFieldIsABadRowNamingRecordAndField) {
  std::string broken = record(2, 7, 2000);
  broken.replace(broken.find(R"("start_timestamp")"), 17, R"("begin_timestamp")");
  const std::string text = document(record(1, 7, 1000) + "," + broken + "," + record(3, 99, 3000) +
                                    "," + record(4, 7, 4000, "1"));
  const std::string path = write(text);
  test::VectorSink sink;
  const FileResult r = read_file(path, sink);
  EXPECT_EQ(sink.dispatches.size(), 1u);
  EXPECT_EQ(r.rows_rejected, 3);
  ASSERT_EQ(sink.bad.size(), 3u);
  const auto at = [&](const std::string& rec) {
    return std::to_string(text.find(rec));  // the record's first byte
  };
  EXPECT_EQ(sink.bad[0].reason, "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[1] (byte " +
                                    at(broken) + "): no field 'start_timestamp'");
  EXPECT_EQ(sink.bad[1].reason, "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[2] (byte " +
                                    at(record(3, 99, 3000)) +
                                    "): dispatch 3: no kernel symbol for kernel_id 99");
  EXPECT_EQ(sink.bad[2].reason,
            "rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[3] (byte " +
                at(record(4, 7, 4000, "1")) +
                "): dispatch 4: agent handle 1 is none of the process's agents");
  EXPECT_EQ(sink.bad[0].file, path);
  EXPECT_EQ(sink.bad[0].line, 1);

  // A symbol record kprof cannot use: its dispatches say why.
  std::string odd = document(record(1, 7, 1000) + "," + record(2, 8, 2000));
  odd.replace(odd.find(R"J("formatted_kernel_name":"gemm()")J"), 32,
              R"("formatted_kernel_name":17)");
  test::VectorSink odd_sink;
  read_file(write(odd, "2_results.json"), odd_sink);
  ASSERT_EQ(odd_sink.bad.size(), 1u);
  EXPECT_NE(
      odd_sink.bad[0].reason.find(
          "dispatch 1: its kernel symbol is unusable: rocprofiler-sdk-tool[0].kernel_symbols[0] "
          "(byte "),
      std::string::npos)
      << odd_sink.bad[0].reason;
  EXPECT_NE(odd_sink.bad[0].reason.find("field 'formatted_kernel_name' is not a string: 17"),
            std::string::npos)
      << odd_sink.bad[0].reason;

  ReadOptions strict;
  strict.strict = true;
  test::VectorSink none;
  try {
    read_file(path, none, strict);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string line = e.diagnostics()[0].line();
    EXPECT_NE(line.find(path + ":1: rocprofiler-sdk-tool[0].buffer_records.kernel_dispatch[1]"),
              std::string::npos)
        << line;
    EXPECT_NE(line.find("no field 'start_timestamp'"), std::string::npos) << line;
    EXPECT_NE(line.find("re-capture it"), std::string::npos) << line;
  }
}

TEST_F(JsonReader, CutOffOrForeignDocumentsAreErrorsWithWhereAndWhy) {
  const std::string whole = document(record(1, 7, 1000));
  const std::string cut = whole.substr(0, whole.size() - 40);
  const std::string path = write("\n" + cut);
  test::VectorSink sink;
  try {
    read_file(path, sink);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    const std::string line = e.diagnostics()[0].line();
    EXPECT_EQ(e.exit_code(), 2);
    EXPECT_NE(line.find(path + ":2: not valid JSON (byte " + std::to_string(cut.size() + 1) +
                        "): syntax error while parsing object key"),
              std::string::npos)
        << line;
    EXPECT_NE(line.find("did rocprofv3 finish writing it?"), std::string::npos) << line;
  }
  for (const std::string& text : {std::string(R"({"traceEvents":[]})"), std::string("[1,2]")}) {
    const std::string other = write(text, "1_results.json");
    test::VectorSink s;
    try {
      read_file(other, s);
      FAIL() << "expected an error for " << text;
    } catch (const Error& e) {
      EXPECT_NE(e.diagnostics()[0].line().find("no \"rocprofiler-sdk-tool\" list"),
                std::string::npos)
          << e.diagnostics()[0].line();
    }
  }
}

// Under --kernel-rename the CSV writer names a dispatch by the text rocprofv3 keeps for its
// external correlation id; the JSON file has them in strings.correlation_id.external, a std::map
// that cereal writes as [{"key": id, "value": text}] (ROCm/rocprofiler-sdk
// source/lib/output/generateJSON.cpp; tests/rocprofv3/kernel-rename/validate.py reads it so). No
// real capture with renames was at hand: this document follows those sources.
TEST_F(JsonReader, KernelRenameNamesComeFromTheExternalCorrelationIds) {
  std::string renamed = record(2, 7, 2000);
  renamed.replace(renamed.find(R"("external":0)"), 12, R"("external":9)");
  std::string proc = process(record(1, 7, 1000) + "," + renamed);
  proc.insert(1, R"("strings":{"correlation_id":{"external":[{"key":9,"value":"decode_step"}]}},)");
  test::VectorSink sink;
  read_file(write(R"({"rocprofiler-sdk-tool":[)" + proc + "]}"), sink);
  ASSERT_EQ(sink.dispatches.size(), 2u);
  EXPECT_EQ(sink.dispatches[0].kernel_name, "gemm()");
  EXPECT_EQ(sink.dispatches[1].kernel_name, "decode_step");
  EXPECT_EQ(sink.dispatches[1].vgpr, 64);  // the registers stay the symbol's
}

// A file may hold several processes (rocprofiler-sdk-tool is a list): each keeps its own pid,
// agents and symbols, and a handle of one process means nothing in the next.
TEST_F(JsonReader, EachProcessOfAFileKeepsItsOwnPidAgentsAndSymbols) {
  // The second process's kernel 7 is its kernel 70: its dispatch of kernel_id 7 has no symbol.
  std::string two = process(record(1, 8, 5000, "9001") + "," + record(2, 7, 6000));
  two.replace(two.find(R"("pid":4242)"), 10, R"("pid":5151)");
  two.replace(two.find(R"("kernel_id":7,)"), 14, R"("kernel_id":70,)");
  const std::string both =
      R"({"rocprofiler-sdk-tool":[)" + process(record(1, 7, 1000)) + "," + two + "]}";
  test::VectorSink sink;
  const FileResult r = read_file(write(both), sink);
  EXPECT_EQ(sink.agents.size(), 4u);
  ASSERT_EQ(sink.dispatches.size(), 2u);
  EXPECT_EQ(sink.dispatches[0].pid, 4242);
  EXPECT_EQ(sink.dispatches[0].agent, 3);
  EXPECT_EQ(sink.dispatches[0].kernel_name, "gemm()");
  EXPECT_EQ(sink.dispatches[1].pid, 5151);
  EXPECT_EQ(sink.dispatches[1].agent, 0);  // handle 9001 is that process's CPU agent
  EXPECT_EQ(sink.dispatches[1].kernel_name, "_Z3addv.kd");
  EXPECT_EQ(r.rows_rejected, 1);
  ASSERT_EQ(sink.bad.size(), 1u);
  EXPECT_NE(sink.bad[0].reason.find("rocprofiler-sdk-tool[1].buffer_records.kernel_dispatch[1]"),
            std::string::npos)
      << sink.bad[0].reason;
  EXPECT_NE(sink.bad[0].reason.find("no kernel symbol for kernel_id 7"), std::string::npos);
}

// The byte source refills its buffer as the parser goes: any chunk size reads the same rows, and
// hashes every byte once.
TEST_F(JsonReader, ChunkSizeDoesNotChangeTheRows) {
  const std::string path = test::capture("aorta-fsdp-rank-908/908_results.json");
  test::VectorSink whole, small;
  read_file(path, whole);
  ReadOptions o;
  o.chunk_bytes = 7;
  read_file(path, small, o);
  EXPECT_EQ(whole.events, small.events);
  EXPECT_EQ(whole.digests, small.digests);
  // The digest is of the bytes as committed (sha256sum; tests/data/SOURCES.md lists the same).
  ASSERT_EQ(whole.digests.size(), 1u);
  EXPECT_EQ(whole.digests[0],
            (std::pair<int64_t, std::string>{
                1184231, "d26e06b189512b17b527bbb4ce05a5c76812e73cb26d2a0885d7ee0756ddc51b"}));
  EXPECT_EQ(whole.dispatches.size(), 2053u);
}

// Damaged copies of the real capture (cut at random places, or a random byte replaced) either
// read, with any bad record a BadRow, or fail with an input error: never another exception.
TEST_F(JsonReader, DamagedCopiesReadOrFailWithAnInputError) {
  std::ifstream in(test::capture("aorta-fsdp-rank-908/908_results.json"), std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::mt19937 rng(20261208);
  std::uniform_int_distribution<size_t> at(0, text.size() - 1);
  const std::string junk = "{}[],:\"0a-9 \x01\xff";
  std::uniform_int_distribution<size_t> pick(0, junk.size() - 1);
  int errors = 0, read = 0;
  for (int trial = 0; trial < 40; ++trial) {
    std::string damaged = text;
    if (trial % 2 == 0)
      damaged.resize(at(rng));
    else
      damaged[at(rng)] = junk[pick(rng)];
    const std::string path = write(damaged, "908_results.json");
    test::VectorSink sink;
    try {
      read_file(path, sink);
      ++read;
    } catch (const Error& e) {
      EXPECT_EQ(e.exit_code(), 2) << e.what();
      ++errors;
    }
  }
  EXPECT_EQ(errors + read, 40);
  EXPECT_GE(errors, 20);  // every cut copy is one
}

TEST_F(JsonReader, DiscoveryFindsResultsJsonAndTheirPid) {
  write(document(record(1, 7, 1000)), "4242_results.json");
  write("{}", "notes.json");
  const Discovery d = discover({m_dir.string()});
  ASSERT_EQ(d.passes.size(), 1u);
  ASSERT_EQ(d.passes[0].files.size(), 1u);
  EXPECT_EQ(d.passes[0].files[0].format, Format::json);
  EXPECT_EQ(d.passes[0].files[0].pid, 4242);
  EXPECT_EQ(d.skipped, (std::vector<std::string>{(m_dir / "notes.json").string()}));
  EXPECT_EQ(infer_pass_kind(d.passes[0]), "trace");
}

// rocprofv3 writes its JSON file whatever it recorded: one without kernel dispatch records is the
// machine's agents and the kernel symbols, no capture, and a searched folder leaves it out with a
// note (a named one is read: its agents, no dispatch).
TEST_F(JsonReader, DiscoveryLeavesOutAFileWithoutDispatches) {
  const std::string empty = write(document(""), "big_results.json");
  write(document(record(1, 7, 1000)), "4242_results.json");
  const Discovery d = discover({m_dir.string()});
  ASSERT_EQ(d.passes.size(), 1u);
  ASSERT_EQ(d.passes[0].files.size(), 1u);
  EXPECT_EQ(fs::path(d.passes[0].files[0].path).filename(), "4242_results.json");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "skipped " + empty +
                            ": no kernel dispatch records (rocprofv3 JSON with agents and kernel "
                            "symbols only; kprof reads the dispatches of a JSON file)");
  const Discovery named = discover({empty});
  ASSERT_EQ(named.passes.size(), 1u);
  test::VectorSink sink;
  read_pass(named.passes[0], sink, ReadOptions{});
  EXPECT_EQ(sink.agents.size(), 2u);
  EXPECT_TRUE(sink.dispatches.empty());
}

}  // namespace
}  // namespace kprof::ingest
