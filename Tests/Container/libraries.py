"""The shared libraries a program needs, and the Debian packages they come from
(for check_container.py)."""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import dockerfile

# Debian's merged /usr: /lib, /lib64, /bin and /sbin are links into /usr, and dpkg knows each
# file under the one name its package ships it as.
_MERGED = ("/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")


@dataclass(frozen=True)
class Library:
    name: str  # as the program asks for it: libyajl.so.2
    path: str | None  # where the loader finds it, None when it does not ("not found")

    @property
    def resolved(self) -> str | None:
        return os.path.realpath(self.path) if self.path else None


def ldd(binary: Path) -> list[Library]:
    """The libraries `ldd` lists for the binary, the loader included; the vDSO (part of the
    kernel, not a file) left out."""
    result = subprocess.run(["ldd", str(binary)], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    if result.returncode != 0:
        raise OSError(f"ldd {binary} exited {result.returncode}: {result.stderr.strip()}")
    libraries = []
    for line in result.stdout.splitlines():
        line = line.strip()
        if match := re.fullmatch(r"(\S+) => not found", line):
            libraries.append(Library(match.group(1), None))
        elif match := re.fullmatch(r"(\S+) => (/\S+) \(0x[0-9a-f]+\)", line):
            libraries.append(Library(match.group(1), match.group(2)))
        elif match := re.fullmatch(r"(/\S+) \(0x[0-9a-f]+\)", line):
            libraries.append(Library(os.path.basename(match.group(1)), match.group(1)))
        elif re.fullmatch(r"linux-(vdso|gate)\.so\.\d+ \(0x[0-9a-f]+\)", line):
            continue
        elif line:
            raise OSError(f"cannot read this line of ldd's output: {line!r}")
    return libraries


def mapped(pid: int, binary: Path) -> list[Library]:
    """The shared objects a running process has mapped: what it linked and what it dlopen'ed."""
    paths: dict[str, None] = {}
    for line in Path(f"/proc/{pid}/maps").read_text(encoding="utf-8").splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5].startswith("/") and re.search(r"\.so(\.|$)", os.path.basename(fields[5])):
            if os.path.realpath(fields[5]) != os.path.realpath(binary):
                paths[fields[5]] = None
    return [Library(os.path.basename(p), p) for p in paths]


def aliases(path: str) -> list[str]:
    """The path and its other name under merged /usr."""
    names = [path]
    for top in _MERGED:
        if path.startswith(top + "/"):
            names.append("/usr" + path)
        elif path.startswith("/usr" + top + "/"):
            names.append(path[len("/usr"):])
    return names


def owner(library: Library) -> str | None:
    """The Debian package that ships the library's file (without :arch), or None."""
    if library.path is None or library.resolved is None:
        return None
    for candidate in dict.fromkeys(aliases(library.path) + aliases(library.resolved)):
        result = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True, stdin=subprocess.DEVNULL)
        if result.returncode != 0:
            continue
        for line in result.stdout.splitlines():
            if line.startswith("diversion "):
                continue
            packages, sep, _ = line.partition(": ")
            if sep:
                return packages.split(", ")[0].split(":")[0]
    return None


def covered(library: Library, copies: list[dockerfile.Copy]) -> str | None:
    """The destination of a COPY that puts this library where the loader finds it, or None."""
    if library.path is None or library.resolved is None:
        return None
    wanted = set(aliases(library.path) + aliases(library.resolved))
    for copy in copies:
        destination = copy.destination
        if destination in wanted:
            return destination
        directory = destination.rstrip("/") + "/"
        for source in copy.sources:
            # A file copied into a directory keeps its name; a directory copied brings its files.
            target = directory + os.path.basename(source.rstrip("/"))
            if (destination.endswith("/") or len(copy.sources) > 1) and target in wanted:
                return target
            if not re.search(r"\.so(\.|$)", os.path.basename(source)) and any(w.startswith(directory) for w in wanted):
                return f"{destination} (a directory)"
    return None
