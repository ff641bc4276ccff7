#!/usr/bin/env bash
# Builds and runs Switchyard's libFuzzer targets (tests/fuzz/*_fuzzer.cc).
#
#   tools/fuzz.sh build                  # compile every target
#   tools/fuzz.sh run TARGET [SECONDS] [libFuzzer flags...]
#                                        # fuzz one target (default 600 s)
#   tools/fuzz.sh ci [SECONDS]           # build, then SECONDS (default 10)
#                                        # per target; fails on any finding;
#                                        # prints "fuzz: N passed, N failed"
#   tools/fuzz.sh list                   # the targets
#
# Targets: safetensors (ParseSafetensors), npy (ParseNpy), device
# (Device::Parse), graph (random layer specifications through shape
# inference, strict placement, lowering and the CPU kernels), nms (random
# boxes, scores and attributes through non_max_suppression on the CPU
# against the reference backend), image (any bytes through the JPEG and PNG
# decoders, data/, and the transforms after them), onnx_import (any bytes as
# an .onnx file through OnnxModel::Load, onnx/, then Forward on the CPU).
#
# Why a script and not Bazel: libFuzzer needs clang, and Bazel 4's
# auto-configured C++ toolchain is the one compiler of its output base (GCC
# here); switching it would rebuild everyone's tree. So this compiles the
# needed sources directly with Debian's clang 14 and its runtime
# (packages clang, libclang-rt-14-dev; tools/setup.sh installs them) against
# the same system Abseil, Eigen and nlohmann-json headers and libraries.
# Bazel still compiles the same fuzz targets with GCC into
# //tests/fuzz:*_replay_test, which replay each corpus in `bazel test //...`.
#
# Where things go (override with FUZZ_OUT; by default a folder in $TMPDIR
# or /tmp named after this checkout): $FUZZ_OUT/bin/TARGET_fuzzer,
# $FUZZ_OUT/corpus/TARGET (the working corpus, seeded from
# tests/fuzz/corpus/TARGET, which is only read), $FUZZ_OUT/artifacts/TARGET
# (crash-*, leak-*, timeout-*, oom-* inputs), $FUZZ_OUT/logs/TARGET.log.
# Objects are also kept in $FUZZ_CACHE (default ~/.cache/switchyard-fuzz)
# under two keys: a quick one (the source, every header of the project, the
# flags, the compiler and the system libraries' versions), so a fresh clone
# of sources compiled before (CI after a local run) compiles nothing; and an
# exact one (the same with only the project headers the preprocessor says
# the source reads), looked up when the quick one misses, so a changed
# header recompiles its readers only (about 0.4 s of preprocessing per
# source instead of every object). Entries unused for a week are removed.
#
# Long runs (docs/robustness.md), one target at a time, at low priority:
#   nice -n 19 tools/fuzz.sh run graph 3600
# A finding: reproduce with `$FUZZ_OUT/bin/graph_fuzzer CRASH_FILE`, fix
# it, add the input as a gtest case in tests/fuzz/fuzz_regression_test.cc
# and copy it into tests/fuzz/corpus/TARGET/.
set -euo pipefail
cd "$(dirname "$0")/.."

# One default folder per checkout, so two checkouts never share objects.
FUZZ_OUT=${FUZZ_OUT:-${TMPDIR:-/tmp}/switchyard-fuzz-$(pwd | cksum | cut -d' ' -f1)}
CXX=${FUZZ_CXX:-clang++}
TARGETS=(safetensors npy device graph nms image onnx_import)
JOBS=${FUZZ_JOBS:-2}
FUZZ_CACHE=${FUZZ_CACHE:-${HOME:-/tmp}/.cache/switchyard-fuzz}

CXXFLAGS=(
  -std=c++17 -O1 -g -fno-omit-frame-pointer -march=x86-64-v3
  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
  -I. -isystem /usr/include/eigen3 -Wno-unused-command-line-argument
  -DONNX_ML=1 -DONNX_NAMESPACE=onnx  # Debian's onnx headers, as onnx.BUILD
)
LDFLAGS=(-fsanitize=fuzzer,address,undefined -ldl -lpthread)

