#include "core/ingest/row_pipeline.hpp"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace kprof::ingest {

namespace {

// A store of reusable rows of one type.
template <typename Row>
struct Slots {
  std::vector<Row> rows;
  size_t used = 0;
  void add(const Row& r) {
    if (used == rows.size())
      rows.push_back(r);
    else
      rows[used] = r;  // copy-assign: strings reuse their buffers
    ++used;
  }
};

enum class Tag : uint8_t {
  begin_file,
  end_file,
  version,
  digest,
  agent,
  dispatch,
  counter,
  stat,
  bad,
  copy,
  alloc,
  api
};

struct Batch {
  std::vector<Tag> tags;
  std::vector<std::string> strings;  // begin_file path and kind, profiler_version, file_digest
  std::vector<int64_t> ends;         // end_file rows_read, file_digest size
  Slots<store::AgentRow> agents;
  Slots<store::DispatchRow> dispatches;
  Slots<store::CounterRow> counters;
  Slots<store::KernelStatRow> stats;
  Slots<store::BadRow> bads;
  Slots<store::MemoryCopyRow> copies;
  Slots<store::MemoryAllocationRow> allocs;
  Slots<store::ApiCallRow> apis;

  void clear() {
    tags.clear();
    strings.clear();
    ends.clear();
    agents.used = dispatches.used = counters.used = stats.used = bads.used = copies.used =
        allocs.used = apis.used = 0;
  }

  void replay(store::RowSink& sink) const {
    size_t s = 0, e = 0, ag = 0, d = 0, c = 0, st = 0, b = 0, cp = 0, al = 0, ap = 0;
    for (Tag t : tags) {
      switch (t) {
        case Tag::begin_file:
          sink.begin_file(strings[s], strings[s + 1]);
          s += 2;
          break;
        case Tag::end_file:
          sink.end_file(ends[e++]);
          break;
        case Tag::version:
          sink.profiler_version(strings[s++]);
          break;
        case Tag::digest:
          sink.file_digest(ends[e++], strings[s++]);
          break;
        case Tag::agent:
          sink.agent(agents.rows[ag++]);
          break;
        case Tag::dispatch:
          sink.dispatch(dispatches.rows[d++]);
          break;
        case Tag::counter:
          sink.counter(counters.rows[c++]);
          break;
        case Tag::stat:
          sink.kernel_stat(stats.rows[st++]);
          break;
        case Tag::bad:
          sink.bad_row(bads.rows[b++]);
          break;
        case Tag::copy:
          sink.memory_copy(copies.rows[cp++]);
          break;
        case Tag::alloc:
          sink.memory_allocation(allocs.rows[al++]);
          break;
        case Tag::api:
          sink.api_call(apis.rows[ap++]);
          break;
      }
    }
  }
};

struct Cancelled {};

class Channel {
 public:
  static constexpr size_t k_batch_rows = 4096;
  static constexpr size_t k_batches = 3;

  Channel() {
    for (size_t i = 0; i < k_batches; ++i) m_free.push_back(std::make_unique<Batch>());
  }

  // Producer side.
  std::unique_ptr<Batch> take_free() {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return !m_free.empty() || m_cancelled; });
    if (m_cancelled) throw Cancelled{};
    auto b = std::move(m_free.front());
    m_free.pop_front();
    return b;
  }
  void push_full(std::unique_ptr<Batch> b) {
    std::lock_guard lock(m_mutex);
    m_full.push_back(std::move(b));
    m_cv.notify_all();
  }
  void close(std::exception_ptr error) {
    std::lock_guard lock(m_mutex);
    m_done = true;
    m_error = error;
    m_cv.notify_all();
  }

  // Consumer side: nullptr when the producer is done and everything was taken.
  std::unique_ptr<Batch> take_full() {
    std::unique_lock lock(m_mutex);
    m_cv.wait(lock, [&] { return !m_full.empty() || m_done; });
    if (m_error) return nullptr;  // the producer failed: drop what it left, report its error
    if (m_full.empty()) return nullptr;
    auto b = std::move(m_full.front());
    m_full.pop_front();
    return b;
  }
  void give_back(std::unique_ptr<Batch> b) {
    b->clear();
    std::lock_guard lock(m_mutex);
    m_free.push_back(std::move(b));
    m_cv.notify_all();
  }
  void cancel() {
    std::lock_guard lock(m_mutex);
    m_cancelled = true;
    m_cv.notify_all();
  }
  std::exception_ptr error() {
    std::lock_guard lock(m_mutex);
    return m_error;
  }

 private:
  std::mutex m_mutex;
  std::condition_variable m_cv;
  std::deque<std::unique_ptr<Batch>> m_free, m_full;
  bool m_done = false;
  bool m_cancelled = false;
  std::exception_ptr m_error;
};

