//===- Builtins.h - EasyML math functions ---------------------*- C++ -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_FRONTEND_BUILTINS_H
#define EASYML_FRONTEND_BUILTINS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <vector>

namespace easyml {

enum class Builtin {
  Exp, Expm1, Log, Log10, Log2, Log1p, Pow, Sqrt, Cbrt, Fabs,
  Sin, Cos, Tan, Asin, Acos, Atan, Atan2, Sinh, Cosh, Tanh,
  Floor, Ceil, Round, Trunc, Erf, Exp2, Fmin, Fmax, Square, Cube, Heav,
};

struct BuiltinInfo {
  llvm::StringRef name;
  Builtin id;
  unsigned arity;
  /// Known to be accepted by openCARP's limpet_fe.
  bool confirmed;
};

/// The function called `name`, or null.
const BuiltinInfo *lookupBuiltin(llvm::StringRef name);

/// Every function, for suggestions and documentation.
llvm::ArrayRef<BuiltinInfo> allBuiltins();

/// Evaluates a builtin in double precision (as libm does).
double evaluateBuiltin(Builtin id, llvm::ArrayRef<double> args);

} // namespace easyml

#endif // EASYML_FRONTEND_BUILTINS_H
