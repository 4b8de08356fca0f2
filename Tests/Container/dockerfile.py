"""A small Dockerfile reader for check_container.py: stages, instructions and what they say.

It understands what this project's Dockerfile uses: comments, line continuations, stages
(FROM ... AS name), ENV (key=value and the old "key value"), exec and shell forms of RUN,
CMD, ENTRYPOINT and HEALTHCHECK, COPY/ADD with flags, and apt-get install lines. Variable
substitution ($VAR in instructions) and heredocs are not supported: check_container.py fails
on a value that would need them rather than guess.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Instruction:
    keyword: str  # upper case: FROM, RUN, ...
    arguments: str  # the rest of the logical line, continuations joined
    line: int  # where it starts in the file, 1-based


@dataclass
class Stage:
    image: str
    name: str | None
    instructions: list[Instruction] = field(default_factory=list)

    def all(self, keyword: str) -> list[Instruction]:
        return [i for i in self.instructions if i.keyword == keyword]

    def last(self, keyword: str) -> Instruction | None:
        found = self.all(keyword)
        return found[-1] if found else None


@dataclass
class Healthcheck:
    options: dict[str, str]
    command: list[str]  # argv; a shell-form command is ["/bin/sh", "-c", text]


@dataclass
class Copy:
    sources: list[str]
    destination: str
    flags: dict[str, str]


class DockerfileError(Exception):
    pass


def read(path: Path) -> list[Stage]:
    """The stages of the Dockerfile at path, in order."""
    return parse(path.read_text(encoding="utf-8"))


def parse(text: str) -> list[Stage]:
    stages: list[Stage] = []
    for instruction in _logical_lines(text):
        if instruction.keyword == "FROM":
            words = [w for w in instruction.arguments.split() if not w.startswith("--")]
            if not words:
                raise DockerfileError(f"line {instruction.line}: FROM without an image")
            name = words[2] if len(words) >= 3 and words[1].upper() == "AS" else None
            stages.append(Stage(image=words[0], name=name))
        elif instruction.keyword == "ARG" and not stages:
            continue  # an ARG before the first FROM
        elif not stages:
            raise DockerfileError(f"line {instruction.line}: {instruction.keyword} before any FROM")
        else:
            stages[-1].instructions.append(instruction)
    if not stages:
        raise DockerfileError("no FROM: not a Dockerfile")
    return stages


def _logical_lines(text: str) -> list[Instruction]:
    """Instructions with continuation lines joined; comment lines dropped, as Docker does,
    also inside a continued instruction."""
    result: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending.append(stripped[:-1].strip())
            continue
        pending.append(stripped)
        joined = " ".join(p for p in pending if p)
        pending = []
        keyword, _, arguments = joined.partition(" ")
        result.append(Instruction(keyword.upper(), arguments.strip(), start))
    if pending:
        raise DockerfileError(f"line {start}: the file ends inside a continued instruction")
    return result


def exec_form(arguments: str) -> list[str] | None:
    """The argv of an exec-form (JSON array) argument, or None for the shell form."""
    text = arguments.strip()
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None  # Docker, too, runs an invalid JSON array as a shell command
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return None
    return value


def command(arguments: str) -> list[str]:
    """argv for RUN, CMD or ENTRYPOINT: the exec form as written, the shell form through /bin/sh -c."""
    argv = exec_form(arguments)
    return argv if argv is not None else ["/bin/sh", "-c", arguments]


def environment(stage: Stage) -> dict[str, str]:
    """The variables the stage's ENV instructions set, in order (later ones win)."""
    result: dict[str, str] = {}
    for instruction in stage.all("ENV"):
        if "$" in instruction.arguments:
            raise DockerfileError(f"line {instruction.line}: ENV with a $ substitution is not supported by this check")
        words = shlex.split(instruction.arguments)
        if not words:
            raise DockerfileError(f"line {instruction.line}: ENV without a variable")
        if "=" in words[0]:
            for word in words:
                key, sep, value = word.partition("=")
                if not sep:
                    raise DockerfileError(f"line {instruction.line}: ENV {word!r} has no '='")
                result[key] = value
        else:  # ENV key value with spaces
            key, _, value = instruction.arguments.partition(" ")
            result[key] = value.strip()
    return result


