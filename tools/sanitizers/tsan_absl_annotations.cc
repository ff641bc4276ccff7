// ThreadSanitizer annotations for Debian's uninstrumented Abseil mutexes.
// Linked into every binary of `--config=tsan` (.bazelrc: --custom_malloc).
//
// Why: libabsl_synchronization.so from Debian is compiled without
// -fsanitize=thread. absl::Mutex locks with atomics and futex system calls
// inside that library, which TSan never sees, so without help it knows of no
// happens-before edge between an Unlock on one thread and the next Lock on
// another and reports every ABSL_GUARDED_BY member touched from two threads
// as a data race (checked: models/concurrency_test fails that way without
// this file). Suppressing those reports would hide real races on the same
// data, so instead this file interposes the Mutex and CondVar entry points:
// each definition here wins over the library's at dynamic link time (the
// executable comes first in symbol lookup), tells TSan what is about to
// happen with the same __tsan_mutex_* annotations Abseil itself uses when it
// is built with TSan (absl/base/internal/tsan_mutex_interface.h), and calls
// the library's own function, found with dlsym(RTLD_NEXT). TSan then treats
// absl::Mutex like a pthread mutex: happens-before, lock-order inversion
// (potential deadlock) reports, and "unlock of an unlocked mutex" checks.
//
// Covered: Lock, Unlock, TryLock, ReaderLock, ReaderUnlock, ReaderTryLock,
// the destructor, every LockWhen variant (lock), and Mutex::Await* and
// CondVar::Wait* (unlock + lock). The library evaluates absl::Condition
// callbacks inside these calls, sometimes on the unlocking thread; TSan
// ignores memory accesses during them (between the pre and post
// annotations), as it does for Abseil built with TSan. A TSan report whose
// stack goes through another absl::Mutex entry point needs an annotation
// here, not a suppression.
//
// Suppressions: none. __tsan_default_suppressions below is where one would
// go, each with the reason it is a false positive.

#if defined(__SANITIZE_THREAD__)  // GCC
#define SY_TSAN 1
#elif defined(__has_feature)  // Clang
#if __has_feature(thread_sanitizer)
#define SY_TSAN 1
#endif
#endif

// Outside a TSan build (`bazel build //...` compiles this file too) there is
// nothing to annotate and the file is empty.
#ifdef SY_TSAN

#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/base/options.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

#define SY_STRINGIFY_INNER(x) #x
#define SY_STRINGIFY(x) SY_STRINGIFY_INNER(x)

