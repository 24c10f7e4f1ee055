// What the rocprofv3 JSON reader (json_reader.cpp) reads through and keeps: the file's bytes,
// hashed as they are read; one record's scalar fields by dotted path with the first thing wrong
// with them; the containers open around the parser; kernel symbols; dispatches waiting for them.
#pragma once

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/sha256.hpp"
#include "core/store/rows.hpp"

namespace kprof::ingest::json_input {

using Json = nlohmann::json;

// The file's bytes as the parser takes them, from a buffer of `chunk` bytes; each chunk is hashed
// (provenance) as it is read, so the file is read once.
class ByteSource {
 public:
  ByteSource(std::FILE* f, const std::string& path, size_t chunk)
      : m_f(f), m_path(path), m_buf(chunk > 0 ? chunk : size_t{1} << 20) {
    fill();
  }
  bool at_end() const { return m_pos >= m_len; }
  const char& current() const { return m_buf[m_pos]; }
  void advance() {
    if (m_buf[m_pos] == '\n') ++m_line;
    ++m_offset;
    if (++m_pos >= m_len) fill();
  }
  int64_t offset() const { return m_offset; }  // bytes the parser has taken
  int64_t line() const { return m_line; }      // 1-based line of the next byte
  int64_t size() const { return m_size; }
  std::string digest() { return m_hash.hex(); }

 private:
  void fill() {
    m_pos = 0;
    m_len = std::fread(m_buf.data(), 1, m_buf.size(), m_f);
    if (m_len < m_buf.size() && std::ferror(m_f)) {
      throw Error::runtime("read error: " + std::string(std::strerror(errno)), "",
                           SourcePos{m_path, static_cast<int>(m_line), 0});
    }
    m_hash.update(m_buf.data(), m_len);
    m_size += static_cast<int64_t>(m_len);
  }

  std::FILE* m_f;
  const std::string& m_path;
  std::vector<char> m_buf;
  size_t m_pos = 0, m_len = 0;
  int64_t m_offset = 0, m_line = 1, m_size = 0;
  Sha256 m_hash;
};

// One record's scalar fields by dotted path, and the first thing wrong with them.
class Fields {
 public:
  std::map<std::string, Json> values;
  std::string problem;

  int64_t need(const std::string& name) { return read(name).value_or(0); }
  int64_t get(const std::string& name, int64_t fallback) {
    return values.count(name) ? read(name).value_or(fallback) : fallback;
  }
  std::optional<int64_t> maybe(const std::string& name) {
    return values.count(name) ? read(name) : std::nullopt;
  }
  std::string text(const std::string& name, bool needed) {
    auto it = values.find(name);
    if (it != values.end() && it->second.is_string()) return it->second.get<std::string>();
    if (it != values.end()) note("field '" + name + "' is not a string: " + it->second.dump());
    if (it == values.end() && needed) note("no field '" + name + "'");
    return {};
  }

 private:
  std::optional<int64_t> read(const std::string& name) {
    auto it = values.find(name);
    if (it == values.end()) {
      note("no field '" + name + "'");
      return std::nullopt;
    }
    const Json& v = it->second;
    if (v.is_number_unsigned() &&
        v.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      note("field '" + name + "' is out of range: " + v.dump());
      return std::nullopt;
    }
    if (!v.is_number_integer()) {
      note("field '" + name + "' is not an integer: " + v.dump());
      return std::nullopt;
    }
    return v.get<int64_t>();
  }
  void note(const std::string& p) {
    if (problem.empty()) problem = p;
  }
};

// Where the parser is: one open container.
struct Frame {
  bool array = false;
  std::string key;       // the key whose value this container is ("" for an array element)
  int64_t children = 0;  // values begun in it so far
  bool collect = false;  // in a record and under no array: its scalars are the record's fields
  std::string prefix;    // its dotted path within the record ("dispatch_info.")
};

struct Symbol {
  std::string name;
  int64_t lds = 0;
  std::optional<int64_t> vgpr, agpr, sgpr;
};

// A dispatch read before its process's agents or symbols: delivered at the end of the process.
struct Pending {
  store::DispatchRow row;
  int64_t agent_handle = 0;
  int64_t external_id = 0;  // correlation_id.external: a --kernel-rename name's key
  std::string where;
  int64_t line = 0;
};

}  // namespace kprof::ingest::json_input
