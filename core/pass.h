#ifndef SWITCHYARD_CORE_PASS_H_
#define SWITCHYARD_CORE_PASS_H_

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph.h"

namespace switchyard {

// A transformation or check over a Graph, as XLA's HloPassInterface:
// name() is kebab-case and Run returns whether the graph changed.
class Pass {
 public:
  virtual ~Pass() = default;
  virtual std::string name() const = 0;
  virtual absl::StatusOr<bool> Run(Graph& graph) = 0;
};

// Runs passes in order (XLA's HloPassPipeline); an error is prefixed with
// the failing pass's name, e.g. "strict-placement: node 'features.0/conv2d'
// ...". After each pass the graph's invariants are checked (VerifyGraph;
// set_verify(false) turns it off), and the graph can
// be dumped after a named pass, or after every one with "all".
//
//   PassPipeline pipeline;
//   pipeline.Add(std::make_unique<ShapeInferencePass>());
//   pipeline.set_dump_after("shape-inference", stderr);
//   absl::StatusOr<bool> changed = pipeline.Run(graph);
class PassPipeline {
 public:
  void Add(std::unique_ptr<Pass> pass) { passes_.push_back(std::move(pass)); }
  absl::StatusOr<bool> Run(Graph& graph);

  void set_verify(bool verify) { verify_ = verify; }
  // Writes "after <pass>:" and Graph::ToText() to `out` after the pass named
  // `pass` ("all": after every pass). An empty name dumps nothing.
  void set_dump_after(std::string pass, std::FILE* out) {
    dump_after_ = std::move(pass);
    dump_to_ = out;
  }
  // The pass names, in order.
  std::vector<std::string> Names() const;

 private:
  std::vector<std::unique_ptr<Pass>> passes_;
  // On in every build: the check is linear in the graph's size, far below
  // the cost of compiling it.
  bool verify_ = true;
  std::string dump_after_;
  std::FILE* dump_to_ = nullptr;
};

}  // namespace switchyard

#endif  // SWITCHYARD_CORE_PASS_H_
