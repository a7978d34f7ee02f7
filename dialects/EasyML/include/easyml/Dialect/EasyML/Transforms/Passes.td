//===- Passes.td - easyml dialect passes -------------------*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_TD
#define EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def WholeCell : Pass<"easyml-whole-cell", "easyml::ModelOp"> {
  let summary = "integrate the whole cell, Vm included, as one adaptive system";
  let description = [{
    Prepares a model for per-cell adaptive time stepping. openCARP's scheme
    holds Vm during the model step and integrates it outside by forward
    Euler, so the step is bounded by the upstroke everywhere. This pass
    instead makes Vm a state of the model, `dVm/dt = (stimulus - Iion) *
    vm_free`, and puts every state with a derivative or a gate into one
    `cvode` group: `easyml-expand-integrators` then integrates each cell
    over `[t, t+dt]` with error-controlled ROS2 sub-steps of its own size,
    so `dt` becomes the grid of stimuli, samples and events rather than the
    accuracy step.

    - a new state (`Vm.cell`, or the first free name after it) of kind
      `diff`, method `cvode`, starting at the Vm external's initial value
      (0 when it has none: the simulator's Vm is what the kernel reads);
    - every read of the Vm external reads that state instead;
    - states updated by `.store()` keep their explicit update (once per
      step, from the values at its start);
    - the model gets the attribute `easyml.whole_cell_vm` naming the state:
      the kernels load it from the simulator's Vm at each step's start and
      write it back at the end, instead of adding the stimulus and
      subtracting `Iion * dt`.

    A model without a Vm external that it reads, or without an `Iion`
    output, is an error naming what is missing.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ResolveGates : Pass<"easyml-resolve-gates", "easyml::ModelOp"> {
  let summary = "turn gates integrated by non-gate methods into derivatives";
  let description = [{
    A Hodgkin-Huxley gate keeps its gate form only for the methods that use
    it (`rush_larsen`, `sundnes`). For every other method the gate update is
    rewritten as the derivative it stands for, and the state becomes a
    `diff` state:

    - `gate_inf_tau @X inf %i tau %t`  ->  `diff @X, (%i - X) / %t`
    - `gate_alpha_beta @X alpha %a beta %b`  ->  `diff @X, %a * (1 - X) - %b * X`
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ExpandPowers : Pass<"easyml-expand-powers", "easyml::ModelOp"> {
  let summary = "turn powers with small integer exponents into products";
  let description = [{
    Rewrites `math.powf %x, %c` where `%c` is a constant integer `n` with
    `1 <= |n| <= max-exponent` into multiplications by binary exponentiation
    (`x^3 = x*x*x`, `x^4 = (x*x)*(x*x)`, ...) and a division for a negative
    `n`. Model code is full of such powers (`pow(m, 3.0)`, `pow(Cai, 2.0)`:
    over a thousand in the reference corpus); a `pow` call costs tens of
    cycles, a product one. `x^2` is exact (as libm's correctly rounded
    `pow`); higher powers round once per product, at most 3.5 ulp for
    `n = 8`. Running before integrator expansion, the derivatives of the
    products are taken too, and every variant sees the same algebra.
  }];
  let options = [
    Option<"maxExponent", "max-exponent", "int64_t", "8",
           "largest |n| expanded">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ExpandIntegrators : Pass<"easyml-expand-integrators", "easyml::ModelOp"> {
  let summary = "expand every integration method into arithmetic";
  let description = [{
    Replaces each state's derivative or gate update by an `easyml.next` that
    computes its new value from the old state, with openCARP's semantics:
    every right-hand side is evaluated from the old state, the voltage is
    constant during the step, and each method is applied per state (`fe`,
    `rk2`, `rk4`, `rush_larsen`, `sundnes`) or per group (`markov_be`,
    `rosenbrock`, `cvode`).

    - `rush_larsen`: `X + (inf - X) * -expm1(-dt/tau)`, i.e. openCARP's
      `A + B*X` with `B = exp(-dt/tau)` and `A = -inf*expm1(-dt/tau)`; for a
      `diff` state the generalised form `X + f/J * expm1(J*dt)` with
      `J = df/dX` (forward Euler where `J` is 0).
    - `sundnes`: a half Rush-Larsen step, rates re-evaluated there at
      `t + dt/2`, then a full step with those rates.
    - `rk2`/`rk4`: explicit midpoint and classical Runge-Kutta, re-evaluating
      the right-hand sides of the states using the method; other states stay
      at their old values.
    - `markov_be`: backward Euler on the group, linearised at the start of
      the step: `(I - dt*J) dX = dt*f(X)`; exact for a chain whose rates are
      frozen at the step start.
    - `rosenbrock`: the L-stable two-stage ROS2 method on the group.
    - `cvode`: the group is integrated over `[t, t+dt]` by adaptive ROS2
      with an embedded first-order error estimate (relative and absolute
      tolerances below), sub-stepping inside the step. Each cell keeps the
      step size it last proposed in an `easyml.hidden` value, so the next
      time step starts from it rather than from `dt`. The iteration matrix
      `I - gamma*h*J` is factorised without pivoting (its eigenvalues have
      real parts >= 1 wherever the group is stable); a sub-step whose
      smallest pivot is below 1e-6 is rejected and retried shorter, which
      tends to the identity. `cvode-pivoting` restores partial pivoting.
      With `cvode-jacobian-age=N` (N > 0, without pivoting) each cell also
      keeps the factors of its last iteration matrix, the `gamma*h` they
      were made for (`cvode.gh.<group>`, 0: none) and their age in time
      steps (`cvode.age.<group>`) as hidden values (`cvode.lu.<group>.<k>`),
      and a sub-step reuses them instead of evaluating and factorising the
      Jacobian while its `gamma*h` is within 30% of theirs and they are
      younger than N steps; a sub-step that fails its error test drops
      them. ROS2 keeps its order with any matrix (a W-method), and the
      error test still bounds each sub-step.

      `cvode-method=rodas3` integrates cvode groups with RODAS3 (Sandu et
      al. 1997) instead: four stages, order 3, L-stable and stiffly
      accurate, with an embedded second-order error estimate, so the step
      size follows the cube root of the error rather than its square root
      (three right-hand sides, one Jacobian and one factorisation per
      sub-step). It is not a W-method: `cvode-jacobian-age` is ignored
      with it.

    Jacobians are derived from the IR by forward-mode differentiation; the
    linear systems are solved by Gaussian elimination unrolled at compile
    time, skipping structurally zero entries.

    Each cvode group's sub-step loop carries what it costs in storage,
    `easyml.stiff_cost = {states = n, jacobian_nonzeros = .., lu_nonzeros =
    .., live_across_stage2 = ..}`: the factors of the iteration matrix stay
    live from the first solve to the second, across the stage-2 right-hand
    side, with the group's states and first stage (LU non-zeros + 2n f64
    values; on a GPU thread, 255 32-bit registers hold at most 127). With
    RODAS3 they stay live across the last right-hand side with the states
    and three stages (LU non-zeros + 4n).
  }];
  let options = [
    Option<"cvodeRelTol", "cvode-rtol", "double", "1e-6",
           "relative tolerance of the adaptive integrator for cvode groups">,
    Option<"cvodeAbsTol", "cvode-atol", "double", "1e-9",
           "absolute tolerance of the adaptive integrator for cvode groups">,
    Option<"cvodeMaxSubsteps", "cvode-max-substeps", "int64_t", "5000",
           "most sub-steps of a cvode group within one time step">,
    Option<"cvodePivoting", "cvode-pivoting", "bool", "false",
           "factorise cvode iteration matrices with partial pivoting "
           "(default: without, a sub-step whose pivot is near zero being "
           "rejected and retried shorter)">,
    Option<"cvodeMethod", "cvode-method", "std::string", "\"ros2\"",
           "adaptive integrator of cvode groups: ros2 (order 2, first-order "
           "error estimate) or rodas3 (order 3, second-order estimate)">,
    Option<"cvodeJacobianAge", "cvode-jacobian-age", "int64_t", "0",
           "time steps a cvode group's factorised iteration matrix may be "
           "reused for, kept per cell (0: a new Jacobian at every sub-step; "
           "ignored with cvode-pivoting)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::scf::SCFDialect"];
}

def ReciprocalDivisors : Pass<"easyml-reciprocal-divisors",
                              "easyml::ModelOp"> {
  let summary = "divide by a cell-independent value as a product with its reciprocal";
  let description = [{
    In `easyml.compute`, rewrites `x / d` where `d` is the same for every
    cell (built from constants, parameters that are not `nodal`, flags and
    `easyml.dt` only) and `x` is not, as `x * (1 / d)`, with one reciprocal
    per divisor. Ionic models divide by parameters everywhere (`/ Cm`,
    `/ (R*T)`, `/ tau`); a vector division costs about ten times a
    product, and the reciprocal is loop-invariant, so the kernels compute it
    once per call. The result is within one rounding of the quotient (the
    reciprocal is rounded once, the product once). Running before the
    kernels are written, every variant sees the same algebra, so variants
    still agree bit for bit; `easyml-compile --exact-division` turns it
    off.
  }];
  let dependentDialects = ["mlir::arith::ArithDialect"];
}

def ExtractTables : Pass<"easyml-extract-tables", "easyml::ModelOp"> {
  let summary = "move table-only expressions into lookup tables";
  let description = [{
    For each `easyml.table` over a state or external `X`, finds the values
    of the compute region that depend on `X` and otherwise only on
    constants, non-nodal parameters, flags and `dt`, and that are used by
    the rest of the computation. Their computation moves into the table's
    `columns` region (one column each, named after the variable where it has
    a name) and the compute region reads them with one `easyml.lookup`.
    Tables over other variables are left for direct evaluation with a
    warning.
  }];
}

#endif // EASYML_DIALECT_EASYML_TRANSFORMS_PASSES_TD
