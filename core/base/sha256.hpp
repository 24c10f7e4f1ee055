// SHA-256 (FIPS 180-4). Used to fingerprint runbooks (resume refuses a changed one) and ingested
// files (provenance). The compression function is OpenSSL's libcrypto (Debian's libssl-dev): its
// SHA-NI/AVX2 code hashes ~1.9 GB/s where a portable C++ loop managed ~0.2 GB/s, and ingest hashes
// every byte it reads (https://www.openssl.org/docs/man3.0/man3/EVP_DigestInit.html).
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace kprof {

class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(Sha256&&) noexcept;
  Sha256& operator=(Sha256&&) noexcept;
  void update(const void* data, size_t len);
  void update(std::string_view s) { update(s.data(), s.size()); }
  // Lower-case hex digest; the object must not be updated afterwards.
  std::string hex();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> m_ctx;
};

std::string sha256_hex(std::string_view data);
// Throws Error (runtime) naming the file when it cannot be read.
std::string sha256_file(const std::filesystem::path& path);

}  // namespace kprof
