#!/usr/bin/python3
"""Writes the image pipeline's test set, tests/images/, and its references.

  /usr/bin/python3 tools/make_test_images.py [--out tests/images]

Images (small, deterministic: the same bytes on every run with the same PIL):
  rgb_500x375.jpg      landscape photo-like RGB, quality 90
  rgb_200x300.jpg      portrait
  small_64x48.jpg      smaller than the crop: Resize upsamples
  progressive_400x300.jpg
  gray_320x240.jpg     one-channel JPEG -> RGB
  cmyk_300x200.jpg     CMYK JPEG (Adobe marker, inverted values) -> RGB
  alpha_240x320.png    RGBA: alpha dropped, as PIL's convert("RGB") does
  palette_256x256.png  palette with transparency -> RGB
  rgb16_160x120.png    16 bits per channel -> 8 (the high byte, as PIL)
  gray_100x80.png      one-channel PNG
Bad inputs (reported and skipped, or fail the run; never a crash):
  bad_corrupt.jpg      a JPEG cut in the middle of its entropy-coded data
  bad_empty.jpg        0 bytes
  bad_huge.png         an IHDR claiming 100000 x 100000 pixels (valid CRC)
  bad_huge.jpg         a SOF claiming 65000 x 65000 pixels
  bad_not_an_image.txt text

References (reference/*.npy, float32 [3, S, S]): torchvision's tensor path
with antialias off, which is what Switchyard's resize matches:
  PIL.Image.open(p).convert("RGB") -> uint8 CHW tensor
  -> Resize(R, antialias=False) -> CenterCrop(S) -> /255 -> Normalize(ImageNet)
R, S = 256, 224 for rgb_500x375.jpg; 64, 56 for the others (small files).
It also prints how far PIL's (antialiased) Resize, the classic ToTensor
pipeline, is from them.

Fuzz seeds (tests/fuzz/corpus/image, each under fuzz.sh's 4096-byte
max_len): tiny JPEGs (baseline, progressive, grayscale, CMYK, 4:2:0 and
4:4:4, restart markers) and PNGs (RGB, RGBA, palette with tRNS, gray 1-bit,
gray+alpha, 16-bit), and a truncated one of each format. (PIL writes no
interlaced PNG; libFuzzer's mutations reach the interlace flag.)
"""

import argparse
import os
import struct
import zlib

import numpy as np
from PIL import Image

MEAN = [0.485, 0.456, 0.406]
STD = [0.229, 0.224, 0.225]


