#ifndef SWITCHYARD_OPS_GATHER_SCATTER_ATTRS_H_
#define SWITCHYARD_OPS_GATHER_SCATTER_ATTRS_H_

// The attributes of the ops that read or write at positions given by data
// (ONNX GatherElements, GatherND, ScatterElements, ScatterND; Gather's are
// in shape_attrs.h). Checks that need the operands' shapes are the ops'.
//
//   ScatterElementsAttrs a;
//   a.axis = 1;
//   a.reduction = ScatterReduction::kAdd;  // duplicates accumulate
//   graph.AddNode("scatter_elements", "", {data, indices, updates},
//                 a.ToAttrMap());

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ops/attr_fields.h"

namespace switchyard {

struct GatherElementsAttrs {
  SY_ATTR_STRUCT(GatherElementsAttrs);
  static constexpr const char* kOp = "gather_elements";
  int64_t axis = 0;  // ONNX's default

  static void DeclareFields(AttrFields<GatherElementsAttrs>& f) {
    f.Field("axis", &GatherElementsAttrs::axis)
        .Doc("the dim the indices pick along (negative from the end)");
  }
};

struct GatherNdAttrs {
  SY_ATTR_STRUCT(GatherNdAttrs);
  static constexpr const char* kOp = "gather_nd";
  int64_t batch_dims = 0;

  static void DeclareFields(AttrFields<GatherNdAttrs>& f) {
    f.Field("batch_dims", &GatherNdAttrs::batch_dims)
        .AtLeast(0)
        .Doc("leading dims that data and indices share, gathered within");
  }
};

// How an update combines with the element it lands on (ONNX's reduction).
enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

inline std::vector<std::pair<ScatterReduction, std::string>> ScatterReductionNames() {
  return {{ScatterReduction::kNone, "none"},
          {ScatterReduction::kAdd, "add"},
          {ScatterReduction::kMul, "mul"},
          {ScatterReduction::kMax, "max"},
          {ScatterReduction::kMin, "min"}};
}

struct ScatterElementsAttrs {
  SY_ATTR_STRUCT(ScatterElementsAttrs);
  static constexpr const char* kOp = "scatter_elements";
  int64_t axis = 0;
  ScatterReduction reduction = ScatterReduction::kNone;

  static void DeclareFields(AttrFields<ScatterElementsAttrs>& f) {
    f.Field("axis", &ScatterElementsAttrs::axis)
        .Doc("the dim the indices point along (negative from the end)");
    f.Enum("reduction", &ScatterElementsAttrs::reduction, ScatterReductionNames())
        .Doc("none replaces; add, mul, max, min combine, in index order");
  }
};

struct ScatterNdAttrs {
  SY_ATTR_STRUCT(ScatterNdAttrs);
  static constexpr const char* kOp = "scatter_nd";
  ScatterReduction reduction = ScatterReduction::kNone;

  static void DeclareFields(AttrFields<ScatterNdAttrs>& f) {
    f.Enum("reduction", &ScatterNdAttrs::reduction, ScatterReductionNames())
        .Doc("none replaces; add, mul, max, min combine, in index order");
  }
};

}  // namespace switchyard

#endif  // SWITCHYARD_OPS_GATHER_SCATTER_ATTRS_H_
