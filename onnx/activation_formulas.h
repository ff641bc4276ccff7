#ifndef SWITCHYARD_ONNX_ACTIVATION_FORMULAS_H_
#define SWITCHYARD_ONNX_ACTIVATION_FORMULAS_H_

// Activations without a Switchyard op of their own, as a few ops there are,
// on one value: the ONNX ops of those names (onnx/convert_composite.cc) and
// the gate activations of RNN, GRU and LSTM (onnx/convert_recurrent.cc)
// both build them here. Each formula is ONNX's definition.
//
//   SY_ASSIGN_OR_RETURN(Val y, SoftplusOf(ctx, ctx.In(0)));

#include "absl/status/statusor.h"
#include "onnx/node_context.h"

namespace switchyard {
namespace onnx_import {

// alpha * (exp(min(x, 0) / beta) - 1): the ELU family's negative part
// (beta is 1 but for CELU).
absl::StatusOr<Val> ExpMinusOne(NodeContext& ctx, Val x, double alpha, double beta);

// Elu: relu(x) + alpha * (exp(min(x, 0)) - 1).
absl::StatusOr<Val> EluOf(NodeContext& ctx, Val x, double alpha);

// Softplus: log(1 + exp(x)), written relu(x) + log(1 + exp(-|x|)) so that a
// large x does not overflow exp.
absl::StatusOr<Val> SoftplusOf(NodeContext& ctx, Val x);

// Softsign: x / (1 + |x|).
absl::StatusOr<Val> SoftsignOf(NodeContext& ctx, Val x);

// ThresholdedRelu: x where x > alpha, else 0.
absl::StatusOr<Val> ThresholdedReluOf(NodeContext& ctx, Val x, double alpha);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_ACTIVATION_FORMULAS_H_
