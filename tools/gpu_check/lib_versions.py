#!/usr/bin/python3
"""Prints what a cuBLASLt or cuDNN library is, without a GPU (ctypes only).

Usage:
    python3 tools/gpu_check/lib_versions.py PATH...

For each PATH (a libcublasLt.so.* or libcudnn.so.*), one line:
    PATH<TAB>cuBLASLt 13.1.0 for CUDA 13.0
    PATH<TAB>error: <why it could not be loaded or asked>
run_on_gpu.sh picks the first cuBLASLt 13 and the first cuDNN 9 built for
CUDA 13 from these lines. Exit status 0 (the lines say what failed).
"""

import ctypes
import os
import sys


def _version(v):
    # cuBLAS and cuDNN 9 alike: major * 10000 + minor * 100 + patch.
    return "%d.%d.%d" % (v // 10000, v // 100 % 100, v % 100)


def _cuda(v):
    # The CUDA runtime version: major * 1000 + minor * 10.
    return "%d.%d" % (v // 1000, v % 1000 // 10)


def describe(path):
    lib = ctypes.CDLL(path)
    name = os.path.basename(path)
    if "cublasLt" in name:
        get_version, get_cudart = lib.cublasLtGetVersion, lib.cublasLtGetCudartVersion
        what = "cuBLASLt"
    elif "cudnn" in name:
        get_version, get_cudart = lib.cudnnGetVersion, lib.cudnnGetCudartVersion
        what = "cuDNN"
    else:
        return "error: neither cuBLASLt nor cuDNN"
    get_version.restype = ctypes.c_size_t
    get_cudart.restype = ctypes.c_size_t
    return "%s %s for CUDA %s" % (what, _version(get_version()), _cuda(get_cudart()))


def main(paths):
    for path in paths:
        try:
            line = describe(path)
        except (OSError, AttributeError) as e:
            line = "error: %s" % str(e).replace("\t", " ").replace("\n", " ")
        print("%s\t%s" % (path, line))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
