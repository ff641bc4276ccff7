// Linear: y = x W^T + b through cuBLASLt, the bias added in the matmul's
// epilogue (CUBLASLT_EPILOGUE_BIAS), so a Linear is one kernel. The
// arguments (W used transposed, x and y as they are, no data moved) come
// from gemm_plan.h's PlanLinear, the descriptors, algorithm and math mode
// from cublaslt_matmul.h, as for matmul and gemm.
//
// linear+relu (the partitions CudaDevice claims): the same matmul, then
// relu.cu in place. Not cuBLASLt's RELU/RELU_BIAS epilogue: it turns a NaN
// into 0 (NVIDIA's forum, "Incorrect result of cublasLtMatmul with
// CUBLASLT_EPILOGUE_RELU when input is NaN"), where cpu:0, relu.cu and
// PyTorch keep it. The extra pass reads and writes rows x out floats, small
// beside the matmul's reads of x and W.

#include <cstdint>
#include <memory>

#include "absl/strings/str_cat.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/gemm_plan.h"
#include "backends/cuda/kernels/bias_epilogue.cuh"
#include "backends/cuda/kernels/cublaslt_matmul.h"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "backends/cuda/kernels/relu.cuh"

namespace switchyard {
namespace cuda {
namespace {

class LinearKernel : public Kernel {
 public:
  LinearKernel(CudaDevice& device, const CublasLtApi& api, int64_t rows, int64_t in,
               int64_t out, bool has_bias, bool relu)
      : device_(device),
        rows_(rows),
        in_(in),
        out_(out),
        has_bias_(has_bias),
        relu_(relu),
        matmul_(device, api,
                absl::StrCat("linear", relu ? "+relu" : "", " of ", rows, " rows, ", in,
                             " -> ", out, " features")) {}

  absl::Status Build() {
    if (rows_ == 0 || out_ == 0 || in_ == 0) return absl::OkStatus();
    return matmul_.Build(PlanLinear(rows_, in_, out_, has_bias_));
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (rows_ == 0 || out_ == 0) return absl::OkStatus();
    SY_RETURN_IF_ERROR(device_.Activate());
    const float* x = inputs[0]->data<float>();
    const float* w = inputs[1]->data<float>();
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    float* y = outputs[0]->data<float>();
    if (in_ == 0) {  // no features: the bias (or zeros) in every row
      SY_CUDA_RETURN_IF_ERROR(
          kernels::LaunchFillRows(bias, y, rows_, out_, device_.stream()),
          device_.name());
    } else {
      // cuBLASLt's A is the weight, its B the input (gemm_plan.h).
      const CublasLtMatmul::Operands call = {w, x, nullptr, y};
      SY_RETURN_IF_ERROR(matmul_.Run({call}, bias));
    }
    if (relu_) {
      SY_CUDA_RETURN_IF_ERROR(kernels::LaunchRelu(y, y, rows_ * out_, device_.stream()),
                              device_.name());
    }
    return absl::OkStatus();
  }

 private:
  CudaDevice& device_;
  const int64_t rows_, in_, out_;
  const bool has_bias_;
  const bool relu_;  // relu.cu after the matmul (linear+relu)
  CublasLtMatmul matmul_;
};

absl::Status SupportsLinear(const Node& node, const Graph& graph) {
  absl::StatusOr<const CublasLtApi*> api = LoadCublasLt();
  if (!api.ok()) {
    return absl::UnimplementedError(absl::StrCat(
        "linear needs cuBLASLt: ", api.status().message()));
  }
  return absl::OkStatus();
}

// The kernel of a linear node, with relu.cu after it or not.
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearKernel(const Node& node,
                                                         const Graph& graph,
                                                         CudaDevice& device, bool relu) {
  SY_ASSIGN_OR_RETURN(const CublasLtApi* api, LoadCublasLt());
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& wt = *graph.value(node.inputs[1]).shape;
  const int64_t features_in = wt.dim(1);
  int64_t rows = 1;  // every dimension but the last
  for (int d = 0; d + 1 < in.rank(); ++d) rows *= in.dim(d);
  auto kernel = std::make_unique<LinearKernel>(device, *api, rows, features_in, wt.dim(0),
                                               node.inputs.size() > 2, relu);
  SY_RETURN_IF_ERROR(kernel->Build());
  return std::unique_ptr<Kernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeLinear(const Node& node, const Graph& graph,
                                                   CudaDevice& device) {
  return MakeLinearKernel(node, graph, device, /*relu=*/false);
}

// `node` is the linear of a claimed linear+relu partition.
absl::StatusOr<std::unique_ptr<Kernel>> MakeLinearRelu(const Node& node,
                                                       const Graph& graph,
                                                       CudaDevice& device) {
  return MakeLinearKernel(node, graph, device, /*relu=*/true);
}

SY_REGISTER_KERNEL(CudaKernels(), "linear", DType::kFloat32, &SupportsLinear,
                   &MakeLinear);
SY_REGISTER_KERNEL(CudaFusedKernels(), "linear+relu", DType::kFloat32, &SupportsLinear,
                   &MakeLinearRelu);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
