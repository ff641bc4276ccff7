#!/usr/bin/python3
"""Every `--flag` the docs name exists in `switchyard help`.

Reads README.md and docs/*.md (or the Markdown files given as arguments),
finds every --flag in code blocks, code spans and prose, works out whose
flag it is from the command line around it, and checks each of
switchyard's against the built binary's help:

  `switchyard run --x`, `bazel run //:switchyard -- run --x`, `run --x`
      --x must be in `switchyard help run` (`run|bench --x`: in both);
  `switchyard --x devices`, a command line naming no command
      --x must be in some command's help;
  `--x` alone (prose, a code span without a program)
      --x must be in some command's help, or be another tool's flag in
      OTHER_TOOLS_FLAGS below;
  `bazel test --x`, `mpirun --x`, `tools/setup.sh --x`, `benchmarks/a.py --x`
      another program's flag, named by the line itself: not switchyard's.

--help and --version are answered before the flags are parsed
(tools/cli/main.cc), so they are checked by running them.

Usage (also run by `bazel test //tests:docs_flags_test`):
  tests/docs_flags_test.py [--binary=bazel-bin/tools/cli/switchyard] [--verbose] [FILE.md ...]
"""

import os
import re
import subprocess
import sys

# Flags of other programs that the docs name alone, in prose or a code span
# that does not say which program takes them. Keep it short: a flag written
# on its program's command line needs no entry.
OTHER_TOOLS_FLAGS = {
    # Bazel: the sanitizer configs of .bazelrc, the output folder they pick
    # and the malloc hook (docs/robustness.md); building without CUDA.
    "config": "bazel",
    "platform-suffix": "bazel",
    "custom-malloc": "bazel",
    "define": "bazel",
    # The benchmark binaries' own flags and Google Benchmark's.
    "repetitions": "benchmarks/vgg11_benchmark",
    "layer-batch": "benchmarks/vgg11_benchmark",
    "write-boxes": "benchmarks/nms_benchmark",
    "benchmark-out": "Google Benchmark",
    # The peers and their comparison (docs/benchmarks.md).
    "png": "benchmarks/compare.py",
    "no-spin": "benchmarks/onnxruntime_peer.js",
    # Open MPI's mpirun (docs/scaling.md).
    "allow-run-as-root": "mpirun",
    "oversubscribe": "mpirun",
    # The GNU linker (docs/architecture.md, on loading CUDA's libraries).
    "as-needed": "ld",
}

# Answered by tools/cli/main.cc before Abseil parses: checked by running.
BUILTIN_FLAGS = ("help", "version")

# Programs other than switchyard that start a command line in the docs.
# (Scripts and bazel-bin/ binaries are recognised by their paths.)
OTHER_PROGRAMS = {
    "bazel", "mpirun", "srun", "npm", "pytest", "python3", "/usr/bin/python3",
    "gdb", "valgrind", "numactl", "taskset",
}

FLAG = re.compile(r"(?<![\w-])--([A-Za-z][\w-]*)")
SWITCHYARD_PROGRAM = re.compile(r"(^|/)switchyard$|^//(tools/cli)?:switchyard$")
CODE_SPAN = re.compile(r"`([^`]+)`")


def normalize(name):
    """Flag names take dashes or underscores (tools/cli/main.cc)."""
    return name.replace("_", "-")


def run(binary, *args):
    env = dict(os.environ)
    env.pop("BUILD_WORKING_DIRECTORY", None)
    return subprocess.run([binary, *args], capture_output=True, text=True,
                          env=env, timeout=120)


def help_flags(binary):
    """{command: set of flags} from `switchyard help` and `help COMMAND`."""
    general = run(binary, "help")
    if general.returncode != 0:
        sys.exit(f"FAIL: `{binary} help` exited {general.returncode}: {general.stderr}")
    commands = re.findall(r"^  ([a-z]+)  ", general.stdout.split("commands:", 1)[-1],
                          re.M)
    commands = [c for c in commands if c != "help"]
    if not commands:
        sys.exit(f"FAIL: `switchyard help` lists no commands:\n{general.stdout}")
    flags = {}
    for command in commands:
        out = run(binary, "help", command)
        if out.returncode != 0:
            sys.exit(f"FAIL: `switchyard help {command}` exited {out.returncode}")
        flags[command] = set(re.findall(r"^  --([a-z0-9-]+)  \(default", out.stdout, re.M))
        if not flags[command]:
            sys.exit(f"FAIL: `switchyard help {command}` lists no flags:\n{out.stdout}")
    return flags


