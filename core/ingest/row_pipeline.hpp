// Parsing and storing overlap: a producer (tokenizer + reader) runs on a worker thread and hands
// rows in bounded batches to the calling thread, which replays them into the real sink (SQLite
// writes stay on the thread that opened the transaction). Three batches circulate, so memory is
// flat in file size; each batch reuses its rows, so kernel-name strings keep their capacity.
#pragma once

#include <functional>

#include "core/store/rows.hpp"

namespace kprof::ingest {

// Runs `produce(sink)` on a worker thread with a batching sink and replays everything it emits
// into `consumer` on this thread, in order. An exception from either side stops both and is
// rethrown here (the producer's first, if both failed).
void run_pipelined(const std::function<void(store::RowSink&)>& produce, store::RowSink& consumer);

}  // namespace kprof::ingest