# Sources each target links (besides its own tests/fuzz/TARGET_fuzzer.cc):
# the project's .cc files that its replay test depends on in Bazel, so the
# BUILD files stay the one list (a library moved or added there is picked up
# here). Written once per build to $FUZZ_OUT/sources/TARGET.
is_target() {
  local t
  for t in "${TARGETS[@]}"; do [[ $t == "$1" ]] && return 0; done
  echo "tools/fuzz.sh: unknown target '$1' (targets: ${TARGETS[*]})" >&2
  return 1
}
query_sources() {  # TARGET: writes $FUZZ_OUT/sources/TARGET
  local t=$1 list
  mkdir -p "$FUZZ_OUT/sources"
  list=$(bazel query --noshow_progress --output=label \
           "kind('source file', deps(//tests/fuzz:${t}_fuzzer_replay_test))") || {
    echo "tools/fuzz.sh: bazel query for ${t}'s sources failed" >&2
    return 1
  }
  # //pkg:sub/file.cc -> pkg/sub/file.cc; external repositories, tests, the
  # replay main and fuzz targets themselves are left out.
  sed -nE 's#^//([^:]*):(.*\.cc)$#\1/\2#p' <<< "$list" | sed 's#^/##' |
    grep -v -E '(_test|/replay_main|_fuzzer)\.cc$' | sort > "$FUZZ_OUT/sources/$t"
}
sources_for() { cat "$FUZZ_OUT/sources/$1"; }

# System libraries a target links besides Abseil.
libs_for() {
  case "$1" in
    image) echo -ljpeg -lpng16 ;;
    onnx_import) echo -lonnx -lonnx_proto -lprotobuf ;;
  esac
}

# Abseil's link line is the one Bazel uses (third_party/absl.BUILD, rule
# "absl"), so a component a new source needs is named in one place.
absl_libs() {
  sed -n '/name = "absl"/,/^)/p' third_party/absl.BUILD | grep -o -- '"-l[^"]*"' | tr -d '"' |
    tr '\n' ' '
}

check_toolchain() {
  if ! command -v "$CXX" > /dev/null; then
    echo "tools/fuzz.sh: $CXX not found; run tools/setup.sh" >&2
    exit 1
  fi
  local rt
  rt=$("$CXX" -print-file-name=libclang_rt.fuzzer-x86_64.a 2>/dev/null || true)
  if [[ ! -f "$rt" ]]; then
    rt=$(find /usr/lib/llvm-*/lib/clang -name 'libclang_rt.fuzzer-x86_64.a' 2>/dev/null | head -1)
  fi
  if [[ -z "$rt" || ! -f "$rt" ]]; then
    echo "tools/fuzz.sh: libFuzzer runtime not found; run tools/setup.sh" \
         "(Debian package libclang-rt-14-dev)" >&2
    exit 1
  fi
}

export FUZZ_OUT FUZZ_CACHE CXX

# What every object depends on besides its own source and the project's
# headers: the flags, the compiler and the system libraries' versions.
toolchain_digest() {
  {
    printf '%s\n' "${CXXFLAGS[@]}"
    "$CXX" --version
    dpkg-query -W libabsl-dev libeigen3-dev libonnx-dev libprotobuf-dev nlohmann-json3-dev \
      libjpeg62-turbo-dev libpng-dev 2>/dev/null || true
  } | sha256sum | cut -d' ' -f1
}

# The toolchain and every header of the project: the quick key of an
# object (one hash for all sources), which any header change misses.
build_digest() {
  {
    echo "$1"
    find . -path ./.git -prune -o -path './bazel-*' -prune -o \
      \( -name '*.h' -o -name '*.inc' \) -type f -print | LC_ALL=C sort | xargs sha256sum
  } | sha256sum | cut -d' ' -f1
}

