// Conv2d through cuDNN, NCHW, float32; groups, stride, padding, dilation as
// in ops/conv_attrs.h; the bias added by cudnnAddTensor.
//
// Algorithm: chosen once per convolution shape and device, like PyTorch with
// torch.backends.cudnn.benchmark = True: the first Run of a shape times every
// forward algorithm on the real operands (cudnnFindConvolutionForwardAlgorithmEx)
// and keeps the fastest whose workspace fits; the choice is cached in the
// CudaDevice under a key of every dimension and the math mode, so other plans
// and batch sizes of the same layer never benchmark it again. The first
// forward of a new shape is therefore slower; `switchyard run --warmup` hides
// it from timings.
//
// Math: CUDNN_FMA_MATH (true FP32, no tensor cores, TF32 off) by default, as
// PyTorch with torch.backends.cudnn.allow_tf32 = False; with TF32 allowed
// (the backend option allow_tf32), CUDNN_DEFAULT_MATH and then the math type
// the chosen algorithm reports.
//
// conv2d+relu (the partitions CudaDevice claims): the convolution, then one
// kernel of ours that adds the bias and applies the ReLU in place
// (kernels/bias_epilogue.cu), keeping NaN as cpu:0 and PyTorch do: still one
// pass fewer than conv2d, add, relu. Not cuDNN's fused
// cudnnConvolutionBiasActivationForward by default: its API reference lists
// any ReLU NaN option but CUDNN_NOT_PROPAGATE_NAN as NOT_SUPPORTED, and
// that one promises no NaN ("NaN numbers are not propagated": a NaN before
// the ReLU may come out 0).
// SWITCHYARD_CUDNN_FUSED_CONV_RELU=1 (read when a kernel is made) asks for
// the fused call anyway, to measure it and to see on a GPU what it does with
// NaN (cuda_kernels_test's FusedConvReluOnRequestFallsBackOrMatches
// reports it). Any error of its first call but out-of-memory
// (NOT_SUPPORTED, BAD_PARAM, ...) is said once on stderr, and the kernel
// runs unfused from then on.

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cuda/cuda_libraries.h"
#include "backends/cuda/kernels/bias_epilogue.cuh"
#include "backends/cuda/kernels/cuda_kernel.h"
#include "ops/conv_attrs.h"

