#ifndef SWITCHYARD_ONNX_RELEASABLE_INITIALIZERS_H_
#define SWITCHYARD_ONNX_RELEASABLE_INITIALIZERS_H_

// A model file's large float initializers, once loaded as parameters, made
// releasable (core/releasable_weights.h): each can be read back from its
// raw_data's range of the file, so that the plain copy need not stay once a
// kernel holds its own. Only a parameter whose bytes equal that range
// exactly takes part (not one converted to another dtype, nor one a
// conversion at load rewrote); reading back checks a checksum of the bytes,
// so a file changed since loading is an error naming it.
//
//   RegisterReleasableInitializers(path, model.NamedParameters());

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"

namespace switchyard {
namespace onnx_import {

// Returns how many parameters were registered (0 when the file cannot be
// read again or nothing qualifies; never an error: the weights then simply
// stay).
int RegisterReleasableInitializers(
    const std::string& file, const std::vector<std::pair<std::string, const Tensor*>>& parameters);

}  // namespace onnx_import
}  // namespace switchyard

#endif  // SWITCHYARD_ONNX_RELEASABLE_INITIALIZERS_H_
