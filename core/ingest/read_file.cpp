#include "core/ingest/read_file.hpp"

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/base/crash_point.hpp"
#include "core/base/error.hpp"
#include "core/base/input_file.hpp"
#include "core/base/sha256.hpp"
#include "core/ingest/csv_readers.hpp"
#include "core/ingest/json_reader.hpp"
#include "core/ingest/rocpd_reader.hpp"
#include "core/ingest/row_pipeline.hpp"

namespace kprof::ingest {

namespace {

FileResult read_csv_file(const std::string& path, Format format, store::RowSink& sink,
                         const ReadOptions& options) {
  // InputFile refuses what is not a regular file (a FIFO would block, /dev/zero never ends), also
  // when a named file was replaced by one after discovery.
  const kprof::InputStream f = kprof::open_input_stream(path, "capture file");
  auto reader = make_csv_reader(format, path, kind_for(format, path), sink, options);
  CsvTokenizer tok(path, *reader);
  // One read of the file: each chunk is hashed (provenance) and tokenized while it is in cache.
  Sha256 hash;
  int64_t size = 0;
  std::vector<char> buf(options.chunk_bytes > 0 ? options.chunk_bytes : size_t{1} << 20);
  for (;;) {
    size_t n = std::fread(buf.data(), 1, buf.size(), f.get());
    if (n > 0) {
      hash.update(buf.data(), n);
      size += static_cast<int64_t>(n);
      tok.feed(std::string_view(buf.data(), n));
    }
    crash_point("ingest.chunk_read");
    if (n < buf.size()) {
      if (std::ferror(f.get())) {
        throw Error::runtime("read error: " + std::string(std::strerror(errno)), "",
                             SourcePos{path, static_cast<int>(tok.lines()), 0});
      }
      break;
    }
  }
  tok.finish();
  sink.file_digest(size, hash.hex());
  reader->finish();
  return reader->result();
}

}  // namespace

std::string kind_for(Format format, const std::string& path) {
  if (format == Format::stats || format == Format::api_trace) return domain_from_name(path);
  return std::string(format_name(format));
}

FileResult read_file(const std::string& path, Format format, store::RowSink& sink,
                     const ReadOptions& options) {
  if (format == Format::rocpd) return read_rocpd(path, sink, options);
  if (format == Format::json) return read_rocprof_json(path, sink, options);
  if (!options.pipelined) return read_csv_file(path, format, sink, options);
  FileResult result;
  run_pipelined([&](store::RowSink& s) { result = read_csv_file(path, format, s, options); }, sink);
  return result;
}

FileResult read_file(const std::string& path, store::RowSink& sink, const ReadOptions& options) {
  Format format = sniff_format(path);
  if (options.pid) return read_file(path, format, sink, options);
  ReadOptions with_pid = options;
  with_pid.pid = pid_from_name(path);
  return read_file(path, format, sink, with_pid);
}

FileResult read_csv_chunks(Format format, const std::string& name, const std::string& kind,
                           const std::vector<std::string_view>& chunks, store::RowSink& sink,
                           const ReadOptions& options) {
  assert(format != Format::rocpd && format != Format::json);
  auto reader = make_csv_reader(format, name, kind, sink, options);
  CsvTokenizer tok(name, *reader);
  for (auto c : chunks) tok.feed(c);
  tok.finish();
  reader->finish();
  return reader->result();
}

}  // namespace kprof::ingest
