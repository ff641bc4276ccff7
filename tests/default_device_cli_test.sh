#!/bin/bash
# The device a run takes when the user names none: the oneDNN plugin the
# build puts beside the binary is found without flags, the fastest device
# policy picks dnnl:0 (no GPU here) and nodes it lacks fall back to cpu:0;
# --device names another with strict placement, the other policies choose
# other ways, and discovery turned off leaves cpu:0.

set -u

CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
PLUGIN="$(need_runfile backends/dnnl/libswitchyard_dnnl_plugin.so)" || exit 1
MAKE_MODELS="$(need_runfile tests/make_cli_test_models.py)" || exit 1
unset SWITCHYARD_PLUGIN_DISCOVERY
MODELS="$TMP/models"
/usr/bin/python3 "$MAKE_MODELS" "$MODELS" > "$TMP/make_models.log" 2>&1 ||
  fail "make_cli_test_models.py: $(cat "$TMP/make_models.log")"
FEEDS="--input=$MODELS/ids.npy,$MODELS/mask.npy --iterations=1 --warmup=0"

# What `devices` says: the plugin found beside the binary, dnnl:0 the
# default and why.
run_cli devices devices
expect_exit devices 0
expect_in devices out "dnnl: 1 device"
expect_in devices out "Default device: dnnl:0, oneDNN, the fastest CPU backend (device policy fastest)"
expect_in devices out "libswitchyard_dnnl_plugin.so (dnnl)"
run_cli json devices --json
expect_exit json 0
/usr/bin/python3 - "$TMP/json.out" <<'PY' || fail "devices --json: default_device"
import json, sys
d = json.load(open(sys.argv[1]))["default_device"]
assert d["device_policy"] == "fastest", d
p = d["policies"]
assert p["fastest"]["device"] == "dnnl:0" and p["cpu"]["device"] == "dnnl:0", p
assert p["low-power"]["threads"] == 1, p
assert [l["types"] for l in d["plugin_discovery"]["loaded"]] == [["dnnl"]], d
PY

# A model with no device flag: dnnl:0, its int64 gathers on cpu:0 (auto
# placement), the same outputs as the model's expected ones.
run_cli default run --model="$MODELS/two_inputs.onnx" $FEEDS --output="$TMP/default/"
expect_exit default 0
expect_in default out "device: dnnl:0, oneDNN, the fastest CPU backend (device policy fastest)"
expect_in default out "on dnnl:0, 2 inputs on dnnl:0"
expect_in default out "auto placement:"
/usr/bin/python3 - "$MODELS" "$TMP/default" <<'PY' || fail "default: outputs differ"
import sys, numpy as np
m, o = sys.argv[1], sys.argv[2]
assert np.allclose(np.load(o + "/pooled.npy"), np.load(m + "/pooled_expected.npy"), atol=1e-5)
assert (np.load(o + "/count.npy") == np.load(m + "/count_expected.npy")).all()
PY
run_cli graph graph --model="$MODELS/symbolic.onnx" --input-shape=1x3x5x7
expect_exit graph 0
expect_in graph out "on dnnl:0"

# --device names the device: no policy line, strict placement.
run_cli named run --device=cpu:0 --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit named 0
expect_in named out "on cpu:0, 2 inputs on cpu:0"
expect_not_in named out "device policy"
expect_not_in named out "auto placement"
run_cli named_dnnl run --device=dnnl:0 --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit named_dnnl 1
expect_in named_dnnl err "dnnl"
# The fix in flags, not in core's C++: an op dnnl:0 lacks under strict
# placement, and the input on another device than the model.
expect_in named_dnnl err "Fix: --placement=auto runs what dnnl:0 lacks on cpu:0"
run_cli named_auto run --device=dnnl:0 --placement=auto --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit named_auto 0
RESNET="$(need_runfile tests/onnx_models/resnet18_dynamic/model.onnx)" || exit 1
# The default path holds weights once: those oneDNN reordered are given
# back (core/releasable_weights.h), and the report counts them.
/usr/bin/python3 - "$TMP/wide.onnx" <<'EOF' || fail "held_once: writing the model"
import sys
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
w = numpy_helper.from_array(np.random.RandomState(0).randn(512, 512).astype(np.float32), "w")
g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "wide",
                      [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 512])],
                      [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 512])], [w])
onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8), sys.argv[1])
EOF
run_cli held_once run --model="$TMP/wide.onnx" --iterations=1 --warmup=0 \
    --report="$TMP/held_once.json"
expect_exit held_once 0
expect_in held_once out "of plain weights given back (the kernels hold their own copies"
/usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['weights_given_back_bytes'] >= (1 << 20) - 8192, r['weights_given_back_bytes']" \
    "$TMP/held_once.json" || fail "held_once: the report's weights_given_back_bytes"
run_cli mixed run --device=dnnl:0 --input-device=cpu:0 --model="$RESNET" \
    --input-shape=1x3x64x64 --iterations=1 --warmup=0
expect_exit mixed 1
expect_in mixed err "has operands on different devices"
expect_in mixed err "Fix: --input-device=dnnl:0 puts the input on the model's device, or --device=cpu:0"
expect_not_in mixed err "x.To("

# The other policies, and the errors of the two flags.
run_cli low_power run --device-policy=low-power --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit low_power 0
expect_in low_power out "(device policy low-power) on one thread"
run_cli prefer_cpu run --device-policy=cpu --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit prefer_cpu 0
expect_in prefer_cpu out "device: dnnl:0, oneDNN, the fastest CPU backend (device policy cpu)"
run_cli bad_policy run --device-policy=fast --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit bad_policy 1
expect_in bad_policy err "unknown device policy 'fast'; the policies are fastest, cpu, gpu, low-power"
run_cli both run --device=cpu:0 --device-policy=cpu --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit both 1
expect_in both err "--device and --device-policy were both given"

# NaN in an input: warned of before the run, whatever the device does
# with it.
/usr/bin/python3 -c "import numpy as np; np.save('$TMP/nan_x.npy', np.full((1, 3, 5, 7), np.nan, np.float32))"
run_cli nan run --model="$MODELS/symbolic.onnx" --input="$TMP/nan_x.npy" --iterations=1 --warmup=0
expect_exit nan 0
expect_in nan out "warning: input 0 has 105 NaN and 0 Inf of 105 values: the outputs are not meaningful"

# Near misses of a device get the device meant.
run_cli gpu run --device=gpu --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit gpu 1
expect_in gpu err "did you mean --device=cuda:0?"
run_cli dnnl0 run --device=dnnl0 --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit dnnl0 1
expect_in dnnl0 err "did you mean --device=dnnl:0?"

# The plugin named by --plugin as well: loaded once, no error.
run_cli explicit --plugin="$PLUGIN" devices
expect_exit explicit 0
expect_in explicit out "dnnl: 1 device"

# Discovery off: the Eigen backend, and why.
SWITCHYARD_PLUGIN_DISCOVERY=off run_cli off devices
expect_exit off 0
expect_not_in off out "dnnl:"
expect_in off out "Default device: cpu:0, the Eigen CPU backend (device policy fastest); passed over cuda (no device), dnnl (not loaded)"
expect_in off out "not searched (SWITCHYARD_PLUGIN_DISCOVERY=off)"
SWITCHYARD_PLUGIN_DISCOVERY=off run_cli off_run run --model="$MODELS/two_inputs.onnx" $FEEDS
expect_exit off_run 0
expect_in off_run out "on cpu:0, 2 inputs on cpu:0"

finish
