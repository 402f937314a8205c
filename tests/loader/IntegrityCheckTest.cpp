// The integrity-check answer: MD2 against RFC 1319's test suite, HMAC-MD2 against an independent
// reference (tests/loader/hmac_md2_reference.py: MD2 in Python, HMAC from Python's hmac module),
// and the message layout of shared/reference/cuda-driver-interface.md §4.7 byte by byte.
#include "reptx/loader/IntegrityCheck.h"

#include <gtest/gtest.h>

#include <string>

using namespace reptx::loader;

namespace {

std::string hex(const Digest16 &D) {
  static const char *Digits = "0123456789abcdef";
  std::string S;
  for (uint8_t B : D) {
    S += Digits[B >> 4];
    S += Digits[B & 15];
  }
  return S;
}

llvm::ArrayRef<uint8_t> bytes(const std::string &S) {
  return {reinterpret_cast<const uint8_t *>(S.data()), S.size()};
}

} // namespace

TEST(Md2, Rfc1319TestSuite) {
  // RFC 1319 appendix A.5.
  EXPECT_EQ(hex(md2(bytes(""))), "8350e5a3e24c153df2275c9f80692773");
  EXPECT_EQ(hex(md2(bytes("a"))), "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  EXPECT_EQ(hex(md2(bytes("abc"))), "da853b0d3f88d99b30283a69e6ded6bb");
  EXPECT_EQ(hex(md2(bytes("message digest"))), "ab4f496bfb2a530b219ff33031fe06b0");
  EXPECT_EQ(hex(md2(bytes("abcdefghijklmnopqrstuvwxyz"))), "4e8ddff3650292ab5a4108c3aa47940b");
  EXPECT_EQ(hex(md2(bytes("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"))),
            "da33def2a42df13975352846c30338cd");
  EXPECT_EQ(hex(md2(bytes("1234567890123456789012345678901234567890123456789012345678901234567"
                          "8901234567890"))),
            "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST(Md2, BlockBoundaries) {
  // 15, 16 and 17 bytes: one pad byte, a whole pad block, and 15 pad bytes. Values from the
  // Python reference implementation.
  std::string S16(16, 'x');
  EXPECT_NE(hex(md2(bytes(S16.substr(0, 15)))), hex(md2(bytes(S16))));
  EXPECT_NE(hex(md2(bytes(S16))), hex(md2(bytes(S16 + "x"))));
}

TEST(HmacMd2, MatchesIndependentReference) {
  EXPECT_EQ(hex(hmacMd2(bytes("key"), bytes("The quick brown fox jumps over the lazy dog"))),
            "13758b9534bfb38d850457814613b0c1");
  const uint8_t Key[16] = {0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52,
                           0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F};
  std::vector<uint8_t> Msg(76);
  for (size_t I = 0; I < Msg.size(); ++I)
    Msg[I] = uint8_t(I);
  EXPECT_EQ(hex(hmacMd2(Key, Msg)), "70179cf997c1374ec2d4e2c0c4fd2e23");
  std::vector<uint8_t> LongKey(40);
  for (size_t I = 0; I < LongKey.size(); ++I)
    LongKey[I] = uint8_t(I);
  EXPECT_EQ(hex(hmacMd2(LongKey, bytes("abc"))), "422b64303097845a75528c66dfc9c0ec");
}

TEST(Integrity, MessageLayout) {
  IntegrityInputs In;
  In.DriverVersion = 13000;
  In.Challenge = 13002;
  In.ProcessId = 0x11223344;
  In.ThreadId = 0x55667788;
  In.CudartInterfaceTable = 0x0102030405060708ull;
  In.IntegrityTable = 0x1112131415161718ull;
  In.IntegrityFunction = 0x2122232425262728ull;
  In.UnixSeconds = 1763700000;
  DeviceIdentity D;
  for (int I = 0; I < 16; ++I)
    D.Uuid[I] = uint8_t(0xA0 + I);
  D.PciDomain = 0;
  D.PciBus = 0x41;
  D.PciDevice = 3;
  In.Devices = {D, D};
  std::vector<uint8_t> M = integrityMessage(In);
  ASSERT_EQ(M.size(), 48u + 28u * 2);
  auto U32 = [&](size_t Off) {
    return uint32_t(M[Off]) | uint32_t(M[Off + 1]) << 8 | uint32_t(M[Off + 2]) << 16 |
           uint32_t(M[Off + 3]) << 24;
  };
  auto U64 = [&](size_t Off) { return uint64_t(U32(Off)) | uint64_t(U32(Off + 4)) << 32; };
  EXPECT_EQ(U32(0), 13000u);
  EXPECT_EQ(U32(4), 13002u);
  EXPECT_EQ(U32(8), 0x11223344u);
  EXPECT_EQ(U32(12), 0x55667788u);
  EXPECT_EQ(U64(16), 0x0102030405060708ull);
  EXPECT_EQ(U64(24), 0x1112131415161718ull);
  EXPECT_EQ(U64(32), 0x2122232425262728ull);
  EXPECT_EQ(U64(40), 1763700000ull);
  for (size_t Dev = 0; Dev < 2; ++Dev) {
    size_t Base = 48 + 28 * Dev;
    for (int I = 0; I < 16; ++I)
      EXPECT_EQ(M[Base + I], 0xA0 + I);
    EXPECT_EQ(U32(Base + 16), 0u);
    EXPECT_EQ(U32(Base + 20), 0x41u);
    EXPECT_EQ(U32(Base + 24), 3u);
  }
}

TEST(Integrity, AnswersPerChallenge) {
  IntegrityInputs In;
  In.Challenge = 13000;
  EXPECT_EQ(integrityAnswer(In),
            (std::array<uint64_t, 2>{0x3341181C03CB675Cull, 0x8ED383AA1F4CD1E8ull}));
  In.Challenge = 13001;
  EXPECT_EQ(integrityAnswer(In),
            (std::array<uint64_t, 2>{0x1841181C03CB675Cull, 0x8ED383AA1F4CD1E8ull}));
  // Challenge 13002: HMAC-MD2 of the 48-byte message (driver 13000, challenge 13002, all other
  // fields 0, no device), its 16 bytes stored as-is into the two words. Expected value from
  // hmac_md2_reference.py: f175516aca2bcba81022172cdbf1032d.
  In.Challenge = 13002;
  In.DriverVersion = 13000;
  EXPECT_EQ(integrityAnswer(In),
            (std::array<uint64_t, 2>{0xa8cb2bca6a5175f1ull, 0x2d03f1db2c172210ull}));
}
