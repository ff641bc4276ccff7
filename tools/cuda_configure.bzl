"""cuda_configure: finds the CUDA toolkit and cuDNN and generates @local_cuda.

WORKSPACE:

    load("//tools:cuda_configure.bzl", "cuda_configure")
    cuda_configure(name = "local_cuda")

Where it looks (environment of the `bazel` command; a change re-runs the rule):
  CUDA_PATH            the toolkit; default /usr/local/cuda. It must hold
                       bin/nvcc, include/cuda_runtime_api.h, include/cublasLt.h
                       and lib64/libcudart_static.a (or lib/).
  CUDNN_PATH           cuDNN 9 headers under $CUDNN_PATH/include; default: the
                       toolkit's include/, then /usr/include and
                       /usr/include/x86_64-linux-gnu (Debian/Ubuntu packages).
  SWITCHYARD_CUDA_ARCHS  default GPU targets of cuda_library (tools/cuda.bzl),
                       comma-separated compute capabilities; default "90"
                       (sm_90 machine code plus compute_90 PTX).
  SWITCHYARD_CUDA      "0" builds without CUDA even where the toolkit exists
                       (the same as --define=switchyard_cuda=off).

What it generates (all targets exist either way, so BUILD files never break):
  @local_cuda//:defs.bzl      CUDA_FOUND, CUDA_PATH, CUDA_VERSION, CUDNN_VERSION,
                              CUDA_ARCHS, CUDA_MISSING_REASON, if_cuda()
  @local_cuda//:config        cc_library with "local_cuda/cuda_config.h"
                              (the same facts as C macros)
  @local_cuda//:cuda_headers  the toolkit's and cuDNN's headers (no libraries)
  @local_cuda//:cudart_static libcudart_static.a with -ldl -lrt -lpthread
  @local_cuda//:cudart, :cublas, :cublasLt, :cudnn
                              the shared libraries, for code that links them
                              directly (the Switchyard backend does not: it
                              dlopens cuBLASLt and cuDNN, see
                              backends/cuda/cuda_libraries.h)
  @local_cuda//:disabled_by_flag  config_setting for --define=switchyard_cuda=off
Where CUDA is missing, the libraries are empty and CUDA_FOUND is False; the
reason is in CUDA_MISSING_REASON.
"""

_DEFAULT_CUDA_PATH = "/usr/local/cuda"
_CUDNN_FALLBACK_INCLUDE_DIRS = ["/usr/include", "/usr/include/x86_64-linux-gnu"]

def _define_value(text, name):
    """The value of `#define NAME value` in text, or None."""
    for line in text.splitlines():
        parts = [p for p in line.replace("\t", " ").strip().split(" ") if p]
        if len(parts) >= 3 and parts[0] == "#define" and parts[1] == name:
            return parts[2]
    return None

def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

def _starlark_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'

def _find_cudnn_include(ctx, cuda_path):
    env_path = ctx.os.environ.get("CUDNN_PATH", "")
    candidates = []
    if env_path:
        candidates.append(env_path + "/include")
    if cuda_path:
        candidates.append(cuda_path + "/include")
    candidates += _CUDNN_FALLBACK_INCLUDE_DIRS
    for directory in candidates:
        if ctx.path(directory + "/cudnn.h").exists and ctx.path(directory + "/cudnn_version.h").exists:
            return directory, candidates
    return None, candidates

