#ifndef SWITCHYARD_CORE_PREPARED_WEIGHTS_H_
#define SWITCHYARD_CORE_PREPARED_WEIGHTS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/buffer.h"
#include "core/tensor.h"

namespace switchyard {

// Weights a kernel transforms at creation (Winograd's G g G^T, a packed
// GEMM operand, a oneDNN reorder), kept by a device and shared by every
// plan that prepares the same constant the same way: a model compiled for
// many input shapes (a staged run's segments, one plan per batch size)
// transforms each weight once, not once per plan.
//
// Entries are keyed by the constant's buffer and `how` (which transform, and
// whatever it depends on besides the values). A model's parameters are never
// written in place (loading new values makes new tensors), so a live buffer
// always holds the values it was prepared from. Nothing is kept alive by the
// cache: an entry lives while a kernel holds its result and its source
// buffer exists.
//
//   std::shared_ptr<const Packed> u = device.prepared_weights().Get<Packed>(
//       weight_tensor, "winograd4", [&] { return Transform(weight); });
class PreparedWeights {
 public:
  struct Stats {
    int64_t prepared = 0;  // transforms run
    int64_t reused = 0;    // ... and avoided
  };

  // The prepared form of `source` (whose buffer must be defined), made by
  // `make` unless a live kernel already holds it. Every caller of one `how`
  // must ask for the same T.
  template <typename T>
  std::shared_ptr<const T> Get(const Tensor& source, const std::string& how,
                               const std::function<T()>& make) {
    return std::static_pointer_cast<const T>(
        GetErased(source, how, [&]() -> std::shared_ptr<const void> {
          return std::make_shared<const T>(make());
        }));
  }

  Stats stats() const;

 private:
  std::shared_ptr<const void> GetErased(
      const Tensor& source, const std::string& how,
      const std::function<std::shared_ptr<const void>()>& make);

  struct Entry {
    std::weak_ptr<Buffer> source;
    std::weak_ptr<const void> prepared;
  };
  mutable absl::Mutex mu_;
  std::map<std::pair<const Buffer*, std::string>, Entry> entries_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PREPARED_WEIGHTS_H_
