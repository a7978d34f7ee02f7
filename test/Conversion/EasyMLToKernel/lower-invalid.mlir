// RUN: easyml-opt %s --verify-diagnostics --easyml-lower-to-kernels

// Loops and branches of the step give new states and hidden values only:
// the evaluation of outputs and traces skips them, and what is computed
// from them, so a value computed in one may not reach an output or trace.
easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.external @Iion as "Iion" access <write>
  easyml.state @x kind <store> method <none>
  easyml.init {
    %0 = arith.constant 1.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %x = easyml.get @x : f64
    %zero = arith.constant 0.0 : f64
    %pos = arith.cmpf ogt, %x, %zero : f64
    %v = scf.if %pos -> (f64) {
      scf.yield %x : f64
    } else {
      scf.yield %zero : f64
    }
    %n = arith.addf %x, %v : f64
    // expected-error@+1 {{easyml-lower-to-kernels: a value computed in a region feeds 'easyml.output' (only new states and hidden values may)}}
    easyml.output @Iion, %n : f64
    easyml.next @x, %v : f64
  }
}
