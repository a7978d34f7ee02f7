// RUN: easyml-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(easyml.model(easyml-whole-cell))'

// expected-error@+1 {{easyml-whole-cell: model 'novm' has no Vm external: the whole-cell integrator needs a Vm that the model reads}}
easyml.model @novm {
  easyml.external @Iion as "Iion" access <write>
  easyml.init {
  }
  easyml.compute {
    %c = arith.constant 1.0 : f64
    easyml.output @Iion, %c : f64
  }
}

// -----

// expected-error@+1 {{easyml-whole-cell: model 'writes' writes Vm itself: the whole-cell integrator needs a Vm that the model reads}}
easyml.model @writes {
  easyml.external @V as "Vm" access <readwrite>
  easyml.external @Iion as "Iion" access <write>
  easyml.init {
  }
  easyml.compute {
    %v = easyml.get @V : f64
    easyml.output @Iion, %v : f64
    easyml.output @V, %v : f64
  }
}

// -----

// expected-error@+1 {{easyml-whole-cell: model 'noiion' computes no Iion: Vm's derivative is the stimulus minus Iion}}
easyml.model @noiion {
  easyml.external @V as "Vm" access <read>
  easyml.init {
  }
  easyml.compute {
    %v = easyml.get @V : f64
  }
}
