#ifndef SWITCHYARD_TESTS_FUZZ_FUZZ_CHOICES_H_
#define SWITCHYARD_TESTS_FUZZ_FUZZ_CHOICES_H_

// Choices: a fuzz input read as a stream of decisions, for the fuzz targets
// that build structured inputs (graphs, boxes) from bytes. Past the end
// every read is 0, so any prefix of an input is a complete program and
// libFuzzer's shrinking keeps working.
//
//   Choices c(data, size);
//   const int rank = c.Range(0, 4);            // two bytes
//   if (c.Bool()) { ... }                      // one byte
//   const float f = c.Float();                 // four bytes, raw bits
//   const int64_t edge = c.Pick(kEdgeValues);  // one byte

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace switchyard {
namespace fuzz {

class Choices {
 public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  bool Bool() { return Byte() & 1; }
  // Uniform-ish in [lo, hi] (hi - lo < 2^16).
  int64_t Range(int64_t lo, int64_t hi) {
    const uint16_t r = static_cast<uint16_t>(Byte() | (Byte() << 8));
    return lo + static_cast<int64_t>(r % static_cast<uint64_t>(hi - lo + 1));
  }
  // Any float, NaN and infinities included: the next 4 bytes' bits.
  float Float() {
    uint32_t bits = 0;
    for (int i = 0; i < 4; ++i) bits |= static_cast<uint32_t>(Byte()) << (8 * i);
    float f;
    std::memcpy(&f, &bits, sizeof(f));
    return f;
  }
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Byte() % items.size()];
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace fuzz
}  // namespace switchyard

#endif  // SWITCHYARD_TESTS_FUZZ_FUZZ_CHOICES_H_