def check_builtins(binary):
    """--help and --version work, as the docs say; returns failures."""
    failures = []
    version = run(binary, "--version")
    if version.returncode != 0 or "switchyard" not in version.stdout:
        failures.append(f"`switchyard --version` exited {version.returncode}: "
                        f"{version.stdout[:200]}{version.stderr[:200]}")
    helped = run(binary, "run", "--help")
    if helped.returncode != 0 or helped.stdout != run(binary, "help", "run").stdout:
        failures.append("`switchyard run --help` does not print `switchyard help run`")
    return failures


def segments(text):
    """(text, first line number, is code) for each code-block command line,
    code span and prose paragraph of a Markdown file."""
    lines = text.split("\n")
    out = []
    paragraph, paragraph_start = [], 0
    in_fence = False
    code_indent = None  # indentation of the current indented code block
    command, command_start, command_indent = None, 0, 0

    def flush_paragraph():
        nonlocal paragraph
        if paragraph:
            out.append(("\n".join(paragraph), paragraph_start, False))
        paragraph = []

    def flush_command():
        nonlocal command
        if command is not None:
            out.append((command, command_start, True))
        command = None

    def add_code_line(line, number):
        # A line indented deeper than the command before it, or after a
        # trailing backslash, continues that command.
        nonlocal command, command_start, command_indent
        indent = len(line) - len(line.lstrip())
        if command is not None and (command.endswith("\\") or indent > command_indent):
            command += "\n" + line
            return
        flush_command()
        command, command_start, command_indent = line, number, indent

    previous_blank = True
    for number, line in enumerate(lines, start=1):
        stripped = line.strip()
        if stripped.startswith("```"):
            flush_paragraph()
            flush_command()
            in_fence = not in_fence
            previous_blank = False
            continue
        if in_fence:
            add_code_line(line, number)
            continue
        indent = len(line) - len(line.lstrip(" "))
        if stripped and (code_indent is not None or previous_blank) and indent >= 4 \
                and not paragraph:
            if code_indent is None:
                code_indent = indent
            add_code_line(line, number)
            previous_blank = False
            continue
        if not stripped:
            # A blank line inside an indented block keeps the block open.
            flush_command()
            flush_paragraph()
            previous_blank = True
            continue
        code_indent = None
        flush_command()
        if not paragraph:
            paragraph_start = number
        paragraph.append(line)
        previous_blank = False
    flush_paragraph()
    flush_command()

    # Code spans of prose, then the prose around them.
    result = []
    for segment, start, is_code in out:
        if is_code:
            result.append((segment, start, True))
            continue
        for span in CODE_SPAN.finditer(segment):
            result.append((span.group(1), start + segment.count("\n", 0, span.start()), True))
        prose = CODE_SPAN.sub(lambda m: "\n" * m.group(0).count("\n"), segment)
        result.append((prose, start, False))
    return result


def clean_token(token):
    return token.strip("`'\"()[]{},;:.").lstrip("$")


def program_of(token):
    """'switchyard', another program's name, or None for an argument."""
    word = clean_token(token)
    if SWITCHYARD_PROGRAM.search(word):
        return "switchyard"
    if word in OTHER_PROGRAMS:
        return word
    if word.startswith("bazel-bin/") and not word.endswith(".so"):
        return word
    if re.search(r"\.(py|sh|js)$", word) and not word.startswith("-"):
        return word
    return None


