#!/bin/bash
# `switchyard --plugin=...` and SWITCHYARD_PLUGIN_PATH end to end: the CLI
# does not link the reference backend, so "ref" devices appear only when its
# plugin (//backends/reference:libswitchyard_ref_plugin.so) is loaded; and
# the loading errors a user meets first, with exit code and message.

set -u

# The shared helpers (run_cli, expect_exit, expect_in, ...; BIN, TMP):
# tests/cli_test_lib.sh, in the runfiles tree or beside this script.
CLI_TEST_LIB="${TEST_SRCDIR:-$0.runfiles}/switchyard/tests/cli_test_lib.sh"
[[ -f "$CLI_TEST_LIB" ]] || CLI_TEST_LIB="$(dirname "$0")/cli_test_lib.sh"
source "$CLI_TEST_LIB"
PLUGIN="$(need_runfile backends/reference/libswitchyard_ref_plugin.so)" || exit 1

# Not linked in.
run_cli no_plugin devices
expect_exit no_plugin 0
expect_in no_plugin out "cpu: 1 device"
expect_not_in no_plugin out "ref"

# Loaded with --plugin.
run_cli plugin --plugin="$PLUGIN" devices
expect_exit plugin 0
expect_in plugin out "cpu: 1 device"
expect_in plugin out "ref: 2 devices"
expect_in plugin out "ref:1  reference backend"

# A plugin's backend options, listed and set like a linked-in backend's.
expect_in plugin out "option ref.devices=2"
run_cli option --plugin="$PLUGIN" --backend_option=ref.threads=2 devices
expect_exit option 1
expect_in option err "ref.threads=2"
expect_in option err "the reference backend has no option 'threads'; its options: devices"
run_cli readonly --plugin="$PLUGIN" --backend_option=ref.devices=3 devices
expect_exit readonly 1
expect_in readonly err "read-only"

# Loaded from the environment; the device count is the backend's own.
SWITCHYARD_PLUGIN_PATH="$PLUGIN" SWITCHYARD_REF_DEVICES=3 run_cli env devices
expect_exit env 0
expect_in env out "ref: 3 devices"
expect_in env out "ref:2"

# A folder of plugins: its *.so files are loaded, other files ignored.
mkdir -p "$TMP/plugins"
cp "$PLUGIN" "$TMP/plugins/"
printf 'not a plugin\n' >"$TMP/plugins/README"
SWITCHYARD_PLUGIN_PATH="$TMP/plugins" run_cli folder devices
expect_exit folder 0
expect_in folder out "ref: 2 devices"

# The model placed on a plugin's device.
run_cli graph --plugin="$PLUGIN" graph --model=vgg11 --device=ref:1
expect_exit graph 0
expect_in graph out "features.0/conv2d  conv2d([1, 3, 224, 224], [64, 3, 3, 3], [64]) -> [1, 64, 224, 224]  on ref:1"

# --plugin is repeatable (and comma-separated): naming it twice registers
# "ref" twice.
run_cli twice --plugin="$PLUGIN" --plugin="$PLUGIN" devices
expect_exit twice 1
expect_in twice err "switchyard: cannot load plugins: ALREADY_EXISTS: plugin '$PLUGIN' (reference) failed to register its backends: a backend for device type 'ref' is already registered"
run_cli comma --plugin="$PLUGIN,$PLUGIN" devices
expect_exit comma 1
expect_in comma err "ALREADY_EXISTS"

run_cli missing --plugin="$TMP/no_such_plugin.so" devices
expect_exit missing 1
expect_in missing err "switchyard: cannot load plugins: NOT_FOUND: plugin '$TMP/no_such_plugin.so' does not exist"

printf 'not a shared object\n' >"$TMP/text.so"
run_cli text --plugin="$TMP/text.so" devices
expect_exit text 1
expect_in text err "INVALID_ARGUMENT: plugin '$TMP/text.so' is not a loadable shared object"

SWITCHYARD_PLUGIN_PATH="/no/such/dir" run_cli env_missing devices
expect_exit env_missing 1
expect_in env_missing err "NOT_FOUND: SWITCHYARD_PLUGIN_PATH: plugin '/no/such/dir' does not exist"

finish
