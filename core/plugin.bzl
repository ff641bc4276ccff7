"""switchyard_plugin(): a backend built as a dynamically loaded plugin."""

def switchyard_plugin(name, srcs = [], deps = [], linkopts = [], **kwargs):
    """A shared object that exports only SwitchyardPluginEntry (core/plugin.h).

    The backend's own libraries (not alwayslink registrars: the plugin
    registers through its entry point) and core are linked into the .so;
    system libraries such as Abseil stay shared with the host. Load it with
    `switchyard --plugin=bazel-bin/<package>/<name>` or SWITCHYARD_PLUGIN_PATH.

    Args:
      name: the file name, conventionally "lib<something>_plugin.so".
      srcs: the .cc that uses SWITCHYARD_PLUGIN(...).
      deps: the backend's libraries.
      linkopts: extra link options.
      **kwargs: passed to cc_binary (testonly, visibility, ...).
    """
    native.cc_binary(
        name = name,
        srcs = srcs,
        deps = deps + ["//core:plugin"],
        linkshared = True,
        linkopts = linkopts + [
            # Export the entry point only (core/plugin.lds).
            "-Wl,--version-script=$(location //core:plugin.lds)",
            # Every symbol resolved at link time: a missing one is a build
            # error, not a dlopen failure on the user's machine.
            "-Wl,-z,defs",
        ],
        additional_linker_inputs = ["//core:plugin.lds"],
        **kwargs
    )
