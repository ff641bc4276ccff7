#include "backends/cpu/kernels/strided_copy.h"

#include <algorithm>
#include <cstring>

namespace switchyard {
namespace cpu {
namespace {

// Below this many bytes one thread copies everything.
constexpr int64_t kMinParallelBytes = int64_t{1} << 18;
// Tile edge of the blocked transpose: 32 x 32 elements of up to 8 bytes
// (8 KiB per side) fit in L1 together.
constexpr int64_t kTile = 32;

// Walks the outer dims [0, outer_rank) of `copy` over the flat outer
// positions [begin, end), calling row(dst_offset, src_offset) for each,
// offsets in elements. The multi-index is unravelled once, then carried.
template <typename Row>
void ForEachOuter(const StridedCopy& copy, int outer_rank, int64_t begin,
                  int64_t end, Row&& row) {
  std::vector<int64_t> index(outer_rank, 0);
  int64_t rest = begin, dst = 0, src = 0;
  for (int d = outer_rank - 1; d >= 0; --d) {
    index[d] = rest % copy.dims[d];
    rest /= copy.dims[d];
    dst += index[d] * copy.dst_strides[d];
    src += index[d] * copy.src_strides[d];
  }
  for (int64_t p = begin; p < end; ++p) {
    row(dst, src);
    for (int d = outer_rank - 1; d >= 0; --d) {
      dst += copy.dst_strides[d];
      src += copy.src_strides[d];
      if (++index[d] < copy.dims[d]) break;
      dst -= copy.dims[d] * copy.dst_strides[d];
      src -= copy.dims[d] * copy.src_strides[d];
      index[d] = 0;
    }
  }
}

int64_t Product(const std::vector<int64_t>& dims, int from, int to) {
  int64_t n = 1;
  for (int d = from; d < to; ++d) n *= dims[d];
  return n;
}

// Splits `rows` outer positions over the threads when the copy is large.
void Spread(const CpuContext& context, int64_t rows, int64_t bytes,
            const std::function<void(int64_t, int64_t)>& fn) {
  if (bytes < kMinParallelBytes || rows < 2) {
    fn(0, rows);
  } else {
    context.ParallelRange(rows, fn);
  }
}

template <typename T>
void CopyTyped(const CpuContext& context, T* dst, const T* src,
               const StridedCopy& c, size_t element_size) {
  const int rank = static_cast<int>(c.dims.size());
  const int64_t total = Product(c.dims, 0, rank);
  const int64_t bytes = total * static_cast<int64_t>(element_size);
  const int64_t inner = c.dims[rank - 1];
  const int64_t dst_inner = c.dst_strides[rank - 1];
  const int64_t src_inner = c.src_strides[rank - 1];

  // Contiguous runs on both sides.
  if (dst_inner == 1 && src_inner == 1) {
    const size_t run = static_cast<size_t>(inner) * sizeof(T);
    Spread(context, total / inner, bytes, [&](int64_t begin, int64_t end) {
      ForEachOuter(c, rank - 1, begin, end, [&](int64_t d, int64_t s) {
        std::memcpy(dst + d, src + s, run);
      });
    });
    return;
  }

  // A transpose: the destination's innermost dim is strided in the source
  // while some other dim j is the source's contiguous one. Copy tiles of
  // (j, innermost), moving j to just before the innermost in the walk.
  int j = -1;
  if (dst_inner == 1 && rank >= 2) {
    for (int d = rank - 2; d >= 0; --d) {
      if (c.src_strides[d] == 1) {
        j = d;
        break;
      }
    }
  }
  if (j >= 0) {
    StridedCopy outer;  // every dim but j and the innermost
    for (int d = 0; d < rank - 1; ++d) {
      if (d == j) continue;
      outer.dims.push_back(c.dims[d]);
      outer.dst_strides.push_back(c.dst_strides[d]);
      outer.src_strides.push_back(c.src_strides[d]);
    }
    const int outer_rank = static_cast<int>(outer.dims.size());
    const int64_t rows = c.dims[j];
    const int64_t dst_row = c.dst_strides[j];
    const int64_t tiles_r = (rows + kTile - 1) / kTile;
    const int64_t tiles_c = (inner + kTile - 1) / kTile;
    const int64_t outer_count = Product(outer.dims, 0, outer_rank);
    // Parallel over (outer position, row tile).
    Spread(context, outer_count * tiles_r, bytes, [&](int64_t begin,
                                                      int64_t end) {
      for (int64_t task = begin; task < end; ++task) {
        const int64_t o = task / tiles_r, tr = task % tiles_r;
        ForEachOuter(outer, outer_rank, o, o + 1, [&](int64_t d0, int64_t s0) {
          const int64_t r0 = tr * kTile, r1 = std::min(rows, r0 + kTile);
          for (int64_t tc = 0; tc < tiles_c; ++tc) {
            const int64_t c0 = tc * kTile, c1 = std::min(inner, c0 + kTile);
            // Reads walk the source's contiguous rows (r), writes walk the
            // destination's contiguous columns (k); the tile stays cached.
            for (int64_t k = c0; k < c1; ++k) {
              T* out = dst + d0 + k;
              const T* in = src + s0 + k * src_inner;
              for (int64_t r = r0; r < r1; ++r) out[r * dst_row] = in[r];
            }
          }
        });
      }
    });
    return;
  }

  // Anything else: element by element along the innermost dim.
  Spread(context, total / inner, bytes, [&](int64_t begin, int64_t end) {
    ForEachOuter(c, rank - 1, begin, end, [&](int64_t d, int64_t s) {
      T* out = dst + d;
      const T* in = src + s;
      for (int64_t k = 0; k < inner; ++k) {
        out[k * dst_inner] = in[k * src_inner];
      }
    });
  });
}

}  // namespace

std::vector<int64_t> ContiguousStrides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
    strides[d] = strides[d + 1] * dims[d + 1];
  }
  return strides;
}

StridedCopy Coalesce(const StridedCopy& copy) {
  StridedCopy out;
  for (size_t d = 0; d < copy.dims.size(); ++d) {
    const int64_t n = copy.dims[d];
    if (n == 1) continue;
    if (!out.dims.empty() &&
        out.dst_strides.back() == copy.dst_strides[d] * n &&
        out.src_strides.back() == copy.src_strides[d] * n) {
      out.dims.back() *= n;
      out.dst_strides.back() = copy.dst_strides[d];
      out.src_strides.back() = copy.src_strides[d];
      continue;
    }
    out.dims.push_back(n);
    out.dst_strides.push_back(copy.dst_strides[d]);
    out.src_strides.push_back(copy.src_strides[d]);
  }
  if (out.dims.empty()) out = {{1}, {1}, {1}};
  return out;
}

void RunStridedCopy(const CpuContext& context, void* dst, const void* src,
                    size_t element_size, const StridedCopy& copy) {
  for (int64_t n : copy.dims) {
    if (n == 0) return;
  }
  const StridedCopy c = Coalesce(copy);
  switch (element_size) {
    case 1:
      CopyTyped(context, static_cast<uint8_t*>(dst),
                static_cast<const uint8_t*>(src), c, element_size);
      break;
    case 2:
      CopyTyped(context, static_cast<uint16_t*>(dst),
                static_cast<const uint16_t*>(src), c, element_size);
      break;
    case 4:
      CopyTyped(context, static_cast<uint32_t*>(dst),
                static_cast<const uint32_t*>(src), c, element_size);
      break;
    default:
      CopyTyped(context, static_cast<uint64_t*>(dst),
                static_cast<const uint64_t*>(src), c, element_size);
      break;
  }
}

}  // namespace cpu
}  // namespace switchyard
