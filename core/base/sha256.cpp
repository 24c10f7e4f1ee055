#include "core/base/sha256.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <vector>

#include "core/base/error.hpp"

namespace kprof {

struct Sha256::Ctx {
  EVP_MD_CTX* md = EVP_MD_CTX_new();
  ~Ctx() { EVP_MD_CTX_free(md); }
};

namespace {

[[noreturn]] void crypto_failed(const char* what) {
  throw Error::runtime(std::string("libcrypto: ") + what + " failed",
                       "the OpenSSL library is broken or out of memory");
}

}  // namespace

Sha256::Sha256() : m_ctx(std::make_unique<Ctx>()) {
  if (!m_ctx->md || EVP_DigestInit_ex(m_ctx->md, EVP_sha256(), nullptr) != 1)
    crypto_failed("EVP_DigestInit_ex");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(const void* data, size_t len) {
  if (len > 0 && EVP_DigestUpdate(m_ctx->md, data, len) != 1) crypto_failed("EVP_DigestUpdate");
}

std::string Sha256::hex() {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(m_ctx->md, digest, &len) != 1) crypto_failed("EVP_DigestFinal_ex");
  static const char k_hex[] = "0123456789abcdef";
  std::string out(2 * len, '0');
  for (unsigned int i = 0; i < len; ++i) {
    out[2 * i] = k_hex[digest[i] >> 4];
    out[2 * i + 1] = k_hex[digest[i] & 15];
  }
  return out;
}

std::string sha256_hex(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.hex();
}

std::string sha256_file(const std::filesystem::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    throw Error::runtime("cannot read '" + path.string() + "'", "check the path and permissions");
  Sha256 h;
  std::vector<char> buf(size_t{1} << 20);
  size_t n = 0;
  while ((n = std::fread(buf.data(), 1, buf.size(), f.get())) > 0) h.update(buf.data(), n);
  if (std::ferror(f.get()))
    throw Error::runtime("read error in '" + path.string() + "'", "check the disk and the file");
  return h.hex();
}

}  // namespace kprof
