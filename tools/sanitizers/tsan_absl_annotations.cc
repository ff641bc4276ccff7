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
// the destructor, LockWhen/ReaderLockWhen (lock) and CondVar::Wait*
// (unlock + lock). Not covered, because nothing in Switchyard uses them:
// Mutex::Await* and the timed LockWhen variants; a TSan report whose stack
// goes through them would need an annotation added here, not a suppression.
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

using MutexMethod = void (*)(absl::Mutex*);
using MutexTryMethod = bool (*)(absl::Mutex*);
using LockWhenMethod = void (*)(absl::Mutex*, const absl::Condition&);
using CondVarWait = void (*)(absl::CondVar*, absl::Mutex*);
using CondVarWaitTimeout = bool (*)(absl::CondVar*, absl::Mutex*,
                                    absl::Duration);
using CondVarWaitDeadline = bool (*)(absl::CondVar*, absl::Mutex*, absl::Time);

// TSan's view of a CondVar wait: the mutex is released while waiting and
// held again on return.
void BeforeWait(absl::Mutex* mu) {
  __tsan_mutex_pre_unlock(mu, 0);
  __tsan_mutex_post_unlock(mu, 0);
}
void AfterWait(absl::Mutex* mu) {
  __tsan_mutex_pre_lock(mu, 0);
  __tsan_mutex_post_lock(mu, 0, 0);
}

}  // namespace

namespace absl {
ABSL_NAMESPACE_BEGIN

Mutex::~Mutex() {
  static const MutexMethod real = Real<MutexMethod>("5MutexD2Ev");
  __tsan_mutex_destroy(this, __tsan_mutex_not_static);
  real(this);
}

void Mutex::Lock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex4LockEv");
  __tsan_mutex_pre_lock(this, 0);
  real(this);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::Unlock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex6UnlockEv");
  __tsan_mutex_pre_unlock(this, 0);
  real(this);
  __tsan_mutex_post_unlock(this, 0);
}

bool Mutex::TryLock() {
  static const MutexTryMethod real = Real<MutexTryMethod>("5Mutex7TryLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(
      this, locked ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
  return locked;
}

void Mutex::ReaderLock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex10ReaderLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

void Mutex::ReaderUnlock() {
  static const MutexMethod real = Real<MutexMethod>("5Mutex12ReaderUnlockEv");
  __tsan_mutex_pre_unlock(this, __tsan_mutex_read_lock);
  real(this);
  __tsan_mutex_post_unlock(this, __tsan_mutex_read_lock);
}

bool Mutex::ReaderTryLock() {
  static const MutexTryMethod real =
      Real<MutexTryMethod>("5Mutex13ReaderTryLockEv");
  __tsan_mutex_pre_lock(this, __tsan_mutex_try_read_lock);
  const bool locked = real(this);
  __tsan_mutex_post_lock(this,
                         locked ? __tsan_mutex_try_read_lock
                                : __tsan_mutex_try_read_lock_failed,
                         0);
  return locked;
}

void Mutex::LockWhen(const Condition& cond) {
  static const LockWhenMethod real =
      Real<LockWhenMethod>("5Mutex8LockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, 0);
  real(this, cond);
  __tsan_mutex_post_lock(this, 0, 0);
}

void Mutex::ReaderLockWhen(const Condition& cond) {
  static const LockWhenMethod real =
      Real<LockWhenMethod>("5Mutex14ReaderLockWhenERKNS0_9ConditionE");
  __tsan_mutex_pre_lock(this, __tsan_mutex_read_lock);
  real(this, cond);
  __tsan_mutex_post_lock(this, __tsan_mutex_read_lock, 0);
}

void CondVar::Wait(Mutex* mu) {
  static const CondVarWait real =
      Real<CondVarWait>("7CondVar4WaitEPNS0_5MutexE");
  BeforeWait(mu);
  real(this, mu);
  AfterWait(mu);
}

bool CondVar::WaitWithTimeout(Mutex* mu, Duration timeout) {
  static const CondVarWaitTimeout real = Real<CondVarWaitTimeout>(
      "7CondVar15WaitWithTimeoutEPNS0_5MutexENS0_8DurationE");
  BeforeWait(mu);
  const bool timed_out = real(this, mu, timeout);
  AfterWait(mu);
  return timed_out;
}

bool CondVar::WaitWithDeadline(Mutex* mu, Time deadline) {
  static const CondVarWaitDeadline real = Real<CondVarWaitDeadline>(
      "7CondVar16WaitWithDeadlineEPNS0_5MutexENS0_4TimeE");
  BeforeWait(mu);
  const bool timed_out = real(this, mu, deadline);
  AfterWait(mu);
  return timed_out;
}

ABSL_NAMESPACE_END
}  // namespace absl

// Suppressions compiled into every TSan binary; none are needed. Format:
// one "race:function_or_file" per line, each with a comment giving the
// reason the report is a false positive.
extern "C" const char* __tsan_default_suppressions() { return ""; }

#endif  // SY_TSAN
