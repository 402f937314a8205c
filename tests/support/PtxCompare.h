// Host reference of PTX's floating-point comparison operators (PTX ISA 9.7.6.1, setp/set): the
// ordered ones are false when an operand is NaN, the unordered ones (…u) true; num is true when
// neither is NaN, nan when either is. Shared by the lifting tests and the conformance suite.
#pragma once

#include <cmath>
#include <string>

namespace reptx::test {

template <typename T> bool ptxFloatCompare(const std::string &C, T A, T B) {
  bool Un = std::isnan(A) || std::isnan(B);
  if (C == "eq")
    return !Un && A == B;
  if (C == "ne")
    return !Un && A != B;
  if (C == "lt")
    return !Un && A < B;
  if (C == "le")
    return !Un && A <= B;
  if (C == "gt")
    return !Un && A > B;
  if (C == "ge")
    return !Un && A >= B;
  if (C == "equ")
    return Un || A == B;
  if (C == "neu")
    return Un || A != B;
  if (C == "ltu")
    return Un || A < B;
  if (C == "leu")
    return Un || A <= B;
  if (C == "gtu")
    return Un || A > B;
  if (C == "geu")
    return Un || A >= B;
  if (C == "num")
    return !Un;
  return Un; // nan
}

} // namespace reptx::test
