#ifndef SWITCHYARD_BACKENDS_CPU_KERNELS_WINOGRAD_H_
#define SWITCHYARD_BACKENDS_CPU_KERNELS_WINOGRAD_H_

#include <memory>

#include "backends/cpu/cpu_context.h"
#include "backends/cpu/kernels/conv2d_algorithm.h"
#include "backends/cpu/kernels/epilogue.h"
#include "core/backend.h"
#include "core/prepared_weights.h"
#include "core/tensor.h"

namespace switchyard {
namespace cpu {

// A float32 conv2d as Winograd F(m x m, 3x3), m = 2 or 4 (Lavin & Gray,
// "Fast Algorithms for Convolutional Neural Networks", 2016), for a conv
// where WinogradApplies(geo). Inputs (input, weight[, bias]), NCHW.
//
// With a = m + 2 and T = a * a transform points (16 or 36): the weights are
// transformed once, here, into T matrices U_t = (G g G^T)_t (O x C,
// computed in double) packed for Eigen's GEMM micro-kernel; each run cuts
// the output into m x m tiles, and per block of tiles transforms the input
// patches into T matrices V_t (C x tiles), multiplies M_t = U_t V_t (T
// Eigen GEMMs per chunk of output channels), and transforms each M tile
// back (A^T M A), adding the bias and the fused activation as the tile is
// written (the epilogue of epilogue.h). `weight`, when defined, is the
// weight as a graph constant: its transform comes from `prepared` (made
// once, shared by every plan with this weight) and the run's weight operand
// is ignored; else the weights are transformed on every run.
std::unique_ptr<Kernel> MakeWinogradConv2dKernel(
    const Conv2dGeometry& geo, int m, const Tensor& weight, bool has_bias,
    Activation activation, std::shared_ptr<const CpuContext> context,
    PreparedWeights& prepared);

}  // namespace cpu
}  // namespace switchyard

#endif  // SWITCHYARD_BACKENDS_CPU_KERNELS_WINOGRAD_H_
