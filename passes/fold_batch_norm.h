#ifndef SWITCHYARD_PASSES_FOLD_BATCH_NORM_H_
#define SWITCHYARD_PASSES_FOLD_BATCH_NORM_H_

#include <string>

#include "absl/status/statusor.h"
#include "core/compile.h"
#include "core/graph.h"
#include "core/pass.h"

namespace switchyard {

// Folds an inference batch_norm into the conv2d that feeds it, as PyTorch's
// torch.fx fuse_conv_bn_eval: with s = weight / sqrt(running_var + epsilon)
// per output channel c,
//   W'[c] = W[c] * s[c],  b'[c] = (b[c] - running_mean[c]) * s[c] + bias[c]
// computed in double on the host and stored in the conv weight's dtype as
// new constants on the conv weight's device; the batch_norm node goes, and
// its readers read the conv's output.
//
//   before: conv = features.0/conv2d(input, features.0.weight, features.0.bias)
//           bn   = features.1/batch_norm(conv, features.1.weight, ..bias,
//                                        ..running_mean, ..running_var)
//           relu = features.2/relu(bn)
//   after:  conv = features.0/conv2d(input, features.0.weight+features.1,
//                                    features.0.bias+features.1)
//           relu = features.2/relu(conv)
//
// It folds only when that is exact up to rounding: the conv's output is read
// by the batch_norm alone (not by another node, nor as a graph output), and
// the conv's weight and bias and all four batch_norm operands are graph
// constants of floating-point dtypes on one device (constants on several
// devices are left for strict placement to report). Otherwise the graph is
// left as it is.
// Run it after shape inference (the fold keeps every shape) and before
// placement: linking //passes registers it as an optimisation pass
// (core/optimization_pass_registry.h), which Compile runs unless
// CompileOptions::fold_batch_norm is false.
class FoldBatchNormPass : public Pass {
 public:
  std::string name() const override { return kFoldBatchNormPassName; }
  absl::StatusOr<bool> Run(Graph& graph) override;
};

}  // namespace switchyard

#endif  // SWITCHYARD_PASSES_FOLD_BATCH_NORM_H_
