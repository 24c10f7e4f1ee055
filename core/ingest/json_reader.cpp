// rocprofv3 JSON read as a stream of SAX events (nlohmann::json::sax_parse), keeping only the
// fields of the records kprof reads. Memory: the fields of one record at a time, the agents and
// the kernel symbols (name, LDS and register counts per kernel_id). Dispatches are delivered as
// they are read when the process's metadata, agents and kernel_symbols came before its
// buffer_records, the order ROCm/rocprofiler-sdk source/lib/output/generateJSON.cpp writes; in any
// other order they wait for the end of their process, about 200 bytes each. Measured: 14 MB peak
// resident set, 0.6 s, for the whole 37 MB capture tests/data/captures/aorta-fsdp-rank-908 was cut
// from (43,915 dispatches, 9,889 symbols); a whole-document parse would hold the 37 MB document as
// a tree many times that size.
//
// The rows are the ones rocprofv3's CSV writer makes of the same records (ROCm/rocprofiler-sdk
// source/lib/output/generateCSV.cpp, kernel_trace), so that a capture reads the same in both
// formats: Kernel_Name is the symbol's formatted_kernel_name (metadata::get_kernel_name in
// source/lib/output/metadata.cpp: the demangled name, or the truncated one under
// --truncate-kernels); "Agent N" is the agent's logical_node_id (get_agent_index under the default
// --agent-index relative); LDS_Block_Size is the symbol's group_segment_size rounded up to 512
// bytes (lds_block_size, source/lib/output/counter_info.hpp); Scratch_Size is the dispatch's
// private_segment_size; the register counts are the symbol's; under --kernel-rename the name is
// the text strings.correlation_id.external holds for the dispatch's external correlation id. Not
// read: counter records, and every other record kind.
#include "core/ingest/json_reader.hpp"

#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/input_file.hpp"
#include "core/ingest/json_input.hpp"

namespace kprof::ingest {

namespace {

using json_input::ByteSource;
using json_input::Fields;
using json_input::Frame;
using json_input::Json;
using json_input::Pending;
using json_input::Symbol;

// What nlohmann's iterator input adapter reads through: `*it`, `++it`, and `it == end`.
// (The standard's names for an iterator's types, so not kprof's naming.)
class ByteIterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;
  ByteIterator() = default;
  explicit ByteIterator(ByteSource* s) : m_s(s) {}
  reference operator*() const { return m_s->current(); }
  ByteIterator& operator++() {
    m_s->advance();
    return *this;
  }
  bool operator==(const ByteIterator& o) const { return done() == o.done(); }

 private:
  bool done() const { return m_s == nullptr || m_s->at_end(); }
  ByteSource* m_s = nullptr;
};

enum class Record { none, metadata, agent, symbol, dispatch, rename };

const char* const k_hint =
    "the record lacks what rocprofv3 writes there: was the file edited, or written by another "
    "tool? re-capture it with rocprofv3 --output-format json";

class JsonRead : public nlohmann::json_sax<Json> {
 public:
  JsonRead(const std::string& path, store::RowSink& sink, const ReadOptions& options,
           FileResult& result, ByteSource& src)
      : m_path(path), m_sink(sink), m_options(options), m_result(result), m_src(src) {}

