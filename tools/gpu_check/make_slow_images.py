#!/usr/bin/env python3
"""The slow-decoding image set of docs/benchmarks.md, made on every core.

Usage:
    python3 make_slow_images.py --pipeline benchmarks/torchvision_pipeline.py \
        --out DIR [--count 64] [--size 3000x2000] [--progressive] [--jobs N]

Writes the same files as `torchvision_pipeline.py --make-images=DIR
--count=N --size=WxH --progressive` (its photo() and save settings, image i
from seed i, img_<i>.jpg), one process per core instead of one in all:
64 progressive 3000x2000 JPEGs take about a minute on one core. Needs numpy
and PIL; exit status 3 when PIL is missing (the caller falls back to other
images).
"""

import argparse
import importlib.util
import multiprocessing
import os
import sys
import time

PIPELINE = None


def load_pipeline(path):
    spec = importlib.util.spec_from_file_location("torchvision_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def init(path):
    global PIPELINE
    PIPELINE = load_pipeline(path)


def one(job):
    from PIL import Image
    out, i, width, height, progressive = job
    Image.fromarray(PIPELINE.photo(width, height, i)).save(
        os.path.join(out, f"img_{i:04d}.jpg"), quality=90, progressive=progressive)
    return i


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pipeline", required=True, help="benchmarks/torchvision_pipeline.py")
    parser.add_argument("--out", required=True)
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--size", default="3000x2000")
    parser.add_argument("--progressive", action="store_true")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args(argv)
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("PIL is not installed", file=sys.stderr)
        return 3
    width, height = (int(v) for v in args.size.split("x"))
    os.makedirs(args.out, exist_ok=True)
    start = time.perf_counter()
    jobs = [(args.out, i, width, height, args.progressive) for i in range(args.count)]
    with multiprocessing.Pool(max(1, min(args.jobs, args.count)), initializer=init,
                              initargs=(args.pipeline,)) as pool:
        done = pool.map(one, jobs)
    size = sum(os.path.getsize(os.path.join(args.out, f)) for f in os.listdir(args.out))
    print("wrote %d %sJPEGs of %dx%d to %s (%.1f MB) in %.1f s with %d processes" % (
        len(done), "progressive " if args.progressive else "", width, height, args.out,
        size / 1e6, time.perf_counter() - start, max(1, min(args.jobs, args.count))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