build() {
  local t src
  check_toolchain
  mkdir -p "$FUZZ_OUT/bin" "$FUZZ_OUT/obj" "$FUZZ_CACHE"
  find "$FUZZ_CACHE" -name '*.o' -mtime +7 -delete 2>/dev/null || true
  local toolchain digest
  toolchain=$(toolchain_digest)
  digest=$(build_digest "$toolchain")
  local all=()
  for t in "${TARGETS[@]}"; do
    query_sources "$t"
    all+=("tests/fuzz/${t}_fuzzer.cc")
    mapfile -t -O "${#all[@]}" all < <(sources_for "$t")
  done
  printf '%s\n' "${all[@]}" | sort -u | \
    CXXFLAGS_STR="${CXXFLAGS[*]}" DIGEST="$digest" TOOLCHAIN="$toolchain" \
    xargs -P "$JOBS" -I{} bash -c '
      CXXFLAGS=($CXXFLAGS_STR)
      # Copied then renamed: a concurrent build never reads half a file.
      keep() { cp "$1" "$2.$$" && mv "$2.$$" "$2"; }
      compile_one() {
        local src=$1 obj="$FUZZ_OUT/obj/${1%.cc}.o" quick exact headers
        mkdir -p "$(dirname "$obj")"
        # Quick key: this source and every project header, unchanged.
        quick="$FUZZ_CACHE/$( { echo "$DIGEST $src"; cat "$src"; } | sha256sum | cut -d" " -f1).o"
        if [[ -f "$quick" ]]; then
          touch "$quick"
          cp "$quick" "$obj"
          return 0
        fi
        # Exact key: the project headers this source reads (the
        # preprocessor says which; system headers are in the toolchain
        # digest), so a changed header rebuilds only its readers.
        headers=$("$CXX" "${CXXFLAGS[@]}" -MM "$src" | sed "s/\\\\$//" | tr " " "\n" |
                  grep -v -e ":\$" -e "^\$" -e "^/" | LC_ALL=C sort -u) || return 1
        exact="$FUZZ_CACHE/exact-$( { echo "$TOOLCHAIN $src"; cat "$src"
                                       for h in $headers; do echo "$h"; cat "$h"; done
                                     } | sha256sum | cut -d" " -f1).o"
        if [[ -f "$exact" ]]; then
          touch "$exact"
          cp "$exact" "$obj"
          keep "$obj" "$quick"
          return 0
        fi
        echo "  CXX $src" >&2
        "$CXX" "${CXXFLAGS[@]}" -c "$src" -o "$obj" || return 1
        keep "$obj" "$exact"
        keep "$obj" "$quick"
      }; compile_one {}'
  local libs
  libs=$(absl_libs)
  for t in "${TARGETS[@]}"; do
    local objs=("$FUZZ_OUT/obj/tests/fuzz/${t}_fuzzer.o")
    while read -r src; do objs+=("$FUZZ_OUT/obj/${src%.cc}.o"); done \
      < <(sources_for "$t")
    echo "  LINK $FUZZ_OUT/bin/${t}_fuzzer" >&2
    # shellcheck disable=SC2086
    "$CXX" "${objs[@]}" "${LDFLAGS[@]}" $libs $(libs_for "$t") -o "$FUZZ_OUT/bin/${t}_fuzzer"
  done
}

# Runs TARGET for SECONDS; returns non-zero on a finding.
run() {
  local t=$1 seconds=${2:-600}
  shift 2 || shift $#
  is_target "$t"
  local bin="$FUZZ_OUT/bin/${t}_fuzzer"
  [[ -x "$bin" ]] || build
  local corpus="$FUZZ_OUT/corpus/$t" artifacts="$FUZZ_OUT/artifacts/$t"
  mkdir -p "$corpus" "$artifacts" "$FUZZ_OUT/logs"
  local dict=()
  [[ -f "tests/fuzz/$t.dict" ]] && dict=("-dict=tests/fuzz/$t.dict")
  echo "tools/fuzz.sh: fuzzing $t for ${seconds}s (log: $FUZZ_OUT/logs/$t.log)" >&2
  # -rss_limit_mb: a well-formed input may ask for a few hundred MB (a big
  # tensor); anything near 2 GB is a bug. -timeout: one input, seconds.
  local status=0
  "$bin" "$corpus" "tests/fuzz/corpus/$t" "${dict[@]}" \
    -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2560 \
    -max_len=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" \
    "$@" > "$FUZZ_OUT/logs/$t.log" 2>&1 || status=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' \
    "$FUZZ_OUT/logs/$t.log" | sed "s/^/  $t: /" >&2 || true
  grep -E 'cov: [0-9]+' "$FUZZ_OUT/logs/$t.log" | tail -1 | sed "s/^/  $t: /" >&2 || true
  if [[ $status -ne 0 ]]; then
    echo "tools/fuzz.sh: $t FOUND A PROBLEM (exit $status); the input is in $artifacts:" >&2
    ls -1 "$artifacts" >&2 || true
    grep -E -A 25 'ERROR: |FUZZ_CHECK failed|runtime error' "$FUZZ_OUT/logs/$t.log" | head -60 >&2 || true
  fi
  return $status
}

main() {
  local command=${1:-}
  shift || true
  case "$command" in
    build) build ;;
    run)
      [[ $# -ge 1 ]] || { echo "usage: tools/fuzz.sh run TARGET [SECONDS] [flags...]" >&2; exit 2; }
      run "$@" ;;
    ci)
      # Progress on stderr; on stdout only "fuzz: N passed, N failed", each
      # target counting as one test (.ci/run adds it to its totals).
      local seconds=${1:-10} passed=0 failed=0 t
      if ! build >&2; then
        echo "fuzz: 0 passed, ${#TARGETS[@]} failed"
        exit 1
      fi
      for t in "${TARGETS[@]}"; do
        if run "$t" "$seconds"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
      done
      echo "fuzz: ${passed} passed, ${failed} failed"
      [[ $failed -eq 0 ]] || exit 1 ;;
    list) printf '%s\n' "${TARGETS[@]}" ;;
    *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
}

main "$@"
