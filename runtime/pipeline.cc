#include "runtime/pipeline.h"

#include <time.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/status_macros.h"
#include "data/loader_profile.h"

namespace switchyard {
namespace runtime {
namespace {

using Clock = std::chrono::steady_clock;

// One staged host buffer and the batch in it: memory the device uploads
// from fastest (BackendDevice::AllocateHostStaging; page-locked on a GPU).
struct Staged {
  std::shared_ptr<void> block;
  absl::Span<float> values;
  int index = -1;
  int loader = -1;
  Clock::time_point load_start, load_end;
  double load_cpu_ms = -1, load_core_wait_ms = -1;
  std::vector<data::StageSpan> spans;  // with PipelineOptions::load_batch
};

// A bounded blocking queue of staged batches that can be cancelled.
class StagedQueue {
 public:
  explicit StagedQueue(size_t capacity) : capacity_(capacity) {}

  // False when cancelled.
  bool Push(Staged* s) {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &StagedQueue::CanPush));
    if (cancelled_) return false;
    items_.push_back(s);
    return true;
  }
  // Null when nothing is ready yet, or when cancelled.
  Staged* TryPop() {
    absl::MutexLock lock(&mu_);
    if (cancelled_ || items_.empty()) return nullptr;
    Staged* s = items_.front();
    items_.pop_front();
    return s;
  }
  // Null when cancelled.
  Staged* Pop() {
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(this, &StagedQueue::CanPop));
    if (cancelled_) return nullptr;
    Staged* s = items_.front();
    items_.pop_front();
    return s;
  }
  void Cancel() {
    absl::MutexLock lock(&mu_);
    cancelled_ = true;
  }

 private:
  bool CanPush() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return cancelled_ || items_.size() < capacity_;
  }
  bool CanPop() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return cancelled_ || !items_.empty();
  }

  const size_t capacity_;
  absl::Mutex mu_;
  std::deque<Staged*> items_ ABSL_GUARDED_BY(mu_);
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

// This thread's time waiting on a run queue (ready, no free core), in ms,
// from Linux's schedstat; -1 when unavailable.
double ThreadCoreWaitMs() {
  std::FILE* f = std::fopen("/proc/thread-self/schedstat", "r");
  if (f == nullptr) return -1;
  unsigned long long on_cpu_ns = 0, waiting_ns = 0;
  const int read = std::fscanf(f, "%llu %llu", &on_cpu_ns, &waiting_ns);
  std::fclose(f);
  return read == 2 ? waiting_ns * 1e-6 : -1;
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

// Values of batch `index`: a cheap xorshift stream in [-1, 1) (the model's
// speed does not depend on them).
void Fill(absl::Span<float> values, uint64_t seed, int index) {
  uint64_t x = (seed + 1) * 0x9E3779B97F4A7C15ull + static_cast<uint64_t>(index) + 1;
  for (float& v : values) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = static_cast<float>(x >> 40) * (2.0f / 16777216.0f) - 1.0f;
  }
}

// C ms of this thread's CPU time spent on the batch, as normalization and
// augmentation would: passes of a bounded affine map over every value.
void BusyWork(absl::Span<float> values, double cost_ms) {
  const double until = ThreadCpuMs() + cost_ms;
  float scale = 0.5f;
  while (ThreadCpuMs() < until) {
    for (float& v : values) v = v * scale + 0.25f;
    scale = scale == 0.5f ? 1.5f : 0.5f;  // keep values bounded: ~[-1, 2]
  }
}

Interval ToInterval(const ProfileEvent& e) {
  return {e.start_us / 1e3, (e.start_us + e.duration_us) / 1e3};
}

}  // namespace

