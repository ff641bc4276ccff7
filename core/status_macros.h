#ifndef SWITCHYARD_CORE_STATUS_MACROS_H_
#define SWITCHYARD_CORE_STATUS_MACROS_H_

// Abseil 20220623 (Debian 12) predates absl/status/status_macros.h, so the
// project keeps its own two macros.
//
//   SY_RETURN_IF_ERROR(Validate(node));
//   SY_ASSIGN_OR_RETURN(Tensor t, Tensor::FromVector(...));

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define SY_STATUS_CONCAT_INNER(a, b) a##b
#define SY_STATUS_CONCAT(a, b) SY_STATUS_CONCAT_INNER(a, b)

#define SY_RETURN_IF_ERROR(expr)                 \
  do {                                           \
    ::absl::Status sy_status_ = (expr);          \
    if (!sy_status_.ok()) return sy_status_;     \
  } while (0)

#define SY_ASSIGN_OR_RETURN(lhs, expr)                                   \
  SY_ASSIGN_OR_RETURN_IMPL(SY_STATUS_CONCAT(sy_statusor_, __LINE__), lhs, \
                           expr)

#define SY_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                             \
  if (!statusor.ok()) return statusor.status();       \
  lhs = std::move(statusor).value()

#endif  // SWITCHYARD_CORE_STATUS_MACROS_H_
