"""CUDA in BUILD files: cuda_library() and if_cuda().

    load("//tools:cuda.bzl", "cuda_library", "if_cuda")

    cuda_library(
        name = "relu_kernels",
        srcs = ["relu.cu"],
        hdrs = ["relu.cuh"],     # what .cc files include; plain C++
        device_hdrs = ["//ops:device_headers"],  # other packages' headers
    )
    cc_library(
        name = "backend",
        srcs = if_cuda(["backend.cc"], ["no_cuda.cc"]),
        deps = if_cuda([":relu_kernels"]),
    )

Bazel 4 has no CUDA rules, so each .cu file is compiled by a genrule running
nvcc (the toolkit that //tools:cuda_configure.bzl found) into a
position-independent object, and the objects go into a cc_library. Device
code is compiled whole-program per file (no -rdc), so no device link step is
needed and the objects link like any other.

GPU targets: `cuda_archs`, a list of compute capabilities ("90", "80"),
default the repository's CUDA_ARCHS (SWITCHYARD_CUDA_ARCHS, default "90").
Each gets machine code (sm_XX); the highest also gets PTX (compute_XX), which
the driver compiles for newer GPUs.

Limits: a .cu file may include its own `hdrs`, the headers listed in
`device_hdrs` (files or filegroups of other packages, by workspace path, e.g.
"ops/pool_geometry.h"), and the CUDA headers; not other Bazel targets'
headers through deps (keep device code plain: pointers, sizes and a
cudaStream_t in, cudaError_t out; shared index math as inline SY_HOST_DEVICE
functions, ops/host_device.h). Where CUDA is missing or turned off
(--define=switchyard_cuda=off), cuda_library is an empty cc_library that
still exports `hdrs`, and nvcc never runs.
"""

load("@local_cuda//:defs.bzl", "CUDA_ARCHS", "CUDA_FOUND", "NVCC", _if_cuda = "if_cuda")

if_cuda = _if_cuda

def _arch_number(arch):
    return int(arch.rstrip("af"))  # "90a" -> 90

def _gencode_flags(archs):
    flags = []
    highest = archs[0]
    for arch in archs:
        flags.append("-gencode=arch=compute_%s,code=sm_%s" % (arch, arch))
        if _arch_number(arch) > _arch_number(highest):
            highest = arch
    flags.append("-gencode=arch=compute_%s,code=compute_%s" % (highest, highest))
    return flags

def cuda_library(
        name,
        srcs,
        hdrs = [],
        device_hdrs = [],
        deps = [],
        cuda_archs = None,
        nvcc_flags = [],
        visibility = None,
        testonly = False,
        **kwargs):
    """Compiles .cu files with nvcc into a cc_library.

    Args:
      name: the cc_library's name.
      srcs: .cu files.
      hdrs: headers the .cu files and the library's users include.
      device_hdrs: headers of other packages the .cu files include (labels of
        files or filegroups); the cc_library's users get them through deps.
      deps: cc deps of the library (the CUDA runtime is added).
      cuda_archs: compute capabilities, e.g. ["80", "90"]; default CUDA_ARCHS.
      nvcc_flags: extra nvcc flags.
      visibility: as usual.
      testonly: as usual.
      **kwargs: passed to the cc_library.
    """
    if not CUDA_FOUND:
        native.cc_library(
            name = name,
            hdrs = hdrs,
            deps = deps,
            visibility = visibility,
            testonly = testonly,
            **kwargs
        )
        return

    archs = cuda_archs or CUDA_ARCHS
    base_flags = [
        "-std=c++17",
        "-O3",
        "-Xcompiler=-fPIC",
        "-Xcompiler=-O3",
        # Never -march=native: objects must run on any x86-64-v3 host.
        "-Xcompiler=-march=x86-64-v3",
        "-Werror=all-warnings",
    ] + _gencode_flags(archs) + nvcc_flags

    objects = []
    for src in srcs:
        if not src.endswith(".cu"):
            fail("cuda_library %s: %s is not a .cu file" % (name, src))
        stem = src[:-len(".cu")]
        obj = "_cuda_objs/%s/%s.pic.o" % (name, stem)
        native.genrule(
            name = "%s_%s_nvcc" % (name, stem.replace("/", "_")),
            srcs = [src] + hdrs + device_hdrs,
            outs = [obj],
            cmd = " ".join([
                NVCC,
                " ".join(base_flags),
                # Headers by workspace-relative path, also for generated ones.
                "-I.",
                "-I$(GENDIR)",
                "-c $(location %s)" % src,
                "-o $@",
            ]),
            message = "nvcc %s (sm %s)" % (src, ",".join(archs)),
            testonly = testonly,
            visibility = ["//visibility:private"],
        )
        objects.append(obj)

    native.cc_library(
        name = name,
        srcs = select({
            "@local_cuda//:disabled_by_flag": [],
            "//conditions:default": objects,
        }),
        hdrs = hdrs,
        deps = deps + select({
            "@local_cuda//:disabled_by_flag": [],
            "//conditions:default": [
                "@local_cuda//:cuda_headers",
                "@local_cuda//:cudart_static",
            ],
        }),
        # Linked into the binary, never as a shared library of its own (the
        # default for tests): the objects call the statically linked CUDA
        # runtime, whose symbols an executable does not export to .so files.
        linkstatic = True,
        visibility = visibility,
        testonly = testonly,
        **kwargs
    )