namespace {

// "_ZN4absl" <len><inline namespace> <suffix>: the Itanium mangling of a
// member of absl::<inline namespace>, e.g. suffix "5Mutex4LockEv".
void* RealFunction(const char* suffix) {
  constexpr const char* kInlineNamespace =
      SY_STRINGIFY(ABSL_OPTION_INLINE_NAMESPACE_NAME);
  char name[256];
  std::snprintf(name, sizeof(name), "_ZN4absl%zu%s%s",
                std::strlen(kInlineNamespace), kInlineNamespace, suffix);
  void* real = dlsym(RTLD_NEXT, name);
  if (real == nullptr) {
    std::fprintf(stderr,
                 "tsan_absl_annotations: cannot find %s in the Abseil shared "
                 "libraries: %s\n",
                 name, dlerror());
    std::abort();
  }
  return real;
}

template <typename F>
F Real(const char* suffix) {
  return reinterpret_cast<F>(RealFunction(suffix));
}

// SWITCHYARD_TSAN_NO_ABSL_ANNOTATIONS=1 turns the annotations off (the
// functions below then only forward to Abseil), to see what TSan reports
// without them: `bazel test --config=tsan
// --test_env=SWITCHYARD_TSAN_NO_ABSL_ANNOTATIONS=1 //tests:concurrency_test`
// fails with reports on every ABSL_GUARDED_BY member it touches.
bool Enabled() {
  static const bool enabled =
      std::getenv("SWITCHYARD_TSAN_NO_ABSL_ANNOTATIONS") == nullptr;
  return enabled;
}
void PreLock(void* mu, unsigned flags) {
  if (Enabled()) __tsan_mutex_pre_lock(mu, flags);
}
void PostLock(void* mu, unsigned flags, int recursion) {
  if (Enabled()) __tsan_mutex_post_lock(mu, flags, recursion);
}
void PreUnlock(void* mu, unsigned flags) {
  if (Enabled()) __tsan_mutex_pre_unlock(mu, flags);
}
void PostUnlock(void* mu, unsigned flags) {
  if (Enabled()) __tsan_mutex_post_unlock(mu, flags);
}
void Destroy(void* mu, unsigned flags) {
  if (Enabled()) __tsan_mutex_destroy(mu, flags);
}

using MutexMethod = void (*)(absl::Mutex*);
using MutexTryMethod = bool (*)(absl::Mutex*);
using LockWhenMethod = void (*)(absl::Mutex*, const absl::Condition&);
using CondVarWait = void (*)(absl::CondVar*, absl::Mutex*);
using CondVarWaitTimeout = bool (*)(absl::CondVar*, absl::Mutex*,
                                    absl::Duration);
using CondVarWaitDeadline = bool (*)(absl::CondVar*, absl::Mutex*, absl::Time);

using AwaitMethod = void (*)(absl::Mutex*, const absl::Condition&);
using AwaitTimeoutMethod = bool (*)(absl::Mutex*, const absl::Condition&,
                                    absl::Duration);
using AwaitDeadlineMethod = bool (*)(absl::Mutex*, const absl::Condition&,
                                     absl::Time);
using LockWhenTimeoutMethod = AwaitTimeoutMethod;
using LockWhenDeadlineMethod = AwaitDeadlineMethod;

// Whether `mu`, held by the caller, is held in shared (reader) mode: the
// writer bit of Abseil's mutex word (kMuWriter = 0x8 in mutex.cc) is clear.
unsigned HeldModeFlags(const absl::Mutex* mu) {
  const intptr_t word =
      __atomic_load_n(reinterpret_cast<const intptr_t*>(mu), __ATOMIC_RELAXED);
  return (word & 0x8) != 0 ? 0 : __tsan_mutex_read_lock;
}

// A wait that releases `mu` and holds it again on return (CondVar::Wait*,
// Mutex::Await*). For TSan: released at the start, and everything the
// library does meanwhile ignored (it evaluates the caller's Condition while
// it holds the lock, which TSan cannot see), then acquired again.
template <typename F>
auto Waiting(absl::Mutex* mu, F wait) {
  const unsigned mode = HeldModeFlags(mu);
  PreUnlock(mu, mode);  // released; ignoring starts
  auto result = wait();
  PostUnlock(mu, mode);  // ignoring ends
  PreLock(mu, mode);
  PostLock(mu, mode, 0);  // held again
  return result;
}

// Taking the lock, possibly after waiting for a condition (LockWhen*):
// the library evaluates the Condition while TSan ignores accesses.
template <typename F>
auto Locking(absl::Mutex* mu, unsigned mode, F lock) {
  PreLock(mu, mode);
  auto result = lock();
  PostLock(mu, mode, 0);
  return result;
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

Mutex::~Mutex() {
  static const MutexMethod real = Real<MutexMethod>("5MutexD2Ev");
  Destroy(this, __tsan_mutex_not_static);
  real(this);
}

void Mutex::Lock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex4LockEv");
  PreLock(this, 0);
  real(this);
  PostLock(this, 0, 0);
}

void Mutex::Unlock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex6UnlockEv");
  PreUnlock(this, 0);
  real(this);
  PostUnlock(this, 0);
}

bool Mutex::TryLock() {
  static const MutexTryMethod real = Real<MutexTryMethod>("5Mutex7TryLockEv");
  PreLock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  PostLock(
      this, locked ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return locked;
}

void Mutex::ReaderLock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex10ReaderLockEv");
  PreLock(this, __tsan_mutex_read_lock);
  real(this);
  PostLock(this, __tsan_mutex_read_lock, 0);
}

