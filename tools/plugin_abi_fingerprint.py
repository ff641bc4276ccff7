#!/usr/bin/env python3
"""The plugin boundary's fingerprint: what tells a changed boundary from an
unchanged one, so that kPluginAbiVersion (core/plugin.h) is bumped every time.

Plugins and the host pass C++ objects to each other (core/plugin.h), so any
change to the headers that declare them, even one that looks harmless, can
move a virtual slot or a data member. This script hashes the code of those
headers (comments and spacing ignored: they cannot change the ABI) and
compares the hashes with core/plugin_abi_fingerprint.txt, which records
them for the current kPluginAbiVersion.

    tools/plugin_abi_fingerprint.py           # check (what the test runs)
    tools/plugin_abi_fingerprint.py --update  # after bumping kPluginAbiVersion

--update refuses to record changed headers under the version already
recorded: bump the version first.
"""

import argparse
import hashlib
import os
import re
import sys

# The headers whose types cross the boundary; the headers they include from
# this repository are part of it too.
ROOTS = ["core/plugin.h", "core/backend.h", "core/backend_registry.h", "core/graph.h",
         "core/tensor.h", "core/buffer.h", "core/caching_allocator.h"]
FINGERPRINT = "core/plugin_abi_fingerprint.txt"
HOW_TO_BUMP = ("bump kPluginAbiVersion in core/plugin.h (and say why beside it), then run "
               "tools/plugin_abi_fingerprint.py --update")


def boundary_headers(root):
    """ROOTS and every repository header they include, sorted."""
    seen, stack = set(), list(ROOTS)
    while stack:
        header = stack.pop()
        if header in seen:
            continue
        path = os.path.join(root, header)
        if not os.path.isfile(path):
            raise SystemExit(f"plugin ABI: {header} is missing under {root}")
        seen.add(header)
        with open(path, encoding="utf-8") as f:
            for included in re.findall(r'^\s*#\s*include\s+"([^"]+)"', f.read(), re.M):
                if os.path.isfile(os.path.join(root, included)):
                    stack.append(included)
    return sorted(seen)


def code_of(text):
    """The header without comments and with spacing collapsed; string and
    character literals are kept whole."""
    token = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|//[^\n]*|/\*.*?\*/', re.S)
    code = token.sub(lambda m: " " if m.group(0)[0] == "/" else m.group(0), text)
    return " ".join(code.split())


def abi_version(root):
    with open(os.path.join(root, "core/plugin.h"), encoding="utf-8") as f:
        found = re.search(r"kPluginAbiVersion\s*=\s*(\d+)", f.read())
    if not found:
        raise SystemExit("plugin ABI: no kPluginAbiVersion = N in core/plugin.h")
    return int(found.group(1))


def current(root):
    hashes = {}
    for header in boundary_headers(root):
        with open(os.path.join(root, header), encoding="utf-8") as f:
            hashes[header] = hashlib.sha256(code_of(f.read()).encode()).hexdigest()
    return abi_version(root), hashes


def recorded(root):
    path = os.path.join(root, FINGERPRINT)
    if not os.path.isfile(path):
        return None, {}
    version, hashes = None, {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, value = line.split(None, 1)
            if key == "abi_version":
                version = int(value)
            else:
                hashes[value] = key
    return version, hashes


def changed(old, new):
    return sorted(h for h in set(old) | set(new) if old.get(h) != new.get(h))


def check(root):
    version, hashes = current(root)
    old_version, old_hashes = recorded(root)
    differ = changed(old_hashes, hashes)
    if old_version is None:
        return f"{FINGERPRINT} is missing: run tools/plugin_abi_fingerprint.py --update"
    if version == old_version and differ:
        return (f"the plugin boundary changed ({', '.join(differ)}) but kPluginAbiVersion is "
                f"still {version}: a plugin built before the change would load and call the "
                f"wrong code; {HOW_TO_BUMP}")
    if version != old_version:
        return (f"kPluginAbiVersion is {version} but {FINGERPRINT} records {old_version}: "
                "run tools/plugin_abi_fingerprint.py --update")
    return None


def update(root):
    version, hashes = current(root)
    old_version, old_hashes = recorded(root)
    differ = changed(old_hashes, hashes)
    if old_version is not None and version == old_version and differ:
        return (f"the plugin boundary changed ({', '.join(differ)}) and kPluginAbiVersion is "
                f"still {version}; {HOW_TO_BUMP}")
    if old_version is not None and version < old_version:
        return f"kPluginAbiVersion went down ({old_version} -> {version}); versions only grow"
    lines = ["# The plugin boundary's headers, hashed without comments and spacing, at",
             "# the ABI version below. Written by tools/plugin_abi_fingerprint.py --update;",
             "# checked by //core:plugin_abi_fingerprint_test.",
             f"abi_version {version}"]
    lines += [f"{digest}  {header}" for header, digest in sorted(hashes.items())]
    with open(os.path.join(root, FINGERPRINT), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"recorded {len(hashes)} headers at ABI version {version} in {FINGERPRINT}")
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true",
                        help="record the headers (after bumping kPluginAbiVersion)")
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."),
                        help="the repository root (default: this script's)")
    args = parser.parse_args()
    error = update(args.root) if args.update else check(args.root)
    if error:
        print(f"plugin ABI: {error}", file=sys.stderr)
        return 1
    if not args.update:
        print(f"plugin ABI: version {abi_version(args.root)}, boundary unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