  bool null() override { return scalar(Json()); }
  bool boolean(bool v) override { return scalar(Json(v)); }
  bool number_integer(number_integer_t v) override { return scalar(Json(v)); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(Json(v)); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(Json(v)); }
  bool string(string_t& v) override { return scalar(Json(v)); }
  bool binary(binary_t&) override { return scalar(Json()); }
  bool key(string_t& k) override {
    m_key = k;
    return true;
  }
  bool start_object(std::size_t) override { return start(false); }
  bool start_array(std::size_t) override { return start(true); }
  bool end_object() override { return end(); }
  bool end_array() override { return end(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) override {
    m_error = e.what();
    m_error_line = m_src.line();
    m_error_offset = m_src.offset();
    return false;
  }

  // After sax_parse returned false: the parser's message, where the file stopped making sense.
  [[noreturn]] void throw_parse_error() const {
    std::string what = m_error;
    // "[json.exception.parse_error.101] parse error at line 1, column 9: syntax error ...": the
    // place is said once, as the byte offset (nlohmann counts the end of input as a column).
    if (auto at = what.find("parse error"); at != std::string::npos) {
      const auto colon = what.find(": ", at);
      what = colon == std::string::npos ? what.substr(at) : what.substr(colon + 2);
    }
    throw Error::input("not valid JSON (byte " + std::to_string(m_error_offset) + "): " + what,
                       "the file is cut off or damaged: did rocprofv3 finish writing it? "
                       "re-capture it",
                       SourcePos{m_path, static_cast<int>(m_error_line), 0});
  }

  void check_complete() const {
    if (m_processes == 0) {
      throw Error::input("no \"rocprofiler-sdk-tool\" list of processes at the top of the document",
                         "expected rocprofv3 --output-format json output (<pid>_results.json)",
                         SourcePos{m_path});
    }
    if (m_rejected > 0 && m_rejected == m_result.rows_read) {
      throw Error::input("none of the " + std::to_string(m_result.rows_read) +
                             " records is usable; the first: " + m_first_reject,
                         k_hint, SourcePos{m_path});
    }
  }

 private:
  Frame& top() { return m_stack.back(); }
  bool in_array() const { return !m_stack.empty() && m_stack.back().array; }

  // Every value counts as a child of the container it is in (array elements are numbered so).
  void begin_child() {
    if (!m_stack.empty()) ++top().children;
  }

  bool scalar(Json v) {
    begin_child();
    if (m_record != Record::none && top().collect)
      m_fields.values[top().prefix + m_key] = std::move(v);
    return true;
  }

  // The stack down to a process object: root object, "rocprofiler-sdk-tool" list, process.
  bool process_path(size_t depth) const {
    return m_stack.size() >= depth && depth >= 2 && !m_stack[0].array && m_stack[1].array &&
           m_stack[1].key == "rocprofiler-sdk-tool" && (depth == 2 || !m_stack[2].array);
  }

  // What the container starting now is, by where it sits.
  Record record_here() const {
    const size_t n = m_stack.size();
    if (n == 3 && process_path(3) && m_key == "metadata") return Record::metadata;
    if (n == 4 && process_path(3) && m_stack[3].array && m_stack[3].key == "agents")
      return Record::agent;
    if (n == 4 && process_path(3) && m_stack[3].array && m_stack[3].key == "kernel_symbols")
      return Record::symbol;
    if (n == 5 && process_path(3) && !m_stack[3].array && m_stack[3].key == "buffer_records" &&
        m_stack[4].array && m_stack[4].key == "kernel_dispatch")
      return Record::dispatch;
    if (n == 6 && process_path(3) && !m_stack[3].array && m_stack[3].key == "strings" &&
        !m_stack[4].array && m_stack[4].key == "correlation_id" && m_stack[5].array &&
        m_stack[5].key == "external")
      return Record::rename;
    return Record::none;
  }

  bool start(bool array) {
    begin_child();
    Frame f;
    f.array = array;
    f.key = in_array() ? std::string() : m_key;
    if (m_record != Record::none) {
      f.collect = top().collect && !top().array && !array;
      f.prefix = top().prefix + m_key + ".";
    } else if (Record r = array ? Record::none : record_here(); r != Record::none) {
      m_record = r;
      m_record_depth = m_stack.size();
      m_record_index = top().children - 1;
      m_record_offset = m_src.offset() - 1;
      m_record_line = m_src.line();
      m_fields = Fields{};
      f.collect = true;
    } else if (!array && m_stack.size() == 2 && process_path(2)) {
      ++m_processes;
    }
    m_stack.push_back(std::move(f));
    return true;
  }

  bool end() {
    const size_t depth = m_stack.size() - 1;
    const Frame f = std::move(m_stack.back());
    m_stack.pop_back();
    if (m_record != Record::none && depth == m_record_depth) {
      finish_record();
      m_record = Record::none;
    } else if (depth == 3 && process_path(3)) {
      if (f.key == "agents" && f.array) m_have_agents = true;
      if (f.key == "kernel_symbols" && f.array) m_have_symbols = true;
      if (f.key == "strings" && !f.array) m_have_strings = true;
    } else if (depth == 2 && !f.array && process_path(2)) {
      end_process();
    }
    return true;
  }

  std::string where() const {
    static const char* const names[] = {"",
                                        "metadata",
                                        "agents",
                                        "kernel_symbols",
                                        "buffer_records.kernel_dispatch",
                                        "strings.correlation_id.external"};
    std::string w = "rocprofiler-sdk-tool[" + std::to_string(m_processes - 1) + "]." +
                    names[static_cast<int>(m_record)];
    if (m_record != Record::metadata) w += "[" + std::to_string(m_record_index) + "]";
    return w + " (byte " + std::to_string(m_record_offset) + ")";
  }

  void reject(const std::string& reason, int64_t line) {
    if (m_options.strict)
      throw Error::input(reason, k_hint, SourcePos{m_path, static_cast<int>(line), 0});
    if (m_first_reject.empty()) m_first_reject = reason;
    m_sink.bad_row(store::BadRow{m_path, line, reason});
    ++m_result.rows_rejected;
    ++m_rejected;
  }

  void finish_record() {
    switch (m_record) {
      case Record::metadata:
        if (auto pid = m_fields.maybe("pid")) m_pid = pid;
        m_have_metadata = true;
        break;
      case Record::agent:
        agent();
        break;
      case Record::symbol:
        symbol();
        break;
      case Record::dispatch:
        dispatch();
        break;
      case Record::rename:
        // --kernel-rename: external correlation id -> the roctx range's text, a std::map that
        // cereal writes as [{"key": id, "value": text}, ...] (USCiLab/cereal
        // include/cereal/types/concepts/pair_associative_container.hpp; read so by
        // ROCm/rocm-systems projects/rocprofiler-sdk/tests/rocprofv3/kernel-rename/validate.py).
        if (auto id = m_fields.maybe("key"); id && m_fields.values.count("value"))
          m_renames[*id] = m_fields.text("value", true);
        break;
      case Record::none:
        break;
    }
  }

  // rows_read counts the dispatch records, the file's rows; an agent record counts only when it
  // is rejected, so that rows_rejected stays part of rows_read.
  void agent() {
    store::AgentRow a;
    const int64_t handle = m_fields.need("id.handle");
    a.node_id = m_fields.need("node_id");
    a.logical_node_id = m_fields.get("logical_node_id", a.node_id);
    // rocprofiler_agent_type_t (include/rocprofiler-sdk/agent.h): 1 CPU, 2 GPU; the CSV writer
    // says "UNK" for anything else.
    const int64_t type = m_fields.need("type");
    a.type = type == 1 ? "CPU" : type == 2 ? "GPU" : "UNK";
    a.name = m_fields.text("name", true);
    a.product_name = m_fields.text("product_name", false);
    a.cu_count = m_fields.get("cu_count", 0);
    a.simd_count = m_fields.get("simd_count", 0);
    a.wave_front_size = m_fields.get("wave_front_size", 0);
    a.max_waves_per_simd = m_fields.get("max_waves_per_simd", 0);
    a.num_xcc = m_fields.get("num_xcc", 0);
    a.max_engine_clk_mhz = m_fields.get("max_engine_clk_fcompute", 0);
    if (!m_fields.problem.empty()) {
      ++m_result.rows_read;
      return reject(where() + ": " + m_fields.problem, m_record_line);
    }
    m_agents[handle] = a.logical_node_id;
    m_sink.agent(a);
  }

  void symbol() {
    Symbol s;
    const int64_t id = m_fields.need("kernel_id");
    for (const char* name : {"formatted_kernel_name", "demangled_kernel_name", "kernel_name"}) {
      if (m_fields.values.count(name)) {
        s.name = m_fields.text(name, true);
        break;
      }
    }
    constexpr int64_t lds_block = 512;
    const int64_t lds = m_fields.get("group_segment_size", 0);
    s.lds = (lds + lds_block - 1) / lds_block * lds_block;
    s.vgpr = m_fields.maybe("arch_vgpr_count");
    s.agpr = m_fields.maybe("accum_vgpr_count");
    s.sgpr = m_fields.maybe("sgpr_count");
    // A symbol kprof cannot use is not a row of its own: the dispatches that name its kernel_id
    // are rejected with the reason.
    if (m_fields.problem.empty())
      m_symbols[id] = std::move(s);
    else
      m_bad_symbols[id] = where() + ": " + m_fields.problem;
  }

  void dispatch() {
    ++m_result.rows_read;
    Pending p;
    store::DispatchRow& d = p.row;
    Fields& f = m_fields;
    d.dispatch_id = f.need("dispatch_info.dispatch_id");
    d.kernel_id = f.need("dispatch_info.kernel_id");
    p.agent_handle = f.need("dispatch_info.agent_id.handle");
    d.start_ns = f.need("start_timestamp");
    d.end_ns = f.need("end_timestamp");
    d.queue_id = f.get("dispatch_info.queue_id.handle", 0);
    d.stream_id = f.maybe("stream_id.handle");
    d.tid = f.get("thread_id", 0);
    d.correlation_id = f.get("correlation_id.internal", 0);
    p.external_id = f.get("correlation_id.external", 0);
    d.scratch = f.get("dispatch_info.private_segment_size", 0);
    d.wg_x = f.need("dispatch_info.workgroup_size.x");
    d.wg_y = f.get("dispatch_info.workgroup_size.y", 1);
    d.wg_z = f.get("dispatch_info.workgroup_size.z", 1);
    d.grid_x = f.need("dispatch_info.grid_size.x");
    d.grid_y = f.get("dispatch_info.grid_size.y", 1);
    d.grid_z = f.get("dispatch_info.grid_size.z", 1);
    d.dims_known = true;
    p.where = where();
    p.line = m_record_line;
    if (!f.problem.empty()) return reject(p.where + ": " + f.problem, p.line);
    if (m_have_metadata && m_have_strings && m_have_agents && m_have_symbols)
      deliver(p);
    else
      m_pending.push_back(std::move(p));
  }

  void deliver(Pending& p) {
    store::DispatchRow& d = p.row;
    auto agent = m_agents.find(p.agent_handle);
    if (agent == m_agents.end()) {
      return reject(p.where + ": dispatch " + std::to_string(d.dispatch_id) + ": agent handle " +
                        std::to_string(p.agent_handle) + " is none of the process's agents",
                    p.line);
    }
    auto sym = m_symbols.find(d.kernel_id);
    if (sym == m_symbols.end()) {
      auto bad = m_bad_symbols.find(d.kernel_id);
      return reject(p.where + ": dispatch " + std::to_string(d.dispatch_id) +
                        (bad == m_bad_symbols.end()
                             ? ": no kernel symbol for kernel_id " + std::to_string(d.kernel_id)
                             : ": its kernel symbol is unusable: " + bad->second),
                    p.line);
    }
    d.agent = agent->second;
    // The CSV writer's name: the --kernel-rename text of the dispatch's external correlation id
    // when there is one, else the symbol's.
    auto renamed = p.external_id > 0 ? m_renames.find(p.external_id) : m_renames.end();
    d.kernel_name = renamed != m_renames.end() ? renamed->second : sym->second.name;
    d.lds = sym->second.lds;
    d.vgpr = sym->second.vgpr;
    d.agpr = sym->second.agpr;
    d.sgpr = sym->second.sgpr;
    d.pid = m_pid ? *m_pid : m_options.pid.value_or(0);
    m_sink.dispatch(d);
    ++m_result.dispatches;
  }

  // A process's records are its own: the next one has other agents, symbols and pid.
  void end_process() {
    for (auto& p : m_pending) deliver(p);
    m_pending.clear();
    m_agents.clear();
    m_symbols.clear();
    m_bad_symbols.clear();
    m_renames.clear();
    m_pid.reset();
    m_have_metadata = m_have_strings = m_have_agents = m_have_symbols = false;
  }

  const std::string& m_path;
  store::RowSink& m_sink;
  const ReadOptions& m_options;
  FileResult& m_result;
  ByteSource& m_src;

  std::vector<Frame> m_stack;
  std::string m_key;
  Record m_record = Record::none;
  size_t m_record_depth = 0;
  int64_t m_record_index = 0, m_record_offset = 0, m_record_line = 0;
  Fields m_fields;

  int64_t m_processes = 0;
  std::optional<int64_t> m_pid;
  std::map<int64_t, int64_t> m_agents;           // handle -> logical_node_id
  std::map<int64_t, Symbol> m_symbols;           // kernel_id -> symbol
  std::map<int64_t, std::string> m_bad_symbols;  // kernel_id -> what is wrong with its record
  std::map<int64_t, std::string> m_renames;      // external correlation id -> kernel name
  bool m_have_metadata = false, m_have_strings = false, m_have_agents = false,
       m_have_symbols = false;
  std::vector<Pending> m_pending;

  std::string m_error, m_first_reject;
  int64_t m_error_line = 0, m_error_offset = 0, m_rejected = 0;
};

}  // namespace

FileResult read_rocprof_json(const std::string& path, store::RowSink& sink,
                             const ReadOptions& options) {
  FileResult result;
  result.path = path;
  result.kind = "json";
  const kprof::InputStream f = kprof::open_input_stream(path, "capture file");
  sink.begin_file(path, "json");
  ByteSource src(f.get(), path, options.chunk_bytes);
  JsonRead read(path, sink, options, result, src);
  if (!Json::sax_parse(ByteIterator(&src), ByteIterator(), &read)) read.throw_parse_error();
  read.check_complete();
  sink.file_digest(src.size(), src.digest());
  sink.end_file(result.rows_read);
  return result;
}

}  // namespace kprof::ingest