def flag_mentions(segment, is_code, commands):
    """(flag name, owner, commands or None, offset) for each --flag of one
    segment. owner: 'switchyard', '' (no program named) or another program.
    Prose names no program: its words are not command lines."""
    mentions = []
    if not is_code:
        return [(m.group(1), "", None, m.start()) for m in FLAG.finditer(segment)]
    # Runs of tokens, each started by a program (or the segment's start).
    tokens = [(m.group(0), m.start()) for m in re.finditer(r"\S+", segment)]
    runs, current = [], ["", []]
    first = clean_token(tokens[0][0]).split("|")[0] if tokens else ""
    if first in commands:  # `run --images`: switchyard's command, unnamed
        current[0] = "switchyard"
    for token, offset in tokens:
        program = program_of(token)
        if program is not None:
            runs.append(current)
            current = [program, []]
        current[1].append((token, offset))
    runs.append(current)
    for owner, run_tokens in runs:
        named = None
        if owner == "switchyard":
            for token, _ in run_tokens:
                words = clean_token(token).split("|")
                if all(w in commands for w in words):
                    named = words
                    break
        for token, offset in run_tokens:
            for flag in FLAG.finditer(token):
                mentions.append((flag.group(1), owner, named, offset + flag.start()))
    return mentions


def main(argv):
    binary, verbose, files = None, False, []
    for arg in argv:
        if arg.startswith("--binary="):
            binary = arg.split("=", 1)[1]
        elif arg == "--verbose":
            verbose = True
        else:
            files.append(arg)
    root = os.path.join(os.environ["TEST_SRCDIR"], "switchyard") \
        if "TEST_SRCDIR" in os.environ else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if binary is None:
        binary = os.path.join(root, "tools/cli/switchyard")
        if not os.path.exists(binary):
            binary = os.path.join(root, "bazel-bin/tools/cli/switchyard")
    every_doc = not files
    if every_doc:
        docs = os.path.join(root, "docs")
        if not os.path.isfile(os.path.join(root, "README.md")) or not os.path.isdir(docs):
            sys.exit(f"FAIL: no README.md and docs/ under {root} (the test's data)")
        files = [os.path.join(root, "README.md")] + sorted(
            os.path.join(docs, f) for f in os.listdir(docs) if f.endswith(".md"))

    by_command = help_flags(binary)
    every_flag = set().union(*by_command.values())
    failures = check_builtins(binary)
    counts = {"switchyard": 0, "other program": 0, "allow-listed": 0}
    allow_listed_seen = set()
    for path in files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        name = os.path.relpath(path, root)
        for segment, start, is_code in segments(text):
            for flag, owner, named, offset in flag_mentions(segment, is_code, by_command):
                line = start + segment.count("\n", 0, offset)
                where = f"{name}:{line}: --{flag}"
                wanted = normalize(flag)
                if owner not in ("", "switchyard"):
                    counts["other program"] += 1
                    if verbose:
                        print(f"{where}: {owner}'s (named on the line)")
                    continue
                if wanted in BUILTIN_FLAGS:
                    counts["switchyard"] += 1
                    continue
                if named:
                    missing = [c for c in named if wanted not in by_command[c]]
                    if missing:
                        failures.append(
                            f"{where} (switchyard {'|'.join(named)}): not in "
                            + ", ".join(f"`switchyard help {c}`" for c in missing))
                    counts["switchyard"] += 1
                elif wanted in every_flag:
                    counts["switchyard"] += 1
                elif owner == "" and wanted in OTHER_TOOLS_FLAGS:
                    counts["allow-listed"] += 1
                    allow_listed_seen.add(wanted)
                    if verbose:
                        print(f"{where}: {OTHER_TOOLS_FLAGS[wanted]}'s (allow-list)")
                else:
                    failures.append(
                        f"{where}: no switchyard command has it (`switchyard help "
                        "COMMAND`); if it is another program's, write the program "
                        "on the line or add it to OTHER_TOOLS_FLAGS")
                if verbose and (named or wanted in every_flag):
                    print(f"{where}: switchyard {'|'.join(named) if named else '(any command)'}")
    if every_doc:
        # An entry no doc needs any more goes, so that the list stays short.
        for unused in sorted(set(OTHER_TOOLS_FLAGS) - allow_listed_seen):
            failures.append(f"OTHER_TOOLS_FLAGS has --{unused}, which no doc names "
                            "alone any more: remove it")
    for failure in failures:
        print(f"FAIL: {failure}")
    total = sum(counts.values())
    print(f"{len(files)} files, {total} flag mentions: {counts['switchyard']} switchyard's "
          f"(checked against help), {counts['other program']} of the program their line "
          f"names, {counts['allow-listed']} other tools' (OTHER_TOOLS_FLAGS)")
    if total == 0:
        print("FAIL: no flags found; the extraction is broken")
        return 1
    if failures:
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
