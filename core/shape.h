#ifndef SWITCHYARD_CORE_SHAPE_H_
#define SWITCHYARD_CORE_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace switchyard {

// The dimensions of a dense, row-major (C order) tensor.
//
//   Shape s({1, 3, 224, 224});
//   s.rank() == 4; s.num_elements() == 150528; s.ToString() == "[1, 3, 224, 224]"
class Shape {
 public:
  Shape() = default;  // rank 0: a scalar with one element.
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Checks that every dimension is >= 0 and that the element count and the
  // byte size at `element_size` fit in int64 without overflow. Zero
  // dimensions are left out of that product, so no product of any subset
  // of the dimensions overflows either ([0, 2^62, 2^62] is rejected).
  static absl::StatusOr<Shape> Create(absl::Span<const int64_t> dims,
                                      size_t element_size = 4);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;

  std::string ToString() const;

  friend bool operator==(const Shape& a, const Shape& b) {
    return a.dims_ == b.dims_;
  }
  friend bool operator!=(const Shape& a, const Shape& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    return H::combine(std::move(h), s.dims_);
  }
  // Abseil 20220623 predates AbslStringify; gtest and logs use <<.
  friend std::ostream& operator<<(std::ostream& os, const Shape& s) {
    return os << s.ToString();
  }

 private:
  std::vector<int64_t> dims_;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_SHAPE_H_