def photo(width, height, seed):
    """A smooth image with edges and some texture (JPEG-friendly)."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    r = 128 + 100 * np.sin(x / (width / 6.0) + seed)
    g = 128 + 100 * np.cos(y / (height / 5.0) - seed)
    b = 255 * ((x + y) / (width + height))
    img = np.stack([r, g, b], axis=-1)
    # A few hard-edged rectangles.
    for _ in range(6):
        x0, y0 = rng.integers(0, width - 8), rng.integers(0, height - 8)
        x1 = min(width, x0 + rng.integers(8, width // 2))
        y1 = min(height, y0 + rng.integers(8, height // 2))
        img[y0:y1, x0:x1] = rng.integers(0, 256, size=3)
    img += rng.normal(0, 6, size=img.shape)
    return np.clip(img, 0, 255).astype(np.uint8)


def png_chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data +
            struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def write_png16(path, rgb16):
    """An RGB PNG with 16 bits per channel (PIL cannot write one)."""
    height, width, _ = rgb16.shape
    raw = b"".join(b"\x00" + rgb16[y].astype(">u2").tobytes() for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 16, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) +
                png_chunk(b"IDAT", zlib.compress(raw, 9)) + png_chunk(b"IEND", b""))


def write_huge_png(path):
    ihdr = struct.pack(">IIBBBBB", 100000, 100000, 8, 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", ihdr) +
                png_chunk(b"IDAT", zlib.compress(b"\x00" * 64)) + png_chunk(b"IEND", b""))


def write_huge_jpeg(path, small_jpeg):
    """A real JPEG whose SOF0 says 65000 x 65000."""
    data = bytearray(open(small_jpeg, "rb").read())
    i = 2
    while i < len(data):
        marker = data[i + 1]
        length = struct.unpack(">H", data[i + 2:i + 4])[0]
        if marker in (0xC0, 0xC2):
            data[i + 5:i + 9] = struct.pack(">HH", 65000, 65000)
            break
        i += 2 + length
    else:
        raise SystemExit("no SOF marker in " + small_jpeg)
    open(path, "wb").write(bytes(data))


def write_fuzz_seeds(folder):
    os.makedirs(folder, exist_ok=True)
    p = lambda name: os.path.join(folder, name)
    img = Image.fromarray(photo(32, 24, 11))
    img.save(p("baseline.jpg"), quality=75)
    img.save(p("progressive.jpg"), quality=75, progressive=True)
    img.save(p("444.jpg"), quality=90, subsampling=0)
    img.save(p("restart.jpg"), quality=60, restart_marker_blocks=1)
    img.convert("L").save(p("gray.jpg"), quality=75)
    img.convert("CMYK").save(p("cmyk.jpg"), quality=75)
    img.save(p("rgb.png"))
    img.convert("RGBA").save(p("rgba.png"))
    img.convert("P", palette=Image.ADAPTIVE, colors=8).save(p("palette.png"), transparency=1)
    img.convert("1").save(p("gray1.png"))
    img.convert("LA").save(p("gray_alpha.png"))
    write_png16(p("rgb16.png"), photo(20, 18, 12).astype(np.uint16) * 257)
    for name in ["baseline.jpg", "rgb.png"]:
        data = open(p(name), "rb").read()
        open(p("cut_" + name), "wb").write(data[:len(data) * 2 // 3])
    for name in os.listdir(folder):
        assert os.path.getsize(p(name)) <= 4096, name


def reference(path, resize, crop, antialiased_pil):
    import torch
    import torchvision.transforms as T
    img = Image.open(path).convert("RGB")
    normalize = T.Normalize(MEAN, STD)
    if antialiased_pil:
        t = T.Compose([T.Resize(resize), T.CenterCrop(crop), T.ToTensor(), normalize])
        return t(img).numpy()
    x = torch.from_numpy(np.asarray(img).copy()).permute(2, 0, 1).contiguous()
    x = T.Resize(resize, antialias=False)(x)
    x = T.CenterCrop(crop)(x)
    return normalize(x.float() / 255).numpy()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "tests", "images"))
    args = parser.parse_args()
    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "reference"), exist_ok=True)
    p = lambda name: os.path.join(out, name)

    Image.fromarray(photo(500, 375, 1)).save(p("rgb_500x375.jpg"), quality=90)
    Image.fromarray(photo(200, 300, 2)).save(p("rgb_200x300.jpg"), quality=85)
    Image.fromarray(photo(64, 48, 3)).save(p("small_64x48.jpg"), quality=95)
    Image.fromarray(photo(400, 300, 4)).save(p("progressive_400x300.jpg"),
                                             quality=80, progressive=True)
    Image.fromarray(photo(320, 240, 5)).convert("L").save(p("gray_320x240.jpg"), quality=90)
    Image.fromarray(photo(300, 200, 6)).convert("CMYK").save(p("cmyk_300x200.jpg"), quality=90)
    rgba = np.dstack([photo(240, 320, 7),
                      np.tile(np.linspace(0, 255, 240, dtype=np.uint8), (320, 1))])
    Image.fromarray(rgba, "RGBA").save(p("alpha_240x320.png"))
    pal = Image.fromarray(photo(256, 256, 8)).convert("P", palette=Image.ADAPTIVE, colors=64)
    pal.save(p("palette_256x256.png"), transparency=0)
    rgb16 = photo(160, 120, 9).astype(np.uint16) * 257 + np.uint16(77)
    write_png16(p("rgb16_160x120.png"), rgb16)
    Image.fromarray(photo(100, 80, 10)).convert("L").save(p("gray_100x80.png"))

    whole = open(p("rgb_500x375.jpg"), "rb").read()
    open(p("bad_corrupt.jpg"), "wb").write(whole[:len(whole) // 2])
    open(p("bad_empty.jpg"), "wb").close()
    write_huge_png(p("bad_huge.png"))
    write_huge_jpeg(p("bad_huge.jpg"), p("small_64x48.jpg"))
    with open(p("bad_not_an_image.txt"), "w") as f:
        f.write("This is not an image: the pipeline reports it by path and skips it.\n")

    refs = [("rgb_500x375.jpg", 256, 224)] + [
        (name, 64, 56) for name in
        ["rgb_200x300.jpg", "small_64x48.jpg", "progressive_400x300.jpg", "gray_320x240.jpg",
         "cmyk_300x200.jpg", "alpha_240x320.png", "palette_256x256.png",
         "rgb16_160x120.png", "gray_100x80.png"]]
    for name, resize, crop in refs:
        stem = os.path.splitext(name)[0]
        tensor = reference(p(name), resize, crop, antialiased_pil=False).astype(np.float32)
        np.save(p(f"reference/{stem}_{resize}_{crop}.npy"), tensor)
        pil = reference(p(name), resize, crop, antialiased_pil=True)
        print(f"{name}: Resize({resize})+CenterCrop({crop}); torchvision tensor path "
              f"(antialias off) vs PIL path (antialiased): max |diff| "
              f"{np.abs(tensor - pil).max():.3f}")
    seeds = os.path.join(out, "..", "fuzz", "corpus", "image")
    write_fuzz_seeds(seeds)
    print("wrote", out, "and", os.path.abspath(seeds))


if __name__ == "__main__":
    main()
