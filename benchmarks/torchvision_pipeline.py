#!/usr/bin/python3
"""torchvision's input pipeline on a folder of images: the peer of
image_pipeline_benchmark (Switchyard's data/), on the same files.

  /usr/bin/python3 benchmarks/torchvision_pipeline.py --images=DIR \
      [--workers=1,2] [--batch=32] [--epochs=3] [--augment=eval|train]
  /usr/bin/python3 benchmarks/torchvision_pipeline.py --make-images=DIR [--count=64]

Pipelines (torchvision 0.14, PIL for decoding, as torchvision's ImageNet
examples do):
  eval:  Resize(256) -> CenterCrop(224) -> ToTensor -> Normalize(ImageNet)
  train: RandomResizedCrop(224) -> RandomHorizontalFlip -> ToTensor -> Normalize
Two measurements:
  stages: one process, each stage per image (ms per sample, images/s):
          read, decode (PIL open + convert("RGB")), resize, crop, flip,
          to_tensor, normalize, and collate (torch.stack of a batch).
  loader: DataLoader(batch_size=B, num_workers=W) over the files, W = each
          of --workers; images/s over --epochs epochs after one warm-up
          epoch (worker start-up is not counted), and per worker.
PIL's Resize antialiases when shrinking; Switchyard's matches torchvision's
tensor Resize with antialias off, which costs less: the speed of the two is
compared, not their pixels (tests/images/reference has the pixel check).

--make-images writes COUNT photo-like RGB JPEGs of 500x375 (ImageNet's
typical size) at quality 90 for both benchmarks; --size=4000x3000
--progressive makes a slow-decoding set (a camera's photos), for showing
`switchyard run --images` starved by its loader.
"""

import argparse
import os
import sys
import time

import numpy as np


def photo(width, height, seed):
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    img = np.stack([128 + 100 * np.sin(x / (width / 6.0) + seed),
                    128 + 100 * np.cos(y / (height / 5.0) - seed),
                    255 * ((x + y) / (width + height))], axis=-1)
    for _ in range(6):
        x0, y0 = rng.integers(0, width - 8), rng.integers(0, height - 8)
        img[y0:y0 + rng.integers(8, height // 2), x0:x0 + rng.integers(8, width // 2)] = \
            rng.integers(0, 256, size=3)
    img += rng.normal(0, 6, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def make_images(folder, count, width, height, progressive):
    from PIL import Image
    os.makedirs(folder, exist_ok=True)
    for i in range(count):
        Image.fromarray(photo(width, height, i)).save(
            os.path.join(folder, f"img_{i:04d}.jpg"), quality=90, progressive=progressive)
    print(f"wrote {count} {'progressive ' if progressive else ''}JPEGs of "
          f"{width}x{height} to {folder}")


def list_images(source):
    import glob
    if os.path.isdir(source):
        paths = [os.path.join(source, f) for f in sorted(os.listdir(source))
                 if not f.startswith(".")]
    else:
        paths = sorted(glob.glob(source))
    good = []
    from PIL import Image
    for p in paths:
        if not os.path.isfile(p):
            continue
        try:
            Image.open(p).convert("RGB")
            good.append(p)
        except Exception:  # bad files: skipped, as Switchyard's loader does
            pass
    return good


def transforms(augment):
    import torchvision.transforms as T
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    if augment == "train":
        return T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    return T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), norm])


class Files:
    def __init__(self, paths, augment):
        self.paths, self.transform = paths, transforms(augment)

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        from PIL import Image
        with open(self.paths[i], "rb") as f:
            img = Image.open(f).convert("RGB")
        return self.transform(img)


def stages(paths, augment, batch, repeats):
    import io
    import torch
    import torchvision.transforms as T
    from PIL import Image
    norm = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    totals = {}

    def add(name, seconds):
        totals[name] = totals.get(name, 0.0) + seconds

    tensors = []
    n = 0
    for _ in range(repeats):
        for p in paths:
            t0 = time.perf_counter()
            data = open(p, "rb").read()
            t1 = time.perf_counter(); add("read", t1 - t0)
            img = Image.open(io.BytesIO(data)).convert("RGB")
            t2 = time.perf_counter(); add("decode", t2 - t1)
            if augment == "eval":
                img = T.Resize(256)(img)
                t3 = time.perf_counter(); add("resize", t3 - t2)
                img = T.CenterCrop(224)(img)
                t4 = time.perf_counter(); add("crop", t4 - t3)
            else:
                i, j, h, w = T.RandomResizedCrop.get_params(img, (0.08, 1.0), (3 / 4, 4 / 3))
                img = img.crop((j, i, j + w, i + h))
                t3 = time.perf_counter(); add("crop", t3 - t2)
                img = img.resize((224, 224), Image.BILINEAR)
                t4 = time.perf_counter(); add("resize", t4 - t3)
                img = T.RandomHorizontalFlip()(img)
                t4b = time.perf_counter(); add("flip", t4b - t4); t4 = t4b
            x = T.ToTensor()(img)
            t5 = time.perf_counter(); add("to_tensor", t5 - t4)
            x = norm(x)
            t6 = time.perf_counter(); add("normalize", t6 - t5)
            tensors.append(x)
            if len(tensors) == batch:
                torch.stack(tensors)
                add("collate", time.perf_counter() - t6)
                tensors = []
            n += 1
    total = sum(totals.values())
    print(f"torchvision stages ({augment}, one process, {n} samples): ms/sample, share")
    for name, seconds in totals.items():
        print(f"  {name:<10} {1e3 * seconds / n:8.3f}  {100 * seconds / total:5.1f}%")
    print(f"  {'all':<10} {1e3 * total / n:8.3f}  100.0%   {n / total:.1f} images/s")


def loader(paths, augment, batch, workers, epochs):
    import torch
    from torch.utils.data import DataLoader
    data = DataLoader(Files(paths, augment), batch_size=batch, num_workers=workers,
                      shuffle=False, drop_last=False, persistent_workers=workers > 0)
    for _ in data:  # warm-up epoch: worker start-up, page cache
        pass
    images = 0
    start = time.perf_counter()
    for _ in range(epochs):
        for x in data:
            images += x.shape[0]
    seconds = time.perf_counter() - start
    rate = images / seconds
    per = rate / max(workers, 1)
    print(f"torchvision DataLoader ({augment}, batch {batch}, {workers} worker"
          f"{'s' if workers != 1 else ''}): {images} images in {seconds:.2f} s: "
          f"{rate:.1f} images/s, {per:.1f} per worker")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--images")
    parser.add_argument("--make-images")
    parser.add_argument("--count", type=int, default=64)
    parser.add_argument("--size", default="500x375", help="--make-images: WIDTHxHEIGHT")
    parser.add_argument("--progressive", action="store_true")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--augment", choices=["eval", "train"], default="eval")
    args = parser.parse_args()
    if args.make_images:
        width, height = (int(v) for v in args.size.split("x"))
        make_images(args.make_images, args.count, width, height, args.progressive)
        return
    if not args.images:
        parser.error("--images or --make-images is required")
    import torch
    import torchvision
    torch.set_num_threads(1)
    paths = list_images(args.images)
    if not paths:
        sys.exit(f"no decodable images in {args.images}")
    print(f"torch {torch.__version__}, torchvision {torchvision.__version__}, "
          f"{len(paths)} images in {args.images}")
    stages(paths, args.augment, args.batch, repeats=max(1, 64 // len(paths)))
    for w in [int(v) for v in args.workers.split(",")]:
        loader(paths, args.augment, args.batch, w, args.epochs)


if __name__ == "__main__":
    main()
