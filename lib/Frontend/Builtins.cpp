//===- Builtins.cpp - EasyML math functions -------------------------------===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#include "easyml/Frontend/Builtins.h"

#include <cmath>

using namespace easyml;

static const BuiltinInfo kBuiltins[] = {
    // The set openCARP is known to accept.
    {"exp", Builtin::Exp, 1, true},
    {"expm1", Builtin::Expm1, 1, true},
    {"log", Builtin::Log, 1, true},
    {"log10", Builtin::Log10, 1, true},
    {"pow", Builtin::Pow, 2, true},
    {"sqrt", Builtin::Sqrt, 1, true},
    {"fabs", Builtin::Fabs, 1, true},
    {"cos", Builtin::Cos, 1, true},
    {"acos", Builtin::Acos, 1, true},
    // Accepted here; openCARP may reject them.
    {"log2", Builtin::Log2, 1, false},
    {"log1p", Builtin::Log1p, 1, false},
    {"cbrt", Builtin::Cbrt, 1, false},
    {"abs", Builtin::Fabs, 1, false},
    {"sin", Builtin::Sin, 1, false},
    {"tan", Builtin::Tan, 1, false},
    {"asin", Builtin::Asin, 1, false},
    {"atan", Builtin::Atan, 1, false},
    {"atan2", Builtin::Atan2, 2, false},
    {"sinh", Builtin::Sinh, 1, false},
    {"cosh", Builtin::Cosh, 1, false},
    {"tanh", Builtin::Tanh, 1, false},
    {"floor", Builtin::Floor, 1, false},
    {"ceil", Builtin::Ceil, 1, false},
    {"round", Builtin::Round, 1, false},
    {"trunc", Builtin::Trunc, 1, false},
    {"erf", Builtin::Erf, 1, false},
    {"exp2", Builtin::Exp2, 1, false},
    {"fmin", Builtin::Fmin, 2, false},
    {"fmax", Builtin::Fmax, 2, false},
    {"min", Builtin::Fmin, 2, false},
    {"max", Builtin::Fmax, 2, false},
    {"square", Builtin::Square, 1, false},
    {"cube", Builtin::Cube, 1, false},
    {"heav", Builtin::Heav, 1, false},
};

const BuiltinInfo *easyml::lookupBuiltin(llvm::StringRef name) {
  for (const BuiltinInfo &b : kBuiltins)
    if (b.name == name)
      return &b;
  return nullptr;
}

llvm::ArrayRef<BuiltinInfo> easyml::allBuiltins() { return kBuiltins; }

double easyml::evaluateBuiltin(Builtin id, llvm::ArrayRef<double> a) {
  switch (id) {
  case Builtin::Exp: return std::exp(a[0]);
  case Builtin::Expm1: return std::expm1(a[0]);
  case Builtin::Log: return std::log(a[0]);
  case Builtin::Log10: return std::log10(a[0]);
  case Builtin::Log2: return std::log2(a[0]);
  case Builtin::Log1p: return std::log1p(a[0]);
  case Builtin::Pow: return std::pow(a[0], a[1]);
  case Builtin::Sqrt: return std::sqrt(a[0]);
  case Builtin::Cbrt: return std::cbrt(a[0]);
  case Builtin::Fabs: return std::fabs(a[0]);
  case Builtin::Sin: return std::sin(a[0]);
  case Builtin::Cos: return std::cos(a[0]);
  case Builtin::Tan: return std::tan(a[0]);
  case Builtin::Asin: return std::asin(a[0]);
  case Builtin::Acos: return std::acos(a[0]);
  case Builtin::Atan: return std::atan(a[0]);
  case Builtin::Atan2: return std::atan2(a[0], a[1]);
  case Builtin::Sinh: return std::sinh(a[0]);
  case Builtin::Cosh: return std::cosh(a[0]);
  case Builtin::Tanh: return std::tanh(a[0]);
  case Builtin::Floor: return std::floor(a[0]);
  case Builtin::Ceil: return std::ceil(a[0]);
  case Builtin::Round: return std::round(a[0]);
  case Builtin::Trunc: return std::trunc(a[0]);
  case Builtin::Erf: return std::erf(a[0]);
  case Builtin::Exp2: return std::exp2(a[0]);
  case Builtin::Fmin: return std::fmin(a[0], a[1]);
  case Builtin::Fmax: return std::fmax(a[0], a[1]);
  case Builtin::Square: return a[0] * a[0];
  case Builtin::Cube: return a[0] * a[0] * a[0];
  case Builtin::Heav: return a[0] >= 0 ? 1.0 : 0.0;
  }
  return 0;
}
