#!/usr/bin/env python3
"""Refresh the compiled-resource numbers of an algorithm's characterization from its kernels.

Compiles the algorithm's kernel source (`autotune.algorithms`: crauser and martin share
kernels/sssp.cu and autotune/algorithms/thesis/sssp.toml; delta has kernels/delta.cu and
autotune/algorithms/delta/delta.toml) with `nvcc --resource-usage` for one architecture (default sm_90,
the H100/H200's), once per build the engine uses (`Algorithm.builds()`: with and without
`-DNO_L1=1 -Xptxas -dlcm=cg`, the `no_l1` state, and the thesis's two algorithms), and rewrites in
the characterization, for every kernel it characterizes, `registers_per_thread` and
`static_shared_memory_bytes` (the most over the builds and over the compiled functions that launch
as that kernel, `Algorithm.compiled_functions`, so that occupancy is never overestimated; where
several functions launch as one kernel, each one's own as `registers_by_function` and
`static_shared_by_function`) and the
[compiled] table (arch, command, compiler, source digest). The classes, [model] constants and
comments of the file are left as they are.

Usage (from the repository's root):

    python3 scripts/refresh_characterization.py            # rewrite autotune/algorithms/thesis/sssp.toml
    python3 scripts/refresh_characterization.py --algorithm delta
    python3 scripts/refresh_characterization.py --check    # exit 1 if a file is out of date
    python3 scripts/refresh_characterization.py --arch sm_80 --output /tmp/a100.toml

Register counts depend on the architecture: numbers compiled for sm_90 are what the model uses for
every device profile (CUDA 13's nvcc cannot compile for Fermi or Kepler), which is stated in the
[compiled] table.
"""
from __future__ import annotations

import argparse
import hashlib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))
from autotune import algorithms  # noqa: E402  (imports no PyCUDA)


def family(name: str) -> list[algorithms.Algorithm]:
    """The registered algorithms that share `name`'s characterization file."""
    chosen = algorithms.get(name)
    return [a for a in algorithms.all_algorithms() if a.characterization_file == chosen.characterization_file]


def builds_of(members: list[algorithms.Algorithm]) -> dict[str, list[str]]:
    """name -> extra nvcc flags: the builds the engine launches, with the engine's own options."""
    builds: dict[str, list[str]] = {}
    for no_l1 in (False, True):
        for member in members:
            builds[f"{member.name}{' no_l1' if no_l1 else ''}"] = member.compile_options(no_l1)
    return builds

_ENTRY = re.compile(r"Compiling entry function '([^']+)' for '([^']+)'")
_USED = re.compile(r"Used (\d+) registers(?:.*?, (\d+) bytes smem)?")


@dataclass(frozen=True)
class Usage:
    registers: int
    shared_bytes: int


def parse_resource_usage(text: str) -> dict[str, Usage]:
    """Per kernel, the registers and static shared memory that `nvcc --resource-usage` printed."""
    usage: dict[str, Usage] = {}
    current: str | None = None
    for line in text.splitlines():
        entry = _ENTRY.search(line)
        if entry:
            current = entry.group(1)
            continue
        used = _USED.search(line)
        if used and current is not None:
            usage[current] = Usage(int(used.group(1)), int(used.group(2) or 0))
            current = None
    return usage


def nvcc_command(nvcc: str, arch: str, source: Path, flags: list[str]) -> list[str]:
    return [nvcc, "--resource-usage", f"-arch={arch}", *flags, "-c", "-o", "/dev/null", str(source)]


def compile_usage(nvcc: str, arch: str, source: Path, builds: dict[str, list[str]]) -> dict[str, dict[str, Usage]]:
    """{build: {compiled function: Usage}} for every build."""
    result = {}
    for build, flags in builds.items():
        command = nvcc_command(nvcc, arch, source, flags)
        try:
            done = subprocess.run(command, capture_output=True, text=True, check=False)
        except FileNotFoundError:
            raise SystemExit(f"refresh: {nvcc} not found; install the CUDA toolkit or pass --nvcc PATH") from None
        if done.returncode != 0:
            raise SystemExit(f"refresh: {' '.join(command)} failed:\n{done.stderr}")
        result[build] = parse_resource_usage(done.stdout + done.stderr)
    return result


def compiler_version(nvcc: str) -> str:
    done = subprocess.run([nvcc, "--version"], capture_output=True, text=True, check=False)
    lines = [line for line in done.stdout.splitlines() if line.startswith("Cuda compilation tools")]
    return lines[0].strip() if lines else "unknown"


def _section_bounds(text: str, header: str) -> tuple[int, int] | None:
    """Start and end offsets of a TOML table's body (after its header line, up to the next header)."""
    match = re.search(rf"^\[{re.escape(header)}\][^\n]*\n", text, flags=re.MULTILINE)
    if not match:
        return None
    following = re.search(r"^\s*\[", text[match.end():], flags=re.MULTILINE)
    end = match.end() + following.start() if following else len(text)
    return match.end(), end


def _set_key(body: str, key: str, line: str) -> str:
    """Replace the line `key = ...` in a table body by `line`, or add it after the last key line."""
    pattern = re.compile(rf"^{re.escape(key)}\s*=.*$", flags=re.MULTILINE)
    if pattern.search(body):
        return pattern.sub(line.replace("\\", "\\\\"), body, count=1)
    lines = body.rstrip("\n").split("\n")
    last = max((i for i, text in enumerate(lines) if re.match(r"^\w+\s*=", text)), default=len(lines) - 1)
    lines.insert(last + 1, line)
    return "\n".join(lines) + "\n" + ("\n" if body.endswith("\n\n") else "")


