// RUN: easyml-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(easyml.model(easyml-expand-integrators))'

// An implicit group whose right-hand side uses an operation with no
// derivative rule is reported on that operation.
easyml.model @nodiff {
  easyml.state @x kind <diff> method <markov_be> {group = 0 : i32}
  easyml.init {
    %c = arith.constant 1.0 : f64
    easyml.init_value @x, %c : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    // expected-error @+1 {{'math.fma' op cannot be differentiated}}
    %f = math.fma %x, %x, %x : f64
    easyml.diff @x, %f : f64
  }
}
