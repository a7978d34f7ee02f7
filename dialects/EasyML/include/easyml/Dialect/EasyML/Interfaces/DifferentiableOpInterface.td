//===- DifferentiableOpInterface.td - forward-mode derivatives -*- tablegen -*-===//
//
// Part of the EasyML toolchain.
//
//===----------------------------------------------------------------------===//
//
// The derivative rule of an operation, for the forward-mode differentiation
// the stiff integrators build their Jacobians with. The rules of the arith
// and math operations a model's rates use are attached as external models
// (DifferentiableOpInterfaceImpl.cpp), so the differentiator is one loop
// over the operations and a new operation brings its own rule.
//
//===----------------------------------------------------------------------===//

#ifndef EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE
#define EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE

include "mlir/IR/OpBase.td"

def EasyML_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let description = [{
    An operation with one result whose derivative with respect to a set of
    seeds follows from its operands' derivatives. `differentiate` builds, at
    the builder's insertion point (just after the operation), the tangent of
    the result: one value per seed, null where the derivative is
    structurally zero. The operands' tangents come from the builder
    (`TangentBuilder::of`), which also gives the arithmetic that drops
    structural zeros. A result that is not a float (a comparison) carries no
    tangent and is not asked for one.

    Piecewise-constant operations (floor, conversions from integers,
    constants) return a zero tangent. An operation without this interface
    cannot be differentiated: the differentiator reports it.
  }];
  let cppNamespace = "::easyml";

  let methods = [
    InterfaceMethod<[{
        Builds the tangent of the operation's result from the tangents of
        its operands (`tangents.of(operand)`); returns failure, with a
        diagnostic on the operation, where no derivative exists.
      }],
      "::mlir::FailureOr<::easyml::Tangent>", "differentiate",
      (ins "::easyml::TangentBuilder &":$tangents)
    >,
  ];
}

#endif // EASYML_INTERFACES_DIFFERENTIABLEOPINTERFACE
