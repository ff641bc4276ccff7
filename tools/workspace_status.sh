#!/bin/bash
# Bazel's --workspace_status_command (.bazelrc): the git commit of the source
# tree, for `switchyard --version` and the "build" object of JSON reports
# (tools/cli:build_stamp). "unknown" outside a git checkout.
commit="$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)"
if [[ "$commit" != unknown ]] && ! git diff --quiet HEAD 2>/dev/null; then
  commit="${commit}-dirty"
fi
echo "STABLE_GIT_COMMIT ${commit}"
