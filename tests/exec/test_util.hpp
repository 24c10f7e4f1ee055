// Helpers shared by the exec tests: a fresh temp folder per test and small executable scripts.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>
#include <string>

#include "core/base/error.hpp"

namespace kprof::exec::testing {

class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("kprof-exec-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  const std::filesystem::path& path() const { return m_path; }
  std::filesystem::path operator/(const std::string& s) const { return m_path / s; }

 private:
  std::filesystem::path m_path;
};

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

inline std::filesystem::path write_script(const std::filesystem::path& p, const std::string& body) {
  write_file(p, "#!/bin/sh\n" + body);
  std::filesystem::permissions(p, std::filesystem::perms::owner_all |
                                      std::filesystem::perms::group_read |
                                      std::filesystem::perms::others_read);
  return p;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// What `f` throws as kprof::Error (every diagnostic's line), or "<no error>".
inline std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace kprof::exec::testing