namespace switchyard {
namespace cuda {
namespace {

// The most workspace the benchmark may give an algorithm: at most this, and
// at most half the device's free memory.
constexpr size_t kMaxFindWorkspace = size_t{1} << 30;

struct ConvShape {
  int n, c, h, w;   // input
  int k, cg, r, s;  // weight: k filters of cg x r x s (cg = c / groups)
  int ho, wo;       // output
  Conv2dAttrs attrs;
};

// SWITCHYARD_CUDNN_FUSED_CONV_RELU is 1: conv2d+relu through cuDNN's fused
// call (see the top of this file).
constexpr char kFusedConvReluVariable[] = "SWITCHYARD_CUDNN_FUSED_CONV_RELU";
bool FusedConvReluRequested() {
  const char* value = std::getenv(kFusedConvReluVariable);
  return value != nullptr && std::string(value) == "1";
}

bool IsTensorOpMath(cudnnMathType_t math) {
  return math == CUDNN_TENSOR_OP_MATH ||
         math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

class Conv2dKernel : public Kernel {
 public:
  // `relu`: the kernel of a conv2d+relu partition.
  Conv2dKernel(CudaDevice& device, const CudnnApi& api, const ConvShape& shape,
               bool has_bias, bool relu)
      : device_(device),
        api_(api),
        shape_(shape),
        has_bias_(has_bias),
        relu_(relu),
        tf32_(device.allow_tf32()),
        fused_(relu && api.has_fused_conv_bias_activation && FusedConvReluRequested()) {}

  ~Conv2dKernel() override {
    for (cudnnTensorDescriptor_t d : {x_desc_, y_desc_, bias_desc_}) {
      if (d != nullptr) api_.cudnnDestroyTensorDescriptor(d);
    }
    if (activation_desc_ != nullptr) {
      api_.cudnnDestroyActivationDescriptor(activation_desc_);
    }
    if (w_desc_ != nullptr) api_.cudnnDestroyFilterDescriptor(w_desc_);
    if (conv_desc_ != nullptr) api_.cudnnDestroyConvolutionDescriptor(conv_desc_);
  }

  absl::Status Build() {
    const ConvShape& s = shape_;
    const Conv2dAttrs& a = s.attrs;
    SY_RETURN_IF_ERROR(Check(api_.cudnnCreateTensorDescriptor(&x_desc_),
                             "cudnnCreateTensorDescriptor"));
    SY_RETURN_IF_ERROR(Check(api_.cudnnCreateTensorDescriptor(&y_desc_),
                             "cudnnCreateTensorDescriptor"));
    SY_RETURN_IF_ERROR(Check(api_.cudnnCreateFilterDescriptor(&w_desc_),
                             "cudnnCreateFilterDescriptor"));
    SY_RETURN_IF_ERROR(Check(api_.cudnnCreateConvolutionDescriptor(&conv_desc_),
                             "cudnnCreateConvolutionDescriptor"));
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                        s.n, s.c, s.h, s.w),
        "cudnnSetTensor4dDescriptor(input)"));
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW,
                                        s.k, s.cg, s.r, s.s),
        "cudnnSetFilter4dDescriptor"));
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetConvolution2dDescriptor(
            conv_desc_, static_cast<int>(a.pad_h), static_cast<int>(a.pad_w),
            static_cast<int>(a.stride_h), static_cast<int>(a.stride_w),
            static_cast<int>(a.dilation_h), static_cast<int>(a.dilation_w),
            CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        "cudnnSetConvolution2dDescriptor"));
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetConvolutionGroupCount(conv_desc_, static_cast<int>(a.groups)),
        "cudnnSetConvolutionGroupCount"));
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetConvolutionMathType(conv_desc_,
                                         tf32_ ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH),
        "cudnnSetConvolutionMathType"));
    int n = 0, k = 0, ho = 0, wo = 0;
    SY_RETURN_IF_ERROR(Check(api_.cudnnGetConvolution2dForwardOutputDim(
                                 conv_desc_, x_desc_, w_desc_, &n, &k, &ho, &wo),
                             "cudnnGetConvolution2dForwardOutputDim"));
    if (n != s.n || k != s.k || ho != s.ho || wo != s.wo) {
      return absl::InternalError(absl::StrCat(
          "cuDNN's conv2d output [", n, ", ", k, ", ", ho, ", ", wo,
          "] differs from shape inference's [", s.n, ", ", s.k, ", ", s.ho, ", ",
          s.wo, "]"));
    }
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                        s.n, s.k, s.ho, s.wo),
        "cudnnSetTensor4dDescriptor(output)"));
    if (has_bias_ || fused_) {
      SY_RETURN_IF_ERROR(Check(api_.cudnnCreateTensorDescriptor(&bias_desc_),
                               "cudnnCreateTensorDescriptor"));
      SY_RETURN_IF_ERROR(Check(
          api_.cudnnSetTensor4dDescriptor(bias_desc_, CUDNN_TENSOR_NCHW,
                                          CUDNN_DATA_FLOAT, 1, s.k, 1, 1),
          "cudnnSetTensor4dDescriptor(bias)"));
    }
    if (fused_) SY_RETURN_IF_ERROR(BuildFused());
    key_ = absl::StrCat("n", s.n, "c", s.c, "h", s.h, "w", s.w, "k", s.k, "r", s.r,
                        "s", s.s, "p", a.pad_h, ",", a.pad_w, "u", a.stride_h, ",",
                        a.stride_w, "d", a.dilation_h, ",", a.dilation_w, "g",
                        a.groups, tf32_ ? "tf32" : "fp32");
    return absl::OkStatus();
  }

  absl::Status Run(absl::Span<const Tensor* const> inputs,
                   absl::Span<Tensor* const> outputs) override {
    if (outputs[0]->num_elements() == 0) return absl::OkStatus();
    if (conv_desc_ == nullptr) {
      return absl::UnimplementedError(absl::StrCat(
          "conv2d on ", device_.name(), ": an empty input with a non-empty "
          "output (zero input channels) is not supported by cuDNN"));
    }
    SY_RETURN_IF_ERROR(device_.Activate());
    const float* x = inputs[0]->data<float>();
    const float* w = inputs[1]->data<float>();
    float* y = outputs[0]->data<float>();
    absl::MutexLock lock(&device_.library_mutex());
    SY_ASSIGN_OR_RETURN(cudnnHandle_t handle, device_.CudnnHandle());
    if (!algorithm_.has_value()) {
      algorithm_ = device_.FindConvAlgorithm(key_);
      if (!algorithm_.has_value()) {
        SY_ASSIGN_OR_RETURN(ConvAlgorithm found, Benchmark(handle, x, w, y));
        device_.StoreConvAlgorithm(key_, found);
        algorithm_ = found;
      }
      if (tf32_) {
        SY_RETURN_IF_ERROR(Check(
            api_.cudnnSetConvolutionMathType(conv_desc_, algorithm_->math_type),
            "cudnnSetConvolutionMathType"));
      }
    }
    SY_ASSIGN_OR_RETURN(void* workspace,
                        device_.Workspace(algorithm_->workspace_bytes));
    const float* bias = has_bias_ ? inputs[2]->data<float>() : nullptr;
    const float one = 1.0f, zero = 0.0f;
    if (fused_) {
      // y = relu(1 * conv(x) + 0 * y + bias): z is y, with weight 0.
      const absl::Status fused =
          Check(api_.cudnnConvolutionBiasActivationForward(
                    handle, &one, x_desc_, x, w_desc_, w, conv_desc_, algorithm_->algo,
                    workspace, algorithm_->workspace_bytes, &zero, y_desc_, y, bias_desc_,
                    bias != nullptr ? bias : zero_bias(), activation_desc_, y_desc_, y),
                "cudnnConvolutionBiasActivationForward");
      // Once it has worked, an error is the run's; out of memory is never
      // cuDNN refusing the fusion.
      if (fused.ok() || fused_worked_ || absl::IsResourceExhausted(fused)) {
        fused_worked_ = fused_worked_ || fused.ok();
        return fused;
      }
      // cuDNN documents NOT_SUPPORTED for what it will not fuse, but older
      // releases answer BAD_PARAM and others: the unfused path from now on.
      fused_ = false;
      static std::atomic<bool> said{false};
      if (!said.exchange(true)) {
        std::fprintf(stderr,
                     "switchyard: %s: cuDNN's fused conv2d+relu refused (%s); "
                     "conv2d+relu runs the convolution, then bias and ReLU\n",
                     device_.name().c_str(), fused.ToString().c_str());
      }
    }
    SY_RETURN_IF_ERROR(Check(
        api_.cudnnConvolutionForward(handle, &one, x_desc_, x, w_desc_, w, conv_desc_,
                                     algorithm_->algo, workspace,
                                     algorithm_->workspace_bytes, &zero, y_desc_, y),
        "cudnnConvolutionForward"));
    if (relu_) {
      SY_CUDA_RETURN_IF_ERROR(kernels::LaunchBiasReluInPlace(
                                  y, bias, shape_.n, shape_.k,
                                  int64_t{shape_.ho} * shape_.wo, device_.stream()),
                              device_.name());
    } else if (has_bias_) {
      SY_RETURN_IF_ERROR(
          Check(api_.cudnnAddTensor(handle, &one, bias_desc_, bias, &one, y_desc_, y),
                "cudnnAddTensor"));
    }
    return absl::OkStatus();
  }

 private:
  // The activation descriptor and, for a conv without bias, K zeros for
  // cuDNN's bias operand.
  absl::Status BuildFused() {
    SY_RETURN_IF_ERROR(Check(api_.cudnnCreateActivationDescriptor(&activation_desc_),
                             "cudnnCreateActivationDescriptor"));
    SY_RETURN_IF_ERROR(
        // The only NaN mode cuDNN documents for the fused call.
        Check(api_.cudnnSetActivationDescriptor(activation_desc_, CUDNN_ACTIVATION_RELU,
                                                CUDNN_NOT_PROPAGATE_NAN, 0.0),
              "cudnnSetActivationDescriptor"));
    if (has_bias_) return absl::OkStatus();
    SY_ASSIGN_OR_RETURN(zeros_, device_.Allocate(sizeof(float) * shape_.k));
    SY_RETURN_IF_ERROR(device_.Activate());
    SY_CUDA_RETURN_IF_ERROR(
        cudaMemsetAsync(zeros_->data(), 0, zeros_->size_bytes(), device_.stream()),
        device_.name());
    return absl::OkStatus();
  }

  const float* zero_bias() const { return static_cast<const float*>(zeros_->data()); }

  absl::Status Check(cudnnStatus_t status, const char* call) const {
    return CudnnCheck(api_, status, call, device_.name());
  }

  // Times every forward algorithm on the real operands (overwriting y, which
  // the convolution writes next anyway) and picks the fastest allowed one.
  absl::StatusOr<ConvAlgorithm> Benchmark(cudnnHandle_t handle, const float* x,
                                          const float* w, float* y) {
    size_t free_bytes = 0, total_bytes = 0;
    SY_CUDA_RETURN_IF_ERROR(cudaMemGetInfo(&free_bytes, &total_bytes),
                            device_.name());
    // A one-off scratch straight from the driver (not the caching allocator,
    // which would keep up to 1 GiB reserved for nothing afterwards).
    size_t limit = std::min(kMaxFindWorkspace, free_bytes / 2);
    void* workspace = nullptr;
    while (limit > 0 && cudaMalloc(&workspace, limit) != cudaSuccess) {
      cudaGetLastError();
      workspace = nullptr;
      limit /= 4;
    }
    cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
    int returned = 0;
    const cudnnStatus_t status = api_.cudnnFindConvolutionForwardAlgorithmEx(
        handle, x_desc_, x, w_desc_, w, conv_desc_, y_desc_, y,
        CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf, workspace, limit);
    // The find ran to completion (it synchronizes); cudaFree waits anyway.
    if (workspace != nullptr) {
      SY_CUDA_RETURN_IF_ERROR(cudaFree(workspace), device_.name());
    }
    SY_RETURN_IF_ERROR(Check(status, "cudnnFindConvolutionForwardAlgorithmEx"));
    std::vector<std::string> rejected;
    for (int i = 0; i < returned; ++i) {  // sorted fastest first
      const cudnnConvolutionFwdAlgoPerf_t& p = perf[i];
      if (p.status != CUDNN_STATUS_SUCCESS) continue;
      if (p.memory > limit) continue;
      if (!tf32_ && IsTensorOpMath(p.mathType)) {
        rejected.push_back(absl::StrCat("algo ", p.algo, " (tensor-op math)"));
        continue;
      }
      return ConvAlgorithm{p.algo, p.memory, p.mathType, p.time};
    }
    return absl::UnimplementedError(absl::StrCat(
        "cuDNN found no usable forward algorithm for conv2d ", key_, " on ",
        device_.name(), " (", returned, " tried, workspace limit ", limit,
        " bytes", rejected.empty() ? "" : "; rejected: ",
        absl::StrJoin(rejected, ", "), ")"));
  }

  CudaDevice& device_;
  const CudnnApi& api_;
  const ConvShape shape_;
  const bool has_bias_;
  const bool relu_;
  const bool tf32_;
  bool fused_;  // cuDNN's fused call (relu_ only, on request), until refused
  bool fused_worked_ = false;  // the fused call has succeeded once
  std::string key_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr,
                          bias_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnActivationDescriptor_t activation_desc_ = nullptr;
  std::shared_ptr<Buffer> zeros_;  // the fused call's bias without a bias
  std::optional<ConvAlgorithm> algorithm_;
};

