// Device code of non_max_suppression, the parallel bitmask form (as
// torchvision's CUDA nms): the candidates of each (batch, class) segment,
// already in visiting order, are cut into blocks of 64; one thread block per
// (row block, column block) pair at or above the diagonal computes whether
// each of its 64 row boxes suppresses each of the 64 column boxes after it,
// one bit each, into a [K, ceil(K / 64)] matrix of 64-bit words. Then one
// warp per segment walks the candidates in order, keeping a box unless its
// bit is set in the running "removed" row, and ORs each kept box's mask row
// into it: the only sequential part, and it never leaves the GPU.
//
// Boxes are decoded and compared by ops/nms_box_geometry.h (DecodeNmsBox,
// NmsSuppresses), on the device as on the host: double steps through the
// _rn intrinsics, which nvcc never fuses into a multiply-add, so every
// decision is the CPU's and the reference's.

#include "backends/cuda/kernels/non_max_suppression.cuh"

#include <cstdint>

#include "backends/cuda/kernels/grid_stride_loop.cuh"
#include "ops/nms_box_geometry.h"

namespace switchyard {
namespace cuda {
namespace kernels {
namespace {

constexpr int kBlockBoxes = 64;  // bits per mask word
constexpr int kWarp = 32;

__device__ int64_t Min64(int64_t a, int64_t b) { return a < b ? a : b; }

// Decoded candidates, structure of arrays: min0, min1, max0, max1, area,
// each `total` doubles; area 0 marks a box that overlaps nothing.
struct Decoded {
  const double* min0;
  const double* min1;
  const double* max0;
  const double* max1;
  const double* area;
};

__device__ Decoded View(const double* decoded, int64_t total, int64_t offset) {
  return {decoded + offset, decoded + total + offset,
          decoded + 2 * total + offset, decoded + 3 * total + offset,
          decoded + 4 * total + offset};
}

__global__ void DecodeBoxes(const float* __restrict__ boxes,
                            const int64_t* __restrict__ order, int64_t total,
                            int64_t center_point_box,
                            double* __restrict__ decoded) {
  SY_GRID_STRIDE_LOOP(i, total) {
    // All 0 for an invalid box.
    const NmsBox b = DecodeNmsBox(boxes + 4 * order[i], center_point_box);
    decoded[i] = b.min0;
    decoded[total + i] = b.min1;
    decoded[2 * total + i] = b.max0;
    decoded[3 * total + i] = b.max1;
    decoded[4 * total + i] = b.area;
  }
}

// A decoded box back from its five values (area 0: invalid).
__device__ NmsBox Box(double min0, double min1, double max0, double max1,
                      double area) {
  NmsBox b;
  b.min0 = min0;
  b.min1 = min1;
  b.max0 = max0;
  b.max1 = max1;
  b.area = area;
  b.valid = area != 0;
  return b;
}

// Block (x = column block, y = row block), 64 threads: thread t sets bit j
// of mask[row * words + column block] when row box 64 y + t suppresses
// column box 64 x + j, for column boxes after it.
__global__ void MaskBlocks(const double* __restrict__ decoded, int64_t total,
                           int64_t offset, int64_t count, double threshold,
                           uint64_t* __restrict__ mask) {
  const int64_t row_block = blockIdx.y, col_block = blockIdx.x;
  if (row_block > col_block) return;
  const int64_t words = (count + kBlockBoxes - 1) / kBlockBoxes;
  const Decoded d = View(decoded, total, offset);
  const int64_t col_start = col_block * kBlockBoxes;
  const int col_size =
      static_cast<int>(Min64(kBlockBoxes, count - col_start));
  const int64_t row_start = row_block * kBlockBoxes;
  const int row_size =
      static_cast<int>(Min64(kBlockBoxes, count - row_start));

  __shared__ double cols[5][kBlockBoxes];
  const int t = threadIdx.x;
  if (t < col_size) {
    cols[0][t] = d.min0[col_start + t];
    cols[1][t] = d.min1[col_start + t];
    cols[2][t] = d.max0[col_start + t];
    cols[3][t] = d.max1[col_start + t];
    cols[4][t] = d.area[col_start + t];
  }
  __syncthreads();
  if (t >= row_size) return;
  const int64_t row = row_start + t;
  const NmsBox a =
      Box(d.min0[row], d.min1[row], d.max0[row], d.max1[row], d.area[row]);
  uint64_t bits = 0;
  for (int j = row_block == col_block ? t + 1 : 0; j < col_size; ++j) {
    const NmsBox b =
        Box(cols[0][j], cols[1][j], cols[2][j], cols[3][j], cols[4][j]);
    if (NmsSuppresses(a, b, threshold)) bits |= uint64_t{1} << j;
  }
  mask[row * words + col_block] = bits;
}

// One warp per segment (blockIdx.x). segments[4 s ..]: candidate offset,
// candidate count, mask offset (words), removed offset (words; zeroed).
// Lane l owns the removed words j with j % 32 == l; __syncwarp orders their
// writes before the next block's word is read.
__global__ void KeepBoxes(const uint64_t* __restrict__ mask,
                          uint64_t* __restrict__ removed,
                          const int64_t* __restrict__ segments,
                          const int64_t* __restrict__ order,
                          int64_t boxes_per_batch, int64_t limit,
                          int64_t* __restrict__ kept,
                          int64_t* __restrict__ counts) {
  const int64_t s = blockIdx.x;
  const int lane = threadIdx.x;
  const int64_t offset = segments[4 * s], count = segments[4 * s + 1];
  const uint64_t* m = mask + segments[4 * s + 2];
  uint64_t* r = removed + segments[4 * s + 3];
  const int64_t words = (count + kBlockBoxes - 1) / kBlockBoxes;
  int64_t taken = 0;
  for (int64_t b = 0; b < words && taken < limit; ++b) {
    __syncwarp();
    uint64_t current = r[b];
    const int size = static_cast<int>(Min64(kBlockBoxes, count - b * kBlockBoxes));
    for (int bit = 0; bit < size; ++bit) {
      if ((current >> bit) & 1) continue;
      const int64_t i = b * kBlockBoxes + bit;
      if (lane == 0) kept[s * limit + taken] = order[offset + i] % boxes_per_batch;
      if (++taken == limit) break;
      const uint64_t* row = m + i * words;
      current |= row[b];
      for (int64_t j = lane; j < words; j += kWarp) {
        if (j > b) r[j] |= row[j];
      }
    }
  }
  if (lane == 0) counts[s] = taken;
}

// One thread: where each segment's rows start, and the total.
__global__ void Offsets(const int64_t* __restrict__ counts, int64_t segments,
                        int64_t* __restrict__ offsets,
                        int64_t* __restrict__ num_selected) {
  int64_t total = 0;
  for (int64_t s = 0; s < segments; ++s) {
    offsets[s] = total;
    total += counts[s];
  }
  *num_selected = total;
}

__global__ void PackRows(const int64_t* __restrict__ kept,
                         const int64_t* __restrict__ counts,
                         const int64_t* __restrict__ offsets,
                         const int64_t* __restrict__ num_selected,
                         int64_t segments, int64_t classes, int64_t limit,
                         int64_t capacity, int64_t* __restrict__ rows) {
  SY_GRID_STRIDE_LOOP(slot, segments * limit) {
    const int64_t s = slot / limit, k = slot % limit;
    if (k >= counts[s]) continue;
    const int64_t r = offsets[s] + k;
    rows[3 * r] = s / classes;
    rows[3 * r + 1] = s % classes;
    rows[3 * r + 2] = kept[slot];
  }
  const int64_t total = *num_selected;
  SY_GRID_STRIDE_LOOP(r, capacity) {
    if (r < total) continue;
    rows[3 * r] = rows[3 * r + 1] = rows[3 * r + 2] = -1;
  }
}

}  // namespace

cudaError_t LaunchNmsDecode(const float* boxes, const int64_t* order,
                            int64_t total, int64_t center_point_box,
                            double* decoded, cudaStream_t stream) {
  if (total <= 0) return cudaSuccess;
  DecodeBoxes<<<Blocks(total), kThreads, 0, stream>>>(boxes, order, total,
                                                      center_point_box, decoded);
  return cudaGetLastError();
}

cudaError_t LaunchNmsMask(const double* decoded, int64_t total, int64_t offset,
                          int64_t count, double iou_threshold, uint64_t* mask,
                          cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  const int64_t words = (count + kBlockBoxes - 1) / kBlockBoxes;
  if (words > kMaxNmsMaskBlocks) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned int>(words),
                  static_cast<unsigned int>(words));
  MaskBlocks<<<grid, kBlockBoxes, 0, stream>>>(decoded, total, offset, count,
                                               iou_threshold, mask);
  return cudaGetLastError();
}

cudaError_t LaunchNmsKeep(const uint64_t* mask, uint64_t* removed,
                          const int64_t* segments, const int64_t* order,
                          int64_t num_segments, int64_t boxes_per_batch,
                          int64_t limit, int64_t* kept, int64_t* counts,
                          cudaStream_t stream) {
  if (num_segments <= 0) return cudaSuccess;
  if (num_segments > kMaxNmsSegments) return cudaErrorInvalidConfiguration;
  KeepBoxes<<<static_cast<unsigned int>(num_segments), kWarp, 0, stream>>>(
      mask, removed, segments, order, boxes_per_batch, limit, kept, counts);
  return cudaGetLastError();
}

cudaError_t LaunchNmsPack(const int64_t* kept, const int64_t* counts,
                          int64_t num_segments, int64_t classes, int64_t limit,
                          int64_t capacity, int64_t* offsets, int64_t* rows,
                          int64_t* num_selected, cudaStream_t stream) {
  Offsets<<<1, 1, 0, stream>>>(counts, num_segments, offsets, num_selected);
  cudaError_t launched = cudaGetLastError();
  if (launched != cudaSuccess || capacity <= 0) return launched;
  PackRows<<<Blocks(capacity), kThreads, 0, stream>>>(
      kept, counts, offsets, num_selected, num_segments, classes, limit,
      capacity, rows);
  return cudaGetLastError();
}

}  // namespace kernels
}  // namespace cuda
}  // namespace switchyard
