# Sourced by the model benchmark scripts (compare_cpu_models.sh,
# compare_int8_models.sh): one run per process, its JSON or the reason it has
# none, and the load average around it.
#
#   source benchmarks/quiet.sh
#   source benchmarks/bench_runs.sh
#   RUN_DIR=... RUNS=$RUN_DIR/runs.tsv RUN_TIMEOUT=3600
#   printf 'model\trun\tstart\tload_before\tload_after\tseconds\tstatus\n' > "${RUNS}"
#   run_one MODEL RUN JSON COMMAND...  (writes RUN_DIR/MODEL/RUN.{stderr,failed})
#   skip MODEL RUN REASON
#   bench_backends MODEL ONNX [SKIP_REASON]  (switchyard bench per BACKEND_LIST)
#   onnxruntime_run MODEL ONNX [SKIP_REASON] (benchmarks/onnxruntime_peer.js)
#   in_rounds FUNCTION                       (ROUNDS times, samples pooled)

loadavg() { cut -d' ' -f1-3 /proc/loadavg; }
# One line of a failure, safe in a table cell.
reason_of() { grep -v '^[[:space:]]*$' "$1" 2>/dev/null | tail -n 1 | tr -d '\r' | cut -c1-300; }

# run_one MODEL RUN JSON COMMAND...: waits for quiet, runs COMMAND (stderr
# kept for the reason of a failure), logs the load average around it in
# runs.tsv. A run that writes no JSON leaves RUN.failed with why.
run_one() {
  local model="$1" run="$2" json="$3" start before status=ok rc
  shift 3
  local dir="${RUN_DIR}/${model}"
  rm -f "${json}"
  wait_for_quiet
  before="$(loadavg)"
  start="$(date -u +%H:%M:%S)"
  echo "== ${model}: ${run}, load ${before}"
  local t0="${SECONDS}"
  # stderr both shown and kept; a pipe, not >(tee), so the file is complete
  # when the reason is read. --foreground: Ctrl-C still reaches the run.
  { timeout --foreground "${RUN_TIMEOUT}" "$@" 2>&1 1>&3 | tee "${dir}/${run}.stderr" >&2; } 3>&1
  rc="${PIPESTATUS[0]}"
  if ((rc == 124)); then
    status="failed: stopped after ${RUN_TIMEOUT} s (RUN_TIMEOUT)"
  elif ((rc != 0)); then
    local why
    why="$(reason_of "${dir}/${run}.stderr")"
    status="failed: exit ${rc}: ${why:-(nothing on stderr)}"
  elif [[ ! -f "${json}" ]]; then
    status="failed: wrote no JSON"
  fi
  # switchyard bench exits 1 when every row failed but still writes the JSON,
  # whose rows say why (an op the device lacks): then the table uses those.
  if [[ "${status}" != ok && -f "${json}" && ${rc} != 124 ]]; then
    status="exit ${rc}; the JSON has the reason"
  elif [[ "${status}" != ok ]]; then
    echo "${status#failed: }" > "${dir}/${run}.failed"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${model}" "${run}" "${start}" "${before}" \
    "$(loadavg)" "$((SECONDS - t0))" "${status}" >> "${RUNS}"
}

# skip MODEL RUN REASON: the run's cells say why it did not run.
skip() { echo "$3" > "${RUN_DIR}/$1/$2.failed"; }

