// SHA-256 (FIPS 180-4). Used to fingerprint runbooks (resume refuses a changed one) and ingested
// files (provenance). Written here because Debian's choices (OpenSSL, nettle) are a large
// dependency for 80 lines.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace kprof {

class Sha256 {
 public:
  Sha256();
  void update(const void* data, size_t len);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Lower-case hex digest; the object must not be updated afterwards.
  std::string hex();

 private:
  void block(const uint8_t* p);
  std::array<uint32_t, 8> m_h;
  std::array<uint8_t, 64> m_buf{};
  size_t m_buf_len = 0;
  uint64_t m_total = 0;
};

std::string sha256_hex(std::string_view data);
// Throws Error (runtime) naming the file when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace kprof
