#ifndef SWITCHYARD_OPS_FUNCTOR_ATTRS_H_
#define SWITCHYARD_OPS_FUNCTOR_ATTRS_H_

// Host-only glue between the attribute column of the elementwise op lists
// (ops/unary_functors.h, ops/binary_functors.h) and the typed attribute
// structs (ops/elementwise_attrs.h): the op's attribute declaration, their
// validation, and the functor made from a node's attributes. With it no
// kernel file has per-op attribute code:
//
//   SY_ASSIGN_OR_RETURN(unary::Clip<float> clip,
//                       (FunctorFromAttrs<unary::Clip<float>, ClipAttrs>(
//                           node.attrs)));

#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/attributes.h"
#include "core/op_def.h"
#include "core/status_macros.h"
#include "ops/elementwise_attrs.h"
#include "ops/elementwise_list_types.h"

namespace switchyard {

// Declares Attrs as `schema`'s attributes (Attrs::DeclareIn); nothing for
// NoAttrs.
template <typename Attrs>
void DeclareAttrsIn(OpSchema& schema) {
  if constexpr (!std::is_same_v<Attrs, NoAttrs>) Attrs::DeclareIn(schema);
}

// Checks `attrs` through the typed struct (OK for NoAttrs).
template <typename Attrs>
absl::Status ValidateAttrs(const AttrMap& attrs) {
  if constexpr (std::is_same_v<Attrs, NoAttrs>) {
    return absl::OkStatus();
  } else {
    return Attrs::FromAttrMap(attrs).status();
  }
}

// The functor of a node: F::FromAttrs(Attrs::FromAttrMap(attrs)), or F{}
// for NoAttrs.
template <typename F, typename Attrs>
absl::StatusOr<F> FunctorFromAttrs(const AttrMap& attrs) {
  if constexpr (std::is_same_v<Attrs, NoAttrs>) {
    return F{};
  } else {
    SY_ASSIGN_OR_RETURN(Attrs typed, Attrs::FromAttrMap(attrs));
    return F::FromAttrs(typed);
  }
}

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_FUNCTOR_ATTRS_H_