absl::StatusOr<ConvShape> ShapeOf(const Node& node, const Graph& graph) {
  SY_ASSIGN_OR_RETURN(Conv2dAttrs attrs, ParseConv2dAttrs(node.attrs));
  const Shape& in = *graph.value(node.inputs[0]).shape;
  const Shape& wt = *graph.value(node.inputs[1]).shape;
  const Shape& out = *graph.value(node.outputs[0]).shape;
  std::vector<int64_t> dims = {in.dim(0), in.dim(1), in.dim(2), in.dim(3),
                               wt.dim(0), wt.dim(1), wt.dim(2), wt.dim(3),
                               out.dim(2), out.dim(3), attrs.pad_h, attrs.pad_w,
                               attrs.stride_h, attrs.stride_w, attrs.dilation_h,
                               attrs.dilation_w, attrs.groups};
  for (int64_t d : dims) {
    if (d > INT_MAX) {
      return absl::UnimplementedError(absl::StrCat(
          "cuDNN's 4-d descriptors take int sizes; conv2d has a size of ", d));
    }
  }
  for (const Shape* s : {&in, &out}) {
    if (s->num_elements() > INT_MAX) {
      return absl::UnimplementedError(absl::StrCat(
          "conv2d tensor ", s->ToString(),
          " has more than 2^31 - 1 elements, more than cuDNN's 4-d descriptors "
          "address; use a smaller batch"));
    }
  }
  ConvShape s;
  s.n = static_cast<int>(in.dim(0));
  s.c = static_cast<int>(in.dim(1));
  s.h = static_cast<int>(in.dim(2));
  s.w = static_cast<int>(in.dim(3));
  s.k = static_cast<int>(wt.dim(0));
  s.cg = static_cast<int>(wt.dim(1));
  s.r = static_cast<int>(wt.dim(2));
  s.s = static_cast<int>(wt.dim(3));
  s.ho = static_cast<int>(out.dim(2));
  s.wo = static_cast<int>(out.dim(3));
  s.attrs = attrs;
  return s;
}

