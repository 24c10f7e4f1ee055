// The input shape the csv_db and merge targets share: one format byte ('c' a counter collection,
// anything else a kernel trace), an optional newline, then the bytes of that rocprofv3 file,
// written as the one file of a capture folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <string_view>

namespace kprof::fuzz {

// Writes `input` (not empty) as `folder`/host/1_<format>.csv.
inline void write_capture(std::string_view input, const std::filesystem::path& folder) {
  const char* name = input.front() == 'c' ? "1_counter_collection.csv" : "1_kernel_trace.csv";
  input.remove_prefix(1);
  if (!input.empty() && input.front() == '\n') input.remove_prefix(1);
  std::filesystem::create_directories(folder / "host");
  std::ofstream(folder / "host" / name, std::ios::binary)
      .write(input.data(), static_cast<std::streamsize>(input.size()));
}

}  // namespace kprof::fuzz
