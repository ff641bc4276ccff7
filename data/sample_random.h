#ifndef SWITCHYARD_DATA_SAMPLE_RANDOM_H_
#define SWITCHYARD_DATA_SAMPLE_RANDOM_H_

#include <cstdint>

namespace switchyard {
namespace data {

// The random numbers of one sample's augmentation, seeded by the run's seed
// and the sample's position in the stream: the same sample gets the same
// crop and flip whichever loader thread takes it and however many there are.
// SplitMix64 (Steele, Lea, Flood 2014): small, fast, well mixed.
//
//   SampleRandom random(seed, position);
//   bool flip = random.Uniform(0, 1) < 0.5;
class SampleRandom {
 public:
  SampleRandom(uint64_t seed, uint64_t position)
      : state_(seed * 0x9E3779B97F4A7C15ull ^ (position + 0x632BE59BD9B4E019ull)) {
    Next();
  }

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // In [lo, hi).
  double Uniform(double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(Next() >> 11) * 0x1.0p-53;
  }
  // In [0, n) for n >= 1 (the modulo bias is below 2^-40 for image sizes).
  uint64_t Below(uint64_t n) { return Next() % n; }

 private:
  uint64_t state_;
};

}  // namespace data
}  // namespace switchyard

#endif  // SWITCHYARD_DATA_SAMPLE_RANDOM_H_
