// The slot ring of staged copies against fake steps whose "DMA" happens
// only when the slot is waited for (or at the end, as the stream drains):
// a host write into a slot whose copy has not been waited for would corrupt
// the data, and the fakes also fail such a step outright.

#include "backends/cuda/staging_ring.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace switchyard {
namespace cuda {
namespace {

class FakeSteps : public StagingSteps {
 public:
  FakeSteps(int slots, size_t chunk_bytes, std::vector<uint8_t>* host,
            std::vector<uint8_t>* device)
      : slots_(slots, std::vector<uint8_t>(chunk_bytes)),
        in_flight_(slots),
        host_(host),
        device_(device) {}

  absl::Status WaitForSlot(int slot) override {
    ++waits;
    Complete(slot);
    return absl::OkStatus();
  }
  void FillSlot(int slot, size_t offset, size_t n) override {
    EXPECT_FALSE(in_flight_[slot].active) << "filled slot " << slot << " in flight";
    std::memcpy(slots_[slot].data(), host_->data() + offset, n);
  }
  void EmptySlot(int slot, size_t offset, size_t n) override {
    EXPECT_FALSE(in_flight_[slot].active) << "emptied slot " << slot << " in flight";
    std::memcpy(host_->data() + offset, slots_[slot].data(), n);
  }
  absl::Status QueueCopy(int slot, size_t offset, size_t n) override {
    EXPECT_FALSE(in_flight_[slot].active) << "queued slot " << slot << " twice";
    in_flight_[slot] = {true, upload, offset, n};
    order.push_back(slot);
    return fail_queue ? absl::InternalError("fake") : absl::OkStatus();
  }
  // The stream drains: every queued DMA happens.
  void Drain() {
    for (int s = 0; s < static_cast<int>(slots_.size()); ++s) Complete(s);
  }

  bool upload = true;
  bool fail_queue = false;
  int waits = 0;
  std::vector<int> order;

 private:
  struct InFlight {
    bool active = false;
    bool up = true;  // the direction when it was queued
    size_t offset = 0;
    size_t n = 0;
  };
  void Complete(int slot) {
    InFlight& f = in_flight_[slot];
    if (!f.active) return;
    if (f.up) {
      std::memcpy(device_->data() + f.offset, slots_[slot].data(), f.n);
    } else {
      std::memcpy(slots_[slot].data(), device_->data() + f.offset, f.n);
    }
    f.active = false;
  }

  std::vector<std::vector<uint8_t>> slots_;
  std::vector<InFlight> in_flight_;
  std::vector<uint8_t>* host_;
  std::vector<uint8_t>* device_;
};

std::vector<uint8_t> Pattern(size_t n, int seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(i * 7 + seed);
  return v;
}

TEST(StagingRingTest, UploadsOfEverySizeArriveWhole) {
  for (int slots : {1, 2, 4}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17},
                         size_t{100}, size_t{16 * 9 + 5}}) {
      StagingRing ring(slots, 16);
      std::vector<uint8_t> host = Pattern(bytes, 3);
      std::vector<uint8_t> device(bytes, 0);
      FakeSteps steps(slots, 16, &host, &device);
      ASSERT_TRUE(ring.Upload(bytes, steps).ok());
      steps.Drain();
      EXPECT_EQ(device, host) << slots << " slots, " << bytes << " bytes";
    }
  }
}

TEST(StagingRingTest, DownloadsOfEverySizeArriveWhole) {
  for (int slots : {1, 2, 4}) {
    for (size_t bytes : {size_t{0}, size_t{1}, size_t{16}, size_t{17},
                         size_t{16 * 9 + 5}}) {
      StagingRing ring(slots, 16);
      std::vector<uint8_t> device = Pattern(bytes, 5);
      std::vector<uint8_t> host(bytes, 0);
      FakeSteps steps(slots, 16, &host, &device);
      steps.upload = false;
      ASSERT_TRUE(ring.Download(bytes, steps).ok());
      EXPECT_EQ(host, device) << slots << " slots, " << bytes << " bytes";
      for (int s = 0; s < slots; ++s) EXPECT_FALSE(ring.pending(s));
    }
  }
}

TEST(StagingRingTest, SmallUploadsTakeTurnsWithoutWaiting) {
  StagingRing ring(4, 16);
  std::vector<uint8_t> host = Pattern(8, 1);
  std::vector<uint8_t> device(8, 0);
  FakeSteps steps(4, 16, &host, &device);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(ring.Upload(8, steps).ok());
  EXPECT_EQ(steps.order, (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(steps.waits, 0);  // four slots, four copies: nobody waits
  ASSERT_TRUE(ring.Upload(8, steps).ok());
  EXPECT_EQ(steps.order.back(), 0);
  EXPECT_EQ(steps.waits, 1);  // slot 0 is reused only after its copy
}

TEST(StagingRingTest, ADownloadAfterAnUploadWaitsForTheUploadsSlots) {
  const size_t bytes = 16 * 3;
  StagingRing ring(2, 16);
  const std::vector<uint8_t> values = Pattern(bytes, 2);
  std::vector<uint8_t> host = values;
  std::vector<uint8_t> device(bytes, 0);
  FakeSteps steps(2, 16, &host, &device);
  ASSERT_TRUE(ring.Upload(bytes, steps).ok());
  // The last chunks' DMAs are still in flight: the download must wait for
  // them before it queues through their slots (which completes them).
  EXPECT_TRUE(ring.pending(0) || ring.pending(1));
  host.assign(bytes, 0);
  steps.upload = false;
  ASSERT_TRUE(ring.Download(bytes, steps).ok());
  EXPECT_EQ(device, values);
  EXPECT_EQ(host, values);
}

TEST(StagingRingTest, AFailedQueueLeavesTheSlotToBeWaitedFor) {
  StagingRing ring(1, 16);
  std::vector<uint8_t> host = Pattern(16, 4);
  std::vector<uint8_t> device(16, 0);
  FakeSteps steps(1, 16, &host, &device);
  steps.fail_queue = true;
  EXPECT_FALSE(ring.Upload(16, steps).ok());
  EXPECT_TRUE(ring.pending(0));
  steps.fail_queue = false;
  ASSERT_TRUE(ring.Upload(16, steps).ok());
  EXPECT_EQ(steps.waits, 1);
}

}  // namespace
}  // namespace cuda
}  // namespace switchyard