# build_switchyard: Switchyard and the oneDNN plugin, built together so they
# match (bazel -c opt, BAZEL_FLAGS), unless SWITCHYARD / DNNL_PLUGIN name them;
# the plugin only when BACKENDS has dnnl. Sets BIN, PLUGIN (private copies in
# TMP_DIR) and BUILD_FAILED (why, or empty).
build_switchyard() {
  BIN="${SWITCHYARD:-}"
  PLUGIN="${DNNL_PLUGIN:-}"
  local targets=() bin_dir
  [[ -z "${BIN}" ]] && targets+=(//tools/cli:switchyard)
  [[ -z "${PLUGIN}" && ",${BACKENDS}," == *,dnnl* ]] &&
    targets+=(//backends/dnnl:libswitchyard_dnnl_plugin.so)
  BUILD_FAILED=""
  if [[ ${#targets[@]} -gt 0 ]]; then
    echo "== building ${targets[*]} (-c opt)"
    { bazel build "${BAZEL_FLAGS[@]}" "${targets[@]}" 2>&1 1>&3 |
        tee "${TMP_DIR}/build.err" >&2; } 3>&1
    if [[ "${PIPESTATUS[0]}" == 0 ]]; then
      # Private copies: another build may replace bazel-bin while this runs.
      # (Both link only system libraries and resolve nothing via $ORIGIN.)
      bin_dir="$(bazel info "${BAZEL_FLAGS[@]}" bazel-bin)"
      if [[ -z "${BIN}" ]]; then
        # With the plugins the build puts beside it, which the copy finds
        # the same way (the "default" backend).
        cp "${bin_dir}/tools/cli/switchyard" "${bin_dir}"/tools/cli/libswitchyard_*_plugin.so \
          "${TMP_DIR}/" && BIN="${TMP_DIR}/switchyard"
      fi
      if [[ -z "${PLUGIN}" && ",${BACKENDS}," == *,dnnl* ]]; then
        cp "${bin_dir}/backends/dnnl/libswitchyard_dnnl_plugin.so" "${TMP_DIR}/" &&
          PLUGIN="${TMP_DIR}/libswitchyard_dnnl_plugin.so"
      fi
    else
      BUILD_FAILED="bazel build ${targets[*]} failed: $(reason_of "${TMP_DIR}/build.err")"
    fi
  fi
}

# bench_backends MODEL ONNX [SKIP_REASON]: `switchyard bench` of ONNX on each
# of BACKEND_LIST, each in its own process (one that crashes or hangs costs
# only its own cells; OpenMP threads left spinning by oneDNN never share the
# cores with the cpu backend's pool), JSON in RUN_DIR/MODEL/switchyard_B.json.
# dnnl:0 lacks some ops (clip, erf, the integer ones...): those nodes fall
# back to the CPU, as `run --placement=auto` does. Backend "default" is the
# device `run` takes without flags (`bench --devices=default`). Every run skipped with
# SKIP_REASON when given (a model that could not be made), or when the build
# failed. Uses BIN, PLUGIN, BUILD_FAILED, BATCHES, WARMUP, ITERATIONS, THREADS.
bench_backends() {
  local m=$1 onnx=$2 why=${3:-} dir="${RUN_DIR}/$1" b run
  local plugin_flags placement
  for b in "${BACKEND_LIST[@]}"; do
    run="switchyard_${b%%:*}"
    plugin_flags=()
    placement=()
    if [[ "${b}" == dnnl* ]]; then
      plugin_flags=(--plugin="${PLUGIN}")
      placement=(--placement=auto)
    fi
    # "default": what `switchyard run` takes without flags (the plugins
    # beside the binary, the fastest device policy, auto placement).
    if [[ -n "${why}" ]]; then
      skip "${m}" "${run}" "${why}"
    elif [[ -n "${BUILD_FAILED}" ]]; then
      skip "${m}" "${run}" "${BUILD_FAILED}"
    elif [[ -z "${BIN}" || ( "${b}" == dnnl* && -z "${PLUGIN}" ) ]]; then
      skip "${m}" "${run}" "no switchyard binary or dnnl plugin (copy failed)"
    else
      run_one "${m}" "${run}" "${dir}/${run}.json" "${BIN}" "${plugin_flags[@]}" bench \
        --model="${onnx}" --devices="${b}" --batch="${BATCHES}" --warmup="${WARMUP}" \
        --iterations="${ITERATIONS}" --threads="${THREADS}" "${placement[@]}" \
        --json="${dir}/${run}.json"
      type -t after_bench > /dev/null && after_bench "${m}" "${run}" "${onnx}"
    fi
  done
}

# onnxruntime_run MODEL ONNX [SKIP_REASON]: ONNX Runtime's run of ONNX into
# RUN_DIR/MODEL/onnxruntime.json, or its cells saying SKIP_REASON. Uses
# BATCHES, WARMUP, ITERATIONS, THREADS.
onnxruntime_run() {
  local dir="${RUN_DIR}/$1"
  if [[ -n "${3:-}" ]]; then
    skip "$1" onnxruntime "$3"
    return
  fi
  run_one "$1" onnxruntime "${dir}/onnxruntime.json" node benchmarks/onnxruntime_peer.js \
    --model "$2" --batch "${BATCHES}" --warmup "${WARMUP}" \
    --iterations "${ITERATIONS}" --threads "${THREADS}" --json "${dir}/onnxruntime.json"
}

# in_rounds FUNCTION: FUNCTION (every model on every side) ROUNDS times, one
# round after the other, each with RUN_DIR set to RUN_DIR/round<r> (BASE_DIR
# the top folder); then merge_rounds.py pools each run's samples into
# RUN_DIR/<model>/ (its docstring says why).
in_rounds() {
  local round
  BASE_DIR="${RUN_DIR}"
  for ((round = 1; round <= ROUNDS; ++round)); do
    RUN_DIR="${BASE_DIR}/round${round}"
    "$1"
  done
  RUN_DIR="${BASE_DIR}"
  "${PYTHON}" benchmarks/merge_rounds.py "${RUN_DIR}" "${ROUNDS}"
}
