#ifndef SWITCHYARD_OPS_DROPOUT_ATTRS_H_
#define SWITCHYARD_OPS_DROPOUT_ATTRS_H_

// The attributes of dropout as a typed struct (ops/attr_fields.h).
//
//   DropoutAttrs d;
//   d.p = 0.1;  // kept for the record: dropout is the identity at inference

#include <cstdint>

#include "ops/attr_fields.h"

namespace switchyard {

// dropout at inference, as torch.nn.functional.dropout(training=False).
struct DropoutAttrs {
  SY_ATTR_STRUCT(DropoutAttrs);
  static constexpr const char* kOp = "dropout";
  double p = 0.5;  // the drop probability

  static void DeclareFields(AttrFields<DropoutAttrs>& f) {
    f.Field("p", &DropoutAttrs::p)
        .InRange(0, 1, "a probability in [0, 1]")
        .Doc("unused at inference");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_DROPOUT_ATTRS_H_