def _cuda_configure_impl(ctx):
    cuda_path = ctx.os.environ.get("CUDA_PATH", "") or _DEFAULT_CUDA_PATH
    cuda_path = cuda_path.rstrip("/") or "/"
    missing = []
    if ctx.os.environ.get("SWITCHYARD_CUDA", "") == "0":
        missing.append("disabled by SWITCHYARD_CUDA=0 in the environment of the build")

    lib_dir = None
    cuda_version = ""
    cudnn_version = ""
    cudnn_include = None
    if not missing:
        if not ctx.path(cuda_path).exists:
            missing.append("no CUDA toolkit at %s (set CUDA_PATH to where it is)" % cuda_path)
        else:
            for required in ["bin/nvcc", "include/cuda_runtime_api.h", "include/cublasLt.h"]:
                if not ctx.path(cuda_path + "/" + required).exists:
                    missing.append("%s/%s is missing" % (cuda_path, required))
            for candidate in ["lib64", "lib", "targets/x86_64-linux/lib"]:
                if ctx.path(cuda_path + "/" + candidate + "/libcudart_static.a").exists:
                    lib_dir = cuda_path + "/" + candidate
                    break
            if lib_dir == None:
                missing.append("%s/lib64/libcudart_static.a is missing" % cuda_path)
            cudnn_include, tried = _find_cudnn_include(ctx, cuda_path)
            if cudnn_include == None:
                missing.append("cuDNN 9 headers (cudnn.h, cudnn_version.h) not found in %s (set CUDNN_PATH)" %
                               ", ".join(tried))

    if not missing:
        cuda_h = ctx.read(cuda_path + "/include/cuda.h") if ctx.path(cuda_path + "/include/cuda.h").exists else ""
        version = _define_value(cuda_h, "CUDA_VERSION")
        if version:
            number = int(version)
            cuda_version = "%d.%d" % (number // 1000, (number % 1000) // 10)
        version_h = ctx.read(cudnn_include + "/cudnn_version.h")
        major = _define_value(version_h, "CUDNN_MAJOR")
        minor = _define_value(version_h, "CUDNN_MINOR")
        patch = _define_value(version_h, "CUDNN_PATCHLEVEL")
        cudnn_version = "%s.%s.%s" % (major, minor, patch)
        if major != "9":
            missing.append("cuDNN headers in %s are version %s; Switchyard needs cuDNN 9" %
                           (cudnn_include, cudnn_version))

    found = not missing
    reason = "; ".join(missing)
    archs = [a.strip() for a in ctx.os.environ.get("SWITCHYARD_CUDA_ARCHS", "90").split(",") if a.strip()]

    if found:
        ctx.symlink(cuda_path + "/include", "include")
        ctx.symlink(lib_dir, "lib")
        cudnn_separate = cudnn_include != cuda_path + "/include"
        if cudnn_separate:
            # Only cuDNN's own headers, so that another CUDA's headers in the
            # same directory (/usr/include) are never picked up.
            for entry in ctx.path(cudnn_include).readdir():
                if entry.basename.startswith("cudnn") and entry.basename.endswith(".h"):
                    ctx.symlink(entry, "cudnn_include/" + entry.basename)
        else:
            ctx.file("cudnn_include/.keep", "")
    else:
        ctx.file("include/.keep", "")
        ctx.file("lib/.keep", "")
        ctx.file("cudnn_include/.keep", "")

    ctx.file("cuda_config.h", "\n".join([
        "// Generated by //tools:cuda_configure.bzl. Facts about the CUDA toolkit",
        "// found at build time.",
        "#ifndef SWITCHYARD_LOCAL_CUDA_CONFIG_H_",
        "#define SWITCHYARD_LOCAL_CUDA_CONFIG_H_",
        "#define SWITCHYARD_CUDA_FOUND %d" % (1 if found else 0),
        "#define SWITCHYARD_CUDA_PATH %s" % _c_string(cuda_path),
        "#define SWITCHYARD_CUDA_LIB_DIR %s" % _c_string(lib_dir or ""),
        "#define SWITCHYARD_CUDA_VERSION_STRING %s" % _c_string(cuda_version),
        "#define SWITCHYARD_CUDNN_VERSION_STRING %s" % _c_string(cudnn_version),
        "#define SWITCHYARD_CUDA_ARCHS_STRING %s" % _c_string(",".join(archs)),
        "#define SWITCHYARD_CUDA_MISSING_REASON %s" % _c_string(reason),
        "#endif  // SWITCHYARD_LOCAL_CUDA_CONFIG_H_",
        "",
    ]))

    ctx.file("defs.bzl", "\n".join([
        '"""Generated by //tools:cuda_configure.bzl: what the build found."""',
        "",
        "CUDA_FOUND = %s" % ("True" if found else "False"),
        "CUDA_PATH = %s" % _starlark_string(cuda_path),
        "CUDA_VERSION = %s" % _starlark_string(cuda_version),
        "CUDNN_VERSION = %s" % _starlark_string(cudnn_version),
        "CUDA_ARCHS = %s" % repr(archs),
        "CUDA_MISSING_REASON = %s" % _starlark_string(reason),
        "NVCC = %s" % _starlark_string(cuda_path + "/bin/nvcc"),
        "",
        "def if_cuda(if_true, if_false = []):",
        '    """if_true where CUDA was found and not turned off with',
        '    --define=switchyard_cuda=off, else if_false."""',
        "    if not CUDA_FOUND:",
        "        return if_false",
        "    return select({",
        '        "@local_cuda//:disabled_by_flag": if_false,',
        '        "//conditions:default": if_true,',
        "    })",
        "",
    ]))

    ctx.template("BUILD", ctx.attr._build_template, {
        "%{found}": "True" if found else "False",
        "%{cudnn_separate}": "True" if (found and cudnn_include != cuda_path + "/include") else "False",
        "%{lib_dir}": lib_dir or "",
    })

cuda_configure = repository_rule(
    implementation = _cuda_configure_impl,
    attrs = {
        "_build_template": attr.label(default = Label("//third_party/cuda:BUILD.local_cuda.tpl")),
    },
    environ = ["CUDA_PATH", "CUDNN_PATH", "SWITCHYARD_CUDA", "SWITCHYARD_CUDA_ARCHS"],
    local = True,
)