def rewrite(text: str, usage: dict[str, dict[str, Usage]], arch: str, compiled: dict[str, str],
            functions: dict[str, tuple[str, ...]] | None = None) -> str:
    """The characterization text with fresh resource numbers and [compiled] table.

    Args:
        functions: per characterized kernel, the compiled functions that launch as it (default:
            the function of the kernel's own name).

    Raises:
        SystemExit: a characterized kernel is missing from the compiled source.
    """
    kernels = re.findall(r"^\[kernels\.([A-Za-z_][\w-]*)\]", text, flags=re.MULTILINE)
    for kernel in kernels:
        names = (functions or {}).get(kernel, (kernel,))
        builds = {}
        for build, per_function in usage.items():
            found = [per_function[f] for f in names if f in per_function]
            if found:
                builds[build] = Usage(max(u.registers for u in found), max(u.shared_bytes for u in found))
        if not builds:
            raise SystemExit(f"refresh: kernel {kernel!r} of the characterization is not in the compiled source")
        registers = max(u.registers for u in builds.values())
        shared = max(u.shared_bytes for u in builds.values())
        per_build_registers = ", ".join(f"{build} {u.registers}" for build, u in builds.items())
        shared_values = {u.shared_bytes for u in builds.values()}
        per_build_shared = (
            f"{shared} in every build"
            if len(shared_values) == 1
            else ", ".join(f"{build} {u.shared_bytes}" for build, u in builds.items())
        )
        start, end = _section_bounds(text, f"kernels.{kernel}")
        body = text[start:end]
        body = _set_key(body, "registers_per_thread", f"registers_per_thread = {registers}  # {arch}: {per_build_registers}")
        if len(names) > 1:  # each function's own registers and shared memory, the most over the builds
            for key, of in (("registers_by_function", lambda u: u.registers),
                            ("static_shared_by_function", lambda u: u.shared_bytes)):
                each = {f: max(of(per_function[f]) for per_function in usage.values() if f in per_function)
                        for f in names if any(f in per_function for per_function in usage.values())}
                body = _set_key(body, key, f"{key} = {{ " + ", ".join(f"{f} = {n}" for f, n in each.items())
                                + f" }}  # {arch}")
        body = _set_key(
            body, "static_shared_memory_bytes", f"static_shared_memory_bytes = {shared}  # {arch}: {per_build_shared}"
        )
        text = text[:start] + body + text[end:]

    table = "".join(f"{key} = {_toml_string(value)}\n" for key, value in compiled.items())
    bounds = _section_bounds(text, "compiled")
    if bounds is None:
        first = re.search(r"^\[kernels\.", text, flags=re.MULTILINE)
        at = first.start() if first else len(text)
        text = text[:at] + "[compiled]\n" + table + "\n" + text[at:]
    else:
        start, end = bounds
        text = text[:start] + table + "\n" + text[end:].lstrip("\n")
    return text


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--arch", default="sm_90", help="nvcc architecture (default sm_90)")
    parser.add_argument("--nvcc", default="nvcc", help="the nvcc to run")
    parser.add_argument("--algorithm", default=None,
                        help=f"whose characterization ({', '.join(algorithms.names())}; default: every one)")
    parser.add_argument("--output", type=Path, help="write here instead of over the characterization")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if out of date")
    args = parser.parse_args(argv)
    if args.algorithm is None:
        if args.output:
            raise SystemExit("refresh: --output needs --algorithm")
        firsts = {a.characterization_file: a.name for a in reversed(algorithms.all_algorithms())}
        return max(refresh_one(args, name) for name in sorted(set(firsts.values()), key=algorithms.names().index))
    return refresh_one(args, args.algorithm)


def source_digest(source: Path) -> str:
    """SHA-256 of the source and of the headers it includes from its own folder (`#include "x"`),
    in the order included: a change to a shared header changes the digest too."""
    digest = hashlib.sha256(source.read_bytes())
    for header in re.findall(r'^#include "([^"]+)"', source.read_text(), flags=re.MULTILINE):
        digest.update((source.parent / header).read_bytes())
    return digest.hexdigest()


def refresh_one(args: argparse.Namespace, name: str) -> int:
    members = family(name)
    source = members[0].source_path
    characterization = members[0].characterization_path
    builds = builds_of(members)
    if not source.is_file():
        raise SystemExit(f"refresh: {source} does not exist; the kernels must be written first")
    usage = compile_usage(args.nvcc, args.arch, source, builds)
    try:
        shown_source = source.resolve().relative_to(ROOT)
    except ValueError:
        shown_source = source
    compiled = {
        "arch": args.arch,
        "command": (
            f"nvcc --resource-usage -arch={args.arch} -c {shown_source}, for each of: "
            + ", ".join(" ".join(flags) or "(none)" for flags in builds.values())
        ),
        "compiler": compiler_version(args.nvcc),
        "source_sha256": source_digest(source),
        "note": "per kernel: the most registers and shared memory over the builds; the model uses "
        f"these {args.arch} numbers for every device profile",
    }
    old = characterization.read_text()
    new = rewrite(old, usage, args.arch, compiled, dict(members[0].compiled_functions()))
    if args.check:
        if new != old:
            print(f"{characterization} is out of date with {source}; run {Path(__file__).name}", file=sys.stderr)
            return 1
        print(f"{characterization} is up to date")
        return 0
    target = args.output or characterization
    target.write_text(new)
    characterized = set(re.findall(r"^\[kernels\.([A-Za-z_][\w-]*)\]", new, flags=re.MULTILINE))
    launched = {f for k in characterized for f in dict(members[0].compiled_functions()).get(k, (k,))}
    others = sorted({kernel for per_kernel in usage.values() for kernel in per_kernel} - launched)
    if others:
        print(f"not characterized (not tuned): {', '.join(others)}")
    print(f"wrote {target} ({args.arch}, {compiled['compiler']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