absl::StatusOr<PipelineResult> RunPipeline(ExecutablePlan& plan,
                                           const Tensor& input,
                                           const PipelineOptions& options,
                                           BackendRegistry& registry) {
  if (options.batches < 1 || options.loader_threads < 1 || options.prefetch < 1 ||
      options.loader_cost_ms < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--batches, --loader-threads and --prefetch must be >= 1 and "
        "--loader-cost-ms >= 0, got ",
        options.batches, ", ", options.loader_threads, ", ", options.prefetch,
        " and ", options.loader_cost_ms));
  }
  SY_ASSIGN_OR_RETURN(BackendDevice * in_device, registry.GetDevice(input.device()));
  const int64_t elements = input.num_elements();
  const size_t in_bytes = input.size_bytes();

  // Staged host buffers: K in the queue, one per loader, one being uploaded.
  const int pool_size = options.prefetch + options.loader_threads + 1;
  std::vector<std::unique_ptr<Staged>> pool;
  StagedQueue free_buffers(pool_size);
  for (int i = 0; i < pool_size; ++i) {
    pool.push_back(std::make_unique<Staged>());
    SY_ASSIGN_OR_RETURN(pool.back()->block,
                        in_device->AllocateHostStaging(elements * sizeof(float)));
    pool.back()->values =
        absl::MakeSpan(static_cast<float*>(pool.back()->block.get()), elements);
    free_buffers.Push(pool.back().get());
  }
  // Device inputs: batch b goes to slot b % 2, so that the next batch's
  // upload can run while this one's forward does.
  SY_ASSIGN_OR_RETURN(Tensor second_slot,
                      Tensor::Empty(input.shape(), input.dtype(), *in_device));
  const Tensor slots[2] = {input, second_slot};
  StagedQueue ready(options.prefetch);

  const Clock::time_point origin = Clock::now();
  Profiler profiler(origin);
  std::atomic<int> next_batch{0};
  // The first load_batch error; it stops the stream.
  absl::Mutex error_mu;
  absl::Status load_error;
  auto fail = [&](absl::Status status) {
    {
      absl::MutexLock lock(&error_mu);
      if (load_error.ok()) load_error = std::move(status);
    }
    ready.Cancel();
    free_buffers.Cancel();
  };
  std::vector<std::thread> loaders;
  for (int t = 0; t < options.loader_threads; ++t) {
    loaders.emplace_back([&, t] {
      while (true) {
        const int index = next_batch.fetch_add(1);
        if (index >= options.batches) return;
        Staged* s = free_buffers.Pop();
        if (s == nullptr) return;
        s->index = index;
        s->loader = t;
        const double cpu0 = ThreadCpuMs();
        const double wait0 = ThreadCoreWaitMs();
        s->load_start = Clock::now();
        s->spans.clear();
        if (options.load_batch) {
          // Real work: the images of the batch (run --images).
          absl::Status status =
              options.load_batch(index, t, s->values, &s->spans);
          if (!status.ok()) {
            fail(std::move(status));
            return;
          }
        } else {
          Fill(s->values, options.seed, index);
          if (options.loader_work == PipelineOptions::LoaderWork::kBusy) {
            BusyWork(s->values, options.loader_cost_ms);
          } else {
            std::this_thread::sleep_until(
                s->load_start + std::chrono::duration<double, std::milli>(
                                    options.loader_cost_ms));
          }
        }
        s->load_end = Clock::now();
        s->load_cpu_ms = ThreadCpuMs() - cpu0;
        const double wait1 = ThreadCoreWaitMs();
        s->load_core_wait_ms = wait0 >= 0 && wait1 >= 0 ? wait1 - wait0 : -1;
        if (!ready.Push(s)) return;
      }
    });
  }

  PipelineResult result;
  Timeline& timeline = result.timeline;
  timeline.device = input.device().ToString();
  timeline.batch_size = input.shape().rank() > 0 ? input.shape().dim(0) : 1;
  timeline.loader_threads = options.loader_threads;
  timeline.prefetch = options.prefetch;
  // Outputs as bytes: a model's outputs may be of any dtype (int64 indices).
  std::vector<std::vector<char>> host_outputs;
  std::vector<std::pair<Clock::time_point, Clock::time_point>> waits;

  // The driver: the calling thread feeds the device one batch at a time.
  // A batch popped from the queue is uploaded with CopyFromHostAsync: the
  // next one, when it is ready, before this one's forward starts, so that on
  // a device with a copy stream its DMA runs beside this batch's kernels;
  // the forward waits on its own upload's event (WaitEvent), and a staged
  // buffer goes back to the loaders once its upload has happened.
  struct Popped {
    Staged* staged = nullptr;
    Clock::time_point wait_start, wait_end;
    std::unique_ptr<DeviceEvent> uploaded;
  };
  auto upload = [&](Popped& p, const Tensor& slot) -> absl::Status {
    return profiler.TimeCopy(
        *in_device, "input h2d", "h2d", input.shape(), in_bytes, [&]() -> absl::Status {
          SY_ASSIGN_OR_RETURN(p.uploaded, in_device->CopyFromHostAsync(
                                              p.staged->values.data(), *slot.buffer(),
                                              in_bytes));
          return absl::OkStatus();
        });
  };
  // Uploads in the order batches are popped, so the k-th h2d event is the
  // k-th batch's, whichever iteration timed it.
  std::deque<Interval> h2d_intervals;
  std::optional<Popped> next;
  auto drive = [&]() -> absl::Status {
    RunOptions run_options;
    run_options.profiler = &profiler;
    for (int b = 0; b < options.batches; ++b) {
      Popped current;
      if (next.has_value()) {
        current = std::move(*next);
        next.reset();
      } else {
        current.wait_start = Clock::now();
        current.staged = ready.Pop();
        current.wait_end = Clock::now();
        if (current.staged == nullptr) {
          absl::MutexLock lock(&error_mu);
          if (!load_error.ok()) return load_error;
          return absl::CancelledError("the input pipeline stopped");
        }
      }
      Staged* s = current.staged;
      waits.emplace_back(current.wait_start, current.wait_end);
      const Tensor& slot = slots[b % 2];
      const size_t first_event = profiler.events().size();
      SY_RETURN_IF_ERROR(profiler.BeginIteration(s->index));
      if (current.uploaded == nullptr) SY_RETURN_IF_ERROR(upload(current, slot));
      if (b + 1 < options.batches) {
        if (Staged* n = ready.TryPop()) {
          next.emplace();
          next->staged = n;
          next->wait_start = next->wait_end = Clock::now();
          SY_RETURN_IF_ERROR(upload(*next, slots[(b + 1) % 2]));
        }
      }
      BatchTimeline batch;
      batch.index = s->index;
      batch.loader = s->loader;
      batch.load = {profiler.ToUs(s->load_start) / 1e3, profiler.ToUs(s->load_end) / 1e3};
      batch.wait = {profiler.ToUs(current.wait_start) / 1e3,
                    profiler.ToUs(current.wait_end) / 1e3};
      batch.load_cpu_ms = s->load_cpu_ms;
      batch.load_core_wait_ms = s->load_core_wait_ms;
      ProfileEvent load;
      load.kind = ProfileEvent::Kind::kHost;
      load.name = absl::StrCat("load batch ", s->index);
      load.lane = absl::StrCat("loader ", s->loader);
      load.iteration = s->index;
      load.start_us = profiler.ToUs(s->load_start);
      load.duration_us = profiler.ToUs(s->load_end) - load.start_us;
      data::AddLoaderEvents(profiler, s->loader, s->index, s->spans);
      for (const data::StageSpan& span : s->spans) {
        timeline.loader_stage_ms[data::LoaderStageName(span.stage)] +=
            std::chrono::duration<double, std::milli>(span.end - span.start).count();
      }

      SY_RETURN_IF_ERROR(in_device->WaitEvent(*current.uploaded));
      SY_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, plan.Run({slot}, run_options));
      // Uploaded (the run waited for it): the loaders may reuse the buffer.
      SY_RETURN_IF_ERROR(current.uploaded->Synchronize());
      free_buffers.Push(s);
      host_outputs.resize(outputs.size());
      for (size_t i = 0; i < outputs.size(); ++i) {
        const Tensor& out = outputs[i];
        host_outputs[i].resize(out.size_bytes());
        SY_ASSIGN_OR_RETURN(BackendDevice * out_device, registry.GetDevice(out.device()));
        SY_RETURN_IF_ERROR(profiler.TimeCopy(
            *out_device, "output d2h", "d2h", out.shape(), out.size_bytes(), [&] {
              return out_device->CopyToHost(*out.buffer(), host_outputs[i].data(),
                                            out.size_bytes());
            }));
      }
      SY_RETURN_IF_ERROR(profiler.EndIteration());
      for (size_t e = first_event; e < profiler.events().size(); ++e) {
        const ProfileEvent& ev = profiler.events()[e];
        if (ev.lane != timeline.device) continue;
        if (ev.kind == ProfileEvent::Kind::kRun) batch.forward = ToInterval(ev);
        if (ev.kind == ProfileEvent::Kind::kCopy && ev.op == "h2d") {
          h2d_intervals.push_back(ToInterval(ev));
        }
        if (ev.kind == ProfileEvent::Kind::kCopy && ev.op == "d2h") batch.d2h = ToInterval(ev);
      }
      if (!h2d_intervals.empty()) {
        batch.h2d = h2d_intervals.front();
        h2d_intervals.pop_front();
      }
      timeline.batches.push_back(batch);
      profiler.AddEvent(std::move(load));
      if (options.on_outputs) SY_RETURN_IF_ERROR(options.on_outputs(batch.index, outputs));
    }
    return absl::OkStatus();
  };
  absl::Status status = drive();
  // A batch uploaded ahead of a failed one may still be in flight: its
  // staged buffer is freed below.
  const absl::Status drained = in_device->Synchronize();
  if (status.ok()) status = drained;
  const Clock::time_point end = Clock::now();
  ready.Cancel();
  free_buffers.Cancel();
  for (std::thread& t : loaders) t.join();
  SY_RETURN_IF_ERROR(status);

  timeline.run = {0, profiler.ToUs(end) / 1e3};
  for (const auto& [start, stop] : waits) {
    if (stop - start < std::chrono::microseconds(1)) continue;
    profiler.AddHostEvent("driver", "wait for input", start, stop);
  }
  result.events = profiler.events();
  result.origin = origin;
  for (const ProfileEvent& e : result.events) {
    if (!e.is_work()) continue;
    timeline.device_spans.push_back({e.lane, e.name, e.op, ToInterval(e)});
  }
  return result;
}

}  // namespace runtime
}  // namespace switchyard