absl::Status SupportsConv2d(const Node& node, const Graph& graph) {
  absl::StatusOr<const CudnnApi*> api = LoadCudnn();
  if (!api.ok()) {
    return absl::UnimplementedError(
        absl::StrCat("conv2d needs cuDNN: ", api.status().message()));
  }
  return ShapeOf(node, graph).status();
}

// The kernel of a conv2d node, with the ReLU fused or not.
absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2dKernel(const Node& node,
                                                         const Graph& graph,
                                                         CudaDevice& device, bool relu) {
  SY_ASSIGN_OR_RETURN(const CudnnApi* api, LoadCudnn());
  SY_ASSIGN_OR_RETURN(ConvShape shape, ShapeOf(node, graph));
  auto kernel =
      std::make_unique<Conv2dKernel>(device, *api, shape, node.inputs.size() > 2, relu);
  // Zero-sized convolutions run nothing; cuDNN rejects their descriptors.
  const Shape& out = *graph.value(node.outputs[0]).shape;
  if (out.num_elements() > 0 && graph.value(node.inputs[0]).shape->num_elements() > 0) {
    SY_RETURN_IF_ERROR(kernel->Build());
  }
  return std::unique_ptr<Kernel>(std::move(kernel));
}

absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2d(const Node& node, const Graph& graph,
                                                   CudaDevice& device) {
  return MakeConv2dKernel(node, graph, device, /*relu=*/false);
}

// `node` is the conv2d of a claimed conv2d+relu partition.
absl::StatusOr<std::unique_ptr<Kernel>> MakeConv2dRelu(const Node& node,
                                                       const Graph& graph,
                                                       CudaDevice& device) {
  return MakeConv2dKernel(node, graph, device, /*relu=*/true);
}

SY_REGISTER_KERNEL(CudaKernels(), "conv2d", DType::kFloat32, &SupportsConv2d,
                   &MakeConv2d);
SY_REGISTER_KERNEL(CudaFusedKernels(), "conv2d+relu", DType::kFloat32, &SupportsConv2d,
                   &MakeConv2dRelu);

}  // namespace
}  // namespace cuda
}  // namespace switchyard
