// RUN: easyml-opt %s --easyml-check-llvm-only --split-input-file --verify-diagnostics

// Anything left outside the LLVM dialect at the end of a pipeline is an
// error naming the operation.
llvm.func @f(%x: f64) -> f64 {
  // expected-error @+1 {{operation 'arith.addf' was not lowered to the LLVM dialect}}
  %y = arith.addf %x, %x : f64
  llvm.return %y : f64
}

// -----

llvm.func @g(%x: f64) -> f64 {
  %y = llvm.fadd %x, %x : f64
  llvm.return %y : f64
}
