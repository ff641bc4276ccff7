#!/usr/bin/python3
"""Decodes every .jpg/.jpeg/.png of a folder as torchvision's ToTensor does (PIL, RGB,
float32 [3, H, W] in [0, 1]) and writes <stem>.npy per file into an output folder, in file
name order; the decoding half of ONNX Runtime's whole script in
benchmarks/compare_detector_folder.sh. Prints nothing but errors.

Usage: /usr/bin/python3 benchmarks/images_to_npy.py IMAGE_DIR OUT_DIR
"""
import os
import sys

import numpy as np
from PIL import Image

EXTENSIONS = (".jpg", ".jpeg", ".png")


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: images_to_npy.py IMAGE_DIR OUT_DIR")
    src, dst = argv[1], argv[2]
    if not os.path.isdir(src):
        sys.exit("images_to_npy.py: %s: not a folder" % src)
    names = sorted(f for f in os.listdir(src) if f.lower().endswith(EXTENSIONS))
    if not names:
        sys.exit("images_to_npy.py: %s: no .jpg, .jpeg or .png files" % src)
    stems = [os.path.splitext(f)[0] for f in names]
    if len(set(stems)) != len(stems):
        sys.exit("images_to_npy.py: %s: two files share a stem (their .npy would collide)" % src)
    os.makedirs(dst, exist_ok=True)
    for name, stem in zip(names, stems):
        with Image.open(os.path.join(src, name)) as image:
            hwc = np.asarray(image.convert("RGB"))
        # ToTensor: uint8 HWC -> float32 CHW divided by 255.
        chw = np.ascontiguousarray(hwc.transpose(2, 0, 1), dtype=np.float32) / np.float32(255)
        np.save(os.path.join(dst, stem + ".npy"), chw)


if __name__ == "__main__":
    main(sys.argv)
