// A plugin whose registration fails, as one whose hardware check fails.

#include "core/plugin.h"

namespace {

absl::Status RegisterNothing(switchyard::BackendRegistry&) {
  return absl::UnavailableError(
      "the toy accelerator is switched off; switch it on and retry");
}

}  // namespace

SWITCHYARD_PLUGIN("init_fails", RegisterNothing);
