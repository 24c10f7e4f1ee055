#include "core/base/sha256.hpp"

#include <gtest/gtest.h>

namespace kprof {

// Test vectors from FIPS 180-4 examples (NIST CSRC "SHA256.pdf").
TEST(Sha256Test, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256Test, IncrementalEqualsOneShot) {
  std::string data(1000, 'a');
  Sha256 h;
  for (size_t i = 0; i < data.size(); i += 7) h.update(std::string_view(data).substr(i, 7));
  EXPECT_EQ(h.hex(), sha256_hex(data));
}

}  // namespace kprof