class BatchingSink : public store::RowSink {
 public:
  explicit BatchingSink(Channel& ch) : m_ch(ch), m_batch(ch.take_free()) {}

  void begin_file(const std::string& path, const std::string& kind) override {
    m_batch->strings.push_back(path);
    m_batch->strings.push_back(kind);
    tag(Tag::begin_file);
  }
  void end_file(int64_t rows_read) override {
    m_batch->ends.push_back(rows_read);
    tag(Tag::end_file);
  }
  void profiler_version(const std::string& v) override {
    m_batch->strings.push_back(v);
    tag(Tag::version);
  }
  void file_digest(int64_t size_bytes, const std::string& sha256) override {
    m_batch->ends.push_back(size_bytes);
    m_batch->strings.push_back(sha256);
    tag(Tag::digest);
  }
  void agent(const store::AgentRow& r) override { add(m_batch->agents, r, Tag::agent); }
  void dispatch(const store::DispatchRow& r) override {
    add(m_batch->dispatches, r, Tag::dispatch);
  }
  void counter(const store::CounterRow& r) override { add(m_batch->counters, r, Tag::counter); }
  void kernel_stat(const store::KernelStatRow& r) override { add(m_batch->stats, r, Tag::stat); }
  void bad_row(const store::BadRow& r) override { add(m_batch->bads, r, Tag::bad); }
  void memory_copy(const store::MemoryCopyRow& r) override { add(m_batch->copies, r, Tag::copy); }
  void memory_allocation(const store::MemoryAllocationRow& r) override {
    add(m_batch->allocs, r, Tag::alloc);
  }
  void api_call(const store::ApiCallRow& r) override { add(m_batch->apis, r, Tag::api); }

  void flush() {
    if (m_batch && !m_batch->tags.empty()) m_ch.push_full(std::move(m_batch));
  }

 private:
  template <typename Row>
  void add(Slots<Row>& slots, const Row& r, Tag t) {
    slots.add(r);
    tag(t);
  }
  void tag(Tag t) {
    m_batch->tags.push_back(t);
    if (m_batch->tags.size() >= Channel::k_batch_rows) {
      m_ch.push_full(std::move(m_batch));
      m_batch = m_ch.take_free();
    }
  }

  Channel& m_ch;
  std::unique_ptr<Batch> m_batch;
};

}  // namespace

void run_pipelined(const std::function<void(store::RowSink&)>& produce, store::RowSink& consumer) {
  Channel ch;
  std::thread worker([&] {
    try {
      BatchingSink sink(ch);
      produce(sink);
      sink.flush();
      ch.close(nullptr);
    } catch (const Cancelled&) {
      ch.close(nullptr);
    } catch (...) {
      ch.close(std::current_exception());
    }
  });
  try {
    while (auto batch = ch.take_full()) {
      batch->replay(consumer);
      ch.give_back(std::move(batch));
    }
  } catch (...) {
    ch.cancel();
    worker.join();
    throw;
  }
  worker.join();
  if (auto e = ch.error()) std::rethrow_exception(e);
}

}  // namespace kprof::ingest