void Mutex::ReaderUnlock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex12ReaderUnlockEv");
  PreUnlock(this, __tsan_mutex_read_lock);
  real(this);
  PostUnlock(this, __tsan_mutex_read_lock);
}

bool Mutex::ReaderTryLock() {
  static const MutexTryMethod real =
      Real<MutexTryMethod>("5Mutex13ReaderTryLockEv");
  PreLock(this, __tsan_mutex_try_read_lock);
  const bool locked = real(this);
  PostLock(this,
                         locked ? __tsan_mutex_try_read_lock
                                : __tsan_mutex_try_read_lock_failed,
                         0);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const LockWhenMethod real =
      Real<LockWhenMethod>("5Mutex8LockWhenERKNS0_9ConditionE");
  Locking(this, 0, [&] { return (real(this, cond), 0); });
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const LockWhenMethod real =
      Real<LockWhenMethod>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  Locking(this, __tsan_mutex_read_lock, [&] { return (real(this, cond), 0); });
}

bool Mutex::LockWhenWithTimeout(const Condition& cond, Duration timeout) {
  static const LockWhenTimeoutMethod real = Real<LockWhenTimeoutMethod>(
      "5Mutex19LockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(this, 0, [&] { return real(this, cond, timeout); });
}

bool Mutex::LockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const LockWhenDeadlineMethod real = Real<LockWhenDeadlineMethod>(
      "5Mutex20LockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(this, 0, [&] { return real(this, cond, deadline); });
}

bool Mutex::ReaderLockWhenWithTimeout(const Condition& cond,
                                      Duration timeout) {
  static const LockWhenTimeoutMethod real = Real<LockWhenTimeoutMethod>(
      "5Mutex25ReaderLockWhenWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Locking(this, __tsan_mutex_read_lock,
                 [&] { return real(this, cond, timeout); });
}

bool Mutex::ReaderLockWhenWithDeadline(const Condition& cond, Time deadline) {
  static const LockWhenDeadlineMethod real = Real<LockWhenDeadlineMethod>(
      "5Mutex26ReaderLockWhenWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Locking(this, __tsan_mutex_read_lock,
                 [&] { return real(this, cond, deadline); });
}

void Mutex::Await(const Condition& cond) {
  static const AwaitMethod real =
      Real<AwaitMethod>("5Mutex5AwaitERKNS0_9ConditionE");
  Waiting(this, [&] { return (real(this, cond), 0); });
}

bool Mutex::AwaitWithTimeout(const Condition& cond, Duration timeout) {
  static const AwaitTimeoutMethod real = Real<AwaitTimeoutMethod>(
      "5Mutex16AwaitWithTimeoutERKNS0_9ConditionENS0_8DurationE");
  return Waiting(this, [&] { return real(this, cond, timeout); });
}

bool Mutex::AwaitWithDeadline(const Condition& cond, Time deadline) {
  static const AwaitDeadlineMethod real = Real<AwaitDeadlineMethod>(
      "5Mutex17AwaitWithDeadlineERKNS0_9ConditionENS0_4TimeE");
  return Waiting(this, [&] { return real(this, cond, deadline); });
}

void CondVar::Wait(Mutex* mu) {
  static const CondVarWait real =
      Real<CondVarWait>("7CondVar4WaitEPNS0_5MutexE");
  Waiting(mu, [&] { return (real(this, mu), 0); });
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const CondVarWaitTimeout real = Real<CondVarWaitTimeout>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  return Waiting(mu, [&] { return real(this, mu, timeout); });
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const CondVarWaitDeadline real = Real<CondVarWaitDeadline>(
      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  return Waiting(mu, [&] { return real(this, mu, deadline); });
}

ABSL_NAMESPACE_END
}  // namespace absl

// Suppressions compiled into every TSan binary; none are needed. Format:
// one "race:function_or_file" per line, each with a comment giving the
// reason the report is a false positive.
extern "C" const char* __tsan_default_suppressions() { return ""; }

#endif  // SY_TSAN
