//===- VectorMath.h - how cpu-simd computes vector math -------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The choices of easyml-convert-math-to-veclib, which the compile pipeline
// and easyml-compile pass on: the library transcendental functions on
// vectors call and the instruction set of its variants.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_CONVERSION_MATHTOVECTORLIBRARY_VECTORMATH_H
#define EASYML_CONVERSION_MATHTOVECTORLIBRARY_VECTORMATH_H

#include "easyml/Support/EnumOption.h"

namespace easyml {

/// What vector transcendental functions call.
enum class VectorMath {
  /// glibc's vector functions, where the instruction set has them.
  Libmvec,
  /// libm per lane: results bit-identical to the scalar baseline.
  Scalar,
};

/// The instruction set of the libmvec variants called: the x86-64 vector
/// function ABI's letter and native width.
enum class VectorIsa { Avx512, Avx2, Sse2, None };

/// The spellings of options over VectorMath.
inline llvm::cl::ValuesClass vectorMathValues() {
  return llvm::cl::values(
      clEnumValN(VectorMath::Libmvec, "libmvec", "glibc's vector functions"),
      clEnumValN(VectorMath::Scalar, "scalar",
                 "libm per lane, bit-identical to baseline"));
}

/// The spellings of options over VectorIsa.
inline llvm::cl::ValuesClass vectorIsaValues() {
  return llvm::cl::values(
      clEnumValN(VectorIsa::Avx512, "avx512", "AVX-512: 8 doubles"),
      clEnumValN(VectorIsa::Avx2, "avx2", "AVX2: 4 doubles"),
      clEnumValN(VectorIsa::Sse2, "sse2", "SSE2: 2 doubles"),
      clEnumValN(VectorIsa::None, "none", "no libmvec"));
}

} // namespace easyml

EASYML_ENUM_OPTION_PARSER(easyml::VectorMath);
EASYML_ENUM_OPTION_PARSER(easyml::VectorIsa);

#endif // EASYML_CONVERSION_MATHTOVECTORLIBRARY_VECTORMATH_H