def healthcheck(stage: Stage) -> Healthcheck | None:
    """The stage's last HEALTHCHECK, or None when it has none or says NONE."""
    instruction = stage.last("HEALTHCHECK")
    if instruction is None:
        return None
    rest = instruction.arguments
    options: dict[str, str] = {}
    while True:
        match = re.match(r"--([a-z-]+)=(\S+)\s+", rest)
        if not match:
            break
        options[match.group(1)] = match.group(2)
        rest = rest[match.end():]
    keyword, _, cmd = rest.partition(" ")
    if keyword.upper() == "NONE":
        return None
    if keyword.upper() != "CMD":
        raise DockerfileError(f"line {instruction.line}: HEALTHCHECK needs CMD or NONE, not {keyword!r}")
    return Healthcheck(options, command(cmd))


def seconds(duration: str) -> float:
    """A Docker duration (30s, 1m30s, 500ms, 1h) in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6, "ns": 1e-9}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)", duration)
    if not parts or "".join(n + u for n, u in parts) != duration:
        raise DockerfileError(f"not a duration: {duration!r}")
    return sum(float(n) * units[u] for n, u in parts)


def copies(stage: Stage) -> list[Copy]:
    """The stage's COPY and ADD instructions."""
    result: list[Copy] = []
    for instruction in stage.instructions:
        if instruction.keyword not in ("COPY", "ADD"):
            continue
        rest = instruction.arguments
        flags: dict[str, str] = {}
        while match := re.match(r"--([a-z-]+)(?:=(\S*))?\s+", rest):
            flags[match.group(1)] = match.group(2) or ""
            rest = rest[match.end():]
        argv = exec_form(rest)
        paths = argv if argv is not None else shlex.split(rest)
        if len(paths) < 2:
            raise DockerfileError(f"line {instruction.line}: {instruction.keyword} needs a source and a destination")
        result.append(Copy(sources=paths[:-1], destination=paths[-1], flags=flags))
    return result


def apt_installs(stage: Stage) -> list[tuple[Instruction, list[str], list[str]]]:
    """Each `apt-get install` (or `apt install`) in the stage's RUN instructions:
    (the RUN, the packages, the options)."""
    result = []
    for instruction in stage.all("RUN"):
        argv = exec_form(instruction.arguments)
        text = " ".join(argv) if argv is not None else instruction.arguments
        for segment in re.split(r"&&|\|\||;|\||\n", text):
            try:
                words = shlex.split(segment)
            except ValueError:
                continue
            while words and (words[0] in ("sudo", "env", "exec") or re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0])):
                words.pop(0)
            if len(words) < 2 or words[0] not in ("apt-get", "apt"):
                continue
            rest = words[1:]
            subcommand = next((w for w in rest if not w.startswith("-")), None)
            if subcommand != "install":
                continue
            after = rest[rest.index("install") + 1:]
            options = [w for w in rest if w.startswith("-")]
            packages = [re.split(r"[=/:]", w, maxsplit=1)[0] for w in after if not w.startswith("-")]
            result.append((instruction, packages, options))
    return result


def dockerignore(path: Path) -> list[tuple[bool, re.Pattern[str]]]:
    """The patterns of a .dockerignore: (is an exception "!…", pattern); none when it is missing."""
    if not path.exists():
        return []
    patterns = []
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        pattern = line[1:].strip() if negate else line
        pattern = pattern.strip("/")
        regex = ""
        index = 0
        while index < len(pattern):
            if pattern.startswith("**/", index):
                regex += "(?:.*/)?"
                index += 3
            elif pattern.startswith("**", index):
                regex += ".*"
                index += 2
            elif pattern[index] == "*":
                regex += "[^/]*"
                index += 1
            elif pattern[index] == "?":
                regex += "[^/]"
                index += 1
            else:
                regex += re.escape(pattern[index])
                index += 1
        patterns.append((negate, re.compile(regex)))
    return patterns


def ignored(path: str, patterns: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Whether docker build leaves the file at path (relative to the context) out of the context:
    the last pattern matching it or one of its parent directories decides."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:i]) for i in range(1, len(parts) + 1)]
    result = False
    for negate, pattern in patterns:
        if any(pattern.fullmatch(prefix) for prefix in prefixes):
            result = not negate
    return result
