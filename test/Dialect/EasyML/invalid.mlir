// RUN: easyml-opt %s --split-input-file --verify-diagnostics

easyml.model @m {
  // expected-error@+1 {{expects lower bound 1.000000e+00 <= upper bound 0.000000e+00}}
  easyml.state @x kind <diff> method <fe> {lb = 1.0 : f64, ub = 0.0 : f64}
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects as many case values as case names, found 1 values for 2 names}}
  easyml.flag @f = 0.0 cases ["A", "B"] values [0.0]
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects distinct case names, 'A' appears twice}}
  easyml.flag @f = 0.0 cases ["A", "A"] values [0.0, 1.0]
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects lo < hi, got lo = 1.000000e+01 and hi = 1.000000e+00}}
  easyml.table "V" lo 10.0 hi 1.0 step 0.1
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects a positive step, got -1.000000e-01}}
  easyml.table "V" lo 0.0 hi 1.0 step -0.1
  easyml.init {}
  easyml.compute {}
}

// -----

// expected-error@+1 {{expects exactly one 'easyml.compute' region op, found 0}}
easyml.model @m {
  easyml.init {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects exactly one update of state "x", found 0}}
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    %0 = arith.constant 1.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects exactly one initial value for state "x", found 0}}
  easyml.state @x kind <diff> method <fe>
  easyml.init {}
  easyml.compute {
    %0 = arith.constant 1.0 : f64
    easyml.diff @x, %0 : f64
  }
}

// -----

easyml.model @m {
  easyml.state @x kind <inf_tau> method <rush_larsen>
  easyml.init {
    %0 = arith.constant 1.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %0 = arith.constant 1.0 : f64
    // expected-error@+1 {{updates state @x of kind 'inf_tau', expected kind 'diff'}}
    easyml.diff @x, %0 : f64
  }
}

// -----

easyml.model @m {
  easyml.init {}
  easyml.compute {
    // expected-error@+1 {{refers to undeclared variable @nope}}
    %0 = easyml.get @nope : f64
  }
}

// -----

easyml.model @m {
  easyml.external @V as "Vm" access <read>
  easyml.init {}
  easyml.compute {
    %0 = arith.constant 1.0 : f64
    // expected-error@+1 {{writes external @V, which the model declares read-only}}
    easyml.output @V, %0 : f64
  }
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects the model to write external "Iion", which it declares write-only}}
  easyml.external @Iion as "Iion" access <write>
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  easyml.external @Iion as "Iion" access <write>
  easyml.init {}
  easyml.compute {
    // expected-error@+1 {{reads external @Iion, which the model declares write-only}}
    %0 = easyml.get @Iion : f64
    easyml.output @Iion, %0 : f64
  }
}

// -----

easyml.model @m {
  easyml.state @x kind <diff> method <fe>
  easyml.init {
    // expected-error@+1 {{in 'easyml.init' may read only parameters and flags, but @x is a 'easyml.state'}}
    %0 = easyml.get @x : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %0 = arith.constant 1.0 : f64
    easyml.diff @x, %0 : f64
  }
}

// -----

easyml.model @m {
  easyml.init {}
  easyml.compute {}
}
// expected-error@+1 {{'easyml.state' op expects parent op 'easyml.model'}}
easyml.state @x kind <diff> method <fe>

// -----

easyml.model @m {
  easyml.init {
    // expected-error@+1 {{'easyml.time' op expects parent op 'easyml.compute'}}
    %t = easyml.time : f64
  }
  easyml.compute {}
}

// -----

// Hidden values belong to expanded integrators.
easyml.model @m {
  // expected-error@+1 {{expects a model with integrators expanded}}
  easyml.hidden @h init 0.0
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m attributes {easyml.integrators_expanded} {
  // expected-error@+1 {{expects exactly one update of hidden value "h", found 0}}
  easyml.hidden @h init 0.0
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.hidden @h init 0.0
  easyml.init {
    // expected-error@+1 {{in 'easyml.init' may read only parameters and flags, but @h is a 'easyml.hidden'}}
    %0 = easyml.get @h : f64
  }
  easyml.compute {
    %0 = easyml.get @h : f64
    easyml.next @h, %0 : f64
  }
}

// -----

// In-place hidden values are read and written with hidden_load/store.
easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.hidden @h init 0.0 {in_place}
  easyml.init {}
  easyml.compute {
    // expected-error@+1 {{reads in-place hidden value @h (read it with 'easyml.hidden_load')}}
    %0 = easyml.get @h : f64
  }
}

// -----

easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.hidden @h init 0.0 {in_place}
  easyml.init {}
  easyml.compute {
    %0 = easyml.hidden_load @h : f64
    // expected-error@+1 {{updates in-place hidden value @h (write it with 'easyml.hidden_store')}}
    easyml.next @h, %0 : f64
  }
}

// -----

easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.hidden @h init 0.0
  easyml.init {}
  easyml.compute {
    // expected-error@+1 {{expects an in-place hidden value, got @h}}
    %0 = easyml.hidden_load @h : f64
    easyml.next @h, %0 : f64
  }
}

// -----

easyml.model @m attributes {easyml.integrators_expanded} {
  easyml.state @x kind <store> method <none>
  easyml.init {
    %0 = arith.constant 0.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %0 = arith.constant 0.0 : f64
    // expected-error@+1 {{expects an in-place hidden value, got @x}}
    easyml.hidden_store @x, %0 : f64
    easyml.next @x, %0 : f64
  }
}

// -----

// expected-error@+1 {{expects to be inside 'easyml.compute'}}
%0 = easyml.hidden_load @h : f64

// -----

easyml.model @m {
  easyml.param @a = 1.0
  // expected-error@+1 {{is defined in terms of itself (a cycle of derived parameters)}}
  easyml.param @b = 1.0 derived {
    %c = easyml.get @c : f64
    easyml.yield %c : f64
  }
  easyml.param @c = 1.0 derived {
    %b = easyml.get @b : f64
    easyml.yield %b : f64
  }
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{reads itself in its definition}}
  easyml.param @b = 1.0 derived {
    %b = easyml.get @b : f64
    easyml.yield %b : f64
  }
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  easyml.state @x kind <store> method <none>
  easyml.param @b = 1.0 derived {
    // expected-error@+1 {{in 'easyml.param' may read only parameters and flags, but @x is a 'easyml.state'}}
    %x = easyml.get @x : f64
    easyml.yield %x : f64
  }
  easyml.init {
    %0 = arith.constant 0.0 : f64
    easyml.init_value @x, %0 : f64
  }
  easyml.compute {
    %0 = arith.constant 0.0 : f64
    easyml.next @x, %0 : f64
  }
}

// -----

easyml.model @m {
  // expected-error@+1 {{has a formula but no 'derived' region}}
  easyml.param @b = 1.0 {formula = "a * 2"}
  easyml.init {}
  easyml.compute {}
}

// -----

easyml.model @m {
  // expected-error@+1 {{expects its 'derived' region to end with 'easyml.yield' of one value}}
  easyml.param @b = 1.0 derived {
    %0 = arith.constant 0.0 : f64
    easyml.yield %0, %0 : f64, f64
  }
  easyml.init {}
  easyml.compute {}
}
