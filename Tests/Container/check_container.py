#!/usr/bin/env python3
"""Checks the Dockerfile by construction, since no container engine runs here or in CI.

1. build      builds the release docserver with scripts/build.sh --full (every package trait:
              PostgreSQL, TLS, users), the build the Dockerfile's builder stage runs (the README's
              ./scripts/serve.sh runs the same script without --full), and requires its
              --version to name every trait.
2. dockerfile the builder stage COPYs the project and runs scripts/build.sh --full; the runtime stage
              copies that script's binary onto the PATH, is the Debian release of this machine
              (whose packages the library check asks) and the builder's Swift is this one;
              a USER that is not root, VOLUME /data, EXPOSE 7878 = DOCSERVER_PORT, exec-form
              ENTRYPOINT + CMD. The build context (tracked files less .dockerignore) holds what
              the build needs and not the local .build, Package.resolved or data/.
3. libraries  every shared library `ldd` lists for the binary (no "not found") comes from a
              Debian package (`dpkg -S`, /lib and /usr/lib being one) that the runtime stage
              apt-get installs, or is a file the stage COPYs; the install list names no package
              that no library comes from. A self-test runs the same check on a copy of the
              Dockerfile without libyajl2 and requires it to report libyajl2.
4. runtime    runs the runtime stage's ENTRYPOINT + CMD with its ENV as the container would: with
              the container's environment only, as PID 1 of a new PID namespace and as a non-root
              user (both when run as root), the store under a temporary directory standing for
              /data, a free port, a token. It answers hello, ping and a save; the HEALTHCHECK
              command exits 0; the libraries the running server has mapped (dlopen included) are
              covered too; SIGTERM stops it with exit 0 promptly, after which the HEALTHCHECK
              fails. With DOCSERVER_MODEL naming a model file it serves that model, and so with an
              Xcode .xcdatamodeld bundle (read with libxml2, which the image must hold). Without
              DOCSERVER_AUTH_TOKEN it exits non-zero naming the variable.

Usage: Tests/Container/check_container.py [--skip-build] [--dockerfile PATH]
Prints one line per check and "container: N passed, N failed"; exits 1 when a check failed.
Standard library only; no standard input needed; cleans up its processes and directories.
"""

from __future__ import annotations

import argparse
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.dont_write_bytecode = True  # no __pycache__ left in the work tree
sys.path.insert(0, str(Path(__file__).resolve().parent))
import dockerfile  # noqa: E402
from libraries import Library, covered, ldd, owner  # noqa: E402
from runtime import Container, RuntimeFailure  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
BUILD_SCRIPT = "scripts/build.sh"
# The container offers PostgreSQL, TLS and users: it is built with every trait (Package.swift).
FULL_BUILD = "--full"
TRAITS = ("PostgreSQL", "TLS", "Users")
BINARY = ROOT / ".build" / "release" / "docserver"


class Stop(BaseException):
    """SIGTERM, SIGHUP or SIGINT: stop, cleaning up."""


class Report:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, name: str, function, *arguments):
        """Runs one check; it returns a one-line summary or raises with the reason."""
        started = time.monotonic()
        try:
            summary = function(*arguments)
        except Stop:
            raise
        except (AssertionError, RuntimeFailure, dockerfile.DockerfileError) as error:
            self.fail(name, str(error))
            return None
        except Exception as error:  # a check that broke is a failed check too, with what broke
            self.fail(name, f"{type(error).__name__}: {error}")
            return None
        self.passed += 1
        print(f"  ok    {name}: {summary} ({time.monotonic() - started:.1f} s)", flush=True)
        return summary

    def fail(self, name: str, reason: str) -> None:
        self.failed += 1
        print(f"  FAIL  {name}: {reason}", flush=True)


def build() -> str:
    started = time.monotonic()
    result = subprocess.run([str(ROOT / BUILD_SCRIPT), FULL_BUILD], cwd=ROOT, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, f"{BUILD_SCRIPT} {FULL_BUILD} exited {result.returncode}"
    assert BINARY.is_file(), f"{BUILD_SCRIPT} {FULL_BUILD} made no {BINARY.relative_to(ROOT)}"
    version = subprocess.run([str(BINARY), "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout.strip()
    missing = [trait for trait in TRAITS if trait not in version]
    assert not missing, f"{BUILD_SCRIPT} {FULL_BUILD} built a docserver without {', '.join(missing)}: --version says {version!r}"
    return (f"{BUILD_SCRIPT} {FULL_BUILD} -> {BINARY.relative_to(ROOT)}, {BINARY.stat().st_size / 1e6:.1f} MB, "
            f"in {time.monotonic() - started:.0f} s ({version})")


def check_dockerfile(stages: list[dockerfile.Stage]) -> str:
    assert len(stages) >= 2, "expected a builder stage and a runtime stage"
    runtime = stages[-1]
    builders = {s.name: s for s in stages[:-1] if s.name}

    # The runtime stage copies the binary that the builder made with scripts/build.sh.
    binary_copies = [c for c in dockerfile.copies(runtime) if c.flags.get("from") in builders]
    assert binary_copies, "the runtime stage COPYs nothing --from a named builder stage"
    copy = binary_copies[0]
    builder = builders[copy.flags["from"]]
    workdir = builder.last("WORKDIR")
    assert workdir, f"builder stage {builder.name!r} has no WORKDIR"
    assert any(c.sources == ["."] and c.destination in (".", "./", workdir.arguments) for c in dockerfile.copies(builder)), \
        f"builder stage {builder.name!r} does not COPY . into its WORKDIR"
    runs = [r.arguments for r in builder.all("RUN")]
    assert any(re.search(r"(^|[\s/])(\./)?scripts/build\.sh\s+--full(\s|$)", r) for r in runs), \
        f"builder stage {builder.name!r} does not RUN {BUILD_SCRIPT} {FULL_BUILD} (the README's build, every trait): {runs}"
    expected_source = f"{workdir.arguments.rstrip('/')}/{BINARY.relative_to(ROOT)}"
    assert copy.sources == [expected_source], f"the runtime stage copies {copy.sources}, not {BUILD_SCRIPT}'s {expected_source}"
    serve = (ROOT / "scripts" / "serve.sh").read_text(encoding="utf-8")
    assert BUILD_SCRIPT in serve and f"exec {BINARY.relative_to(ROOT)} serve" in serve, \
        f"scripts/serve.sh does not run {BUILD_SCRIPT} and exec {BINARY.relative_to(ROOT)} serve"

    # Same Debian release as this machine (the library check asks its dpkg), same Swift.
    codename = os_release().get("VERSION_CODENAME", "?")
    assert re.fullmatch(rf"debian:{codename}(-slim)?", runtime.image), \
        f"runtime stage FROM {runtime.image}, but the libraries were checked on Debian {codename}"
    assert builder.image.endswith(f"-{codename}"), f"builder FROM {builder.image} is not Debian {codename}"
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
    version = re.search(r"Swift version (\d+\.\d+)", swift)
    assert version, f"cannot read the version of this machine's Swift: {swift!r}"
    tag = builder.image.split(":", 1)[-1]
    assert re.match(rf"{re.escape(version.group(1))}([.-]|$)", tag), \
        f"builder FROM {builder.image}, but this machine builds (and checks) with Swift {version.group(1)}"

    # Non-root user, the volume, the port.
    user = runtime.last("USER")
    assert user, "the runtime stage has no USER: it would run as root"
    name = user.arguments.split(":")[0]
    assert name not in ("root", "0"), f"USER {user.arguments} is root"
    assert any(re.search(rf"\b(useradd|adduser)\b.*\b{re.escape(name)}\b", r.arguments) for r in runtime.all("RUN")), \
        f"USER {name} is not made by a useradd/adduser in the runtime stage"
    volumes = volume_paths(runtime)
    assert "/data" in volumes, f"no VOLUME /data (volumes: {volumes})"
    ports = [p.split("/")[0] for e in runtime.all("EXPOSE") for p in e.arguments.split()]
    assert "7878" in ports, f"no EXPOSE 7878 (exposed: {ports})"
    environment = dockerfile.environment(runtime)
    assert environment.get("DOCSERVER_PORT") in ports, f"DOCSERVER_PORT={environment.get('DOCSERVER_PORT')} is not EXPOSEd"
    store = environment.get("DOCSERVER_STORE", "")
    assert store.startswith("/data/"), f"DOCSERVER_STORE={store!r} is not in the volume /data"
    for keyword in ("ENTRYPOINT", "CMD"):
        instruction = runtime.last(keyword)
        assert instruction is None or dockerfile.exec_form(instruction.arguments) is not None, \
            f"{keyword} is in shell form: /bin/sh would be PID 1 and SIGTERM would not reach docserver"
    argv = container_argv(runtime)
    assert argv[:2] == [Path(copy.destination).name, "serve"] or argv[:2] == [copy.destination, "serve"], \
        f"ENTRYPOINT + CMD is {argv}, not {copy.destination} serve"
    return (f"builder {builder.image} runs {BUILD_SCRIPT} {FULL_BUILD}; runtime {runtime.image} copies its binary to {copy.destination}; "
            f"USER {name}, VOLUME /data, EXPOSE 7878, exec-form {' '.join(argv)}")


def check_context() -> str:
    """The build context (the tracked files .dockerignore leaves in) holds what scripts/build.sh
    builds from, and none of the local build state."""
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert tracked.returncode == 0, f"git ls-files failed: {tracked.stderr.strip()}"
    patterns = dockerfile.dockerignore(ROOT / ".dockerignore")
    assert patterns, "no .dockerignore: the local .build (gigabytes) would be sent as build context"
    files = tracked.stdout.splitlines()
    needed = [f for f in files if f in ("Package.swift", BUILD_SCRIPT, "scripts/install-deps.sh") or f.startswith(("Sources/", "Tests/"))]
    left_out = [f for f in needed if dockerfile.ignored(f, patterns)]
    assert not left_out, f".dockerignore leaves out files the build needs: {left_out[:5]}"
    for local in (".build/release/docserver", "Package.resolved", "data/store.json", ".build-bench/x", "Benchmarks/.build/x"):
        assert dockerfile.ignored(local, patterns), f".dockerignore lets {local} into the build context"
    sent = [f for f in files if not dockerfile.ignored(f, patterns)]
    return f"{len(sent)} of {len(files)} tracked files sent, {len(needed)} of them what the build needs; .build, Package.resolved, data/ left out"


def os_release() -> dict[str, str]:
    values = {}
    for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
        key, sep, value = line.partition("=")
        if sep:
            values[key] = value.strip('"')
    return values


def volume_paths(stage: dockerfile.Stage) -> list[str]:
    paths: list[str] = []
    for instruction in stage.all("VOLUME"):
        argv = dockerfile.exec_form(instruction.arguments)
        paths += argv if argv is not None else instruction.arguments.split()
    return [p.rstrip("/") or "/" for p in paths]


def container_argv(stage: dockerfile.Stage) -> list[str]:
    entrypoint = stage.last("ENTRYPOINT")
    cmd = stage.last("CMD")
    return (dockerfile.command(entrypoint.arguments) if entrypoint else []) + (dockerfile.command(cmd.arguments) if cmd else [])


def library_problems(stage: dockerfile.Stage, libraries: list[Library], strict: bool = True) -> tuple[list[str], dict[str, str]]:
    """Problems with the runtime stage's packages for these libraries, and where each comes from.
    strict: also a problem when the install list names a package no library comes from."""
    installs = dockerfile.apt_installs(stage)
    installed = {p for _, packages, _ in installs for p in packages}
    problems: list[str] = []
    sources: dict[str, str] = {}
    owners_needed: set[str] = set()
    for library in libraries:
        if library.path is None:
            problems.append(f"{library.name}: not found by the loader")
            continue
        copied = covered(library, dockerfile.copies(stage))
        if copied:
            sources[library.name] = f"COPY {copied}"
            continue
        package = owner(library)
        if package is None:
            problems.append(f"{library.name} ({library.path}): no Debian package owns it, and the runtime stage does not COPY it")
        elif package not in installed:
            problems.append(f"{library.name} ({library.path}) comes from {package}, which the runtime stage does not install")
            owners_needed.add(package)
        else:
            sources[library.name] = package
            owners_needed.add(package)
    if strict:
        for package in sorted(installed - owners_needed):
            problems.append(f"the runtime stage installs {package}, but no library of the binary comes from it")
    for instruction, _, options in installs:
        if "--no-install-recommends" not in options:
            problems.append(f"line {instruction.line}: apt-get install without --no-install-recommends")
        if "/var/lib/apt/lists" not in instruction.arguments:
            problems.append(f"line {instruction.line}: the apt lists are not removed in the same RUN")
    return problems, sources


def check_libraries(stage: dockerfile.Stage, libraries: list[Library]) -> str:
    problems, sources = library_problems(stage, libraries)
    assert not problems, "; ".join(problems)
    return ", ".join(f"{name} <- {source}" for name, source in sources.items())


def check_negative(dockerfile_path: Path, libraries: list[Library], scratch: Path) -> str:
    """The library check fails on a Dockerfile whose install list lacks libyajl2."""
    text = dockerfile_path.read_text(encoding="utf-8")
    lines = [line if line.lstrip().startswith("#") else re.sub(r"(?<=\s)libyajl2(?=\s|$)", "", line) for line in text.splitlines()]
    broken = scratch / "Dockerfile.without-libyajl2"
    broken.write_text("\n".join(lines) + "\n", encoding="utf-8")
    stage = dockerfile.read(broken)[-1]
    assert "libyajl2" not in {p for _, packages, _ in dockerfile.apt_installs(stage) for p in packages}, "could not remove libyajl2 from the copy"
    problems, _ = library_problems(stage, libraries)
    reported = [p for p in problems if "libyajl2" in p and "libyajl.so" in p]
    assert reported, f"the check did not report libyajl2 missing; it said: {problems or 'nothing'}"
    return f"without libyajl2 in the install list it reports: {reported[0]}"


def run_checks(report: Report, path: Path, scratch: Path) -> None:
    try:
        stages = dockerfile.read(path)
        libraries = ldd(BINARY)
    except (dockerfile.DockerfileError, OSError) as error:
        report.fail("set-up", str(error))
        return
    runtime_stage = stages[-1]
    report.check("Dockerfile", check_dockerfile, stages)
    report.check("build context", check_context)
    report.check("libraries (ldd)", check_libraries, runtime_stage, libraries)
    report.check("library check self-test", check_negative, path, libraries, scratch)
    try:
        container = Container(runtime_stage, BINARY, scratch, volume_paths(runtime_stage), container_argv(runtime_stage))
    except (RuntimeFailure, dockerfile.DockerfileError, OSError) as error:
        report.fail("runtime set-up", f"{error}; the server was not run")
        return
    report.check("serve", container.check_serve, lambda mapped: library_problems(runtime_stage, mapped, strict=False)[0])
    report.check("DOCSERVER_MODEL", container.check_model)
    report.check("DOCSERVER_MODEL (Xcode)", container.check_xcode_model)
    report.check("no token", container.check_no_token)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-build", action="store_true", help=f"use the existing {BINARY.relative_to(ROOT)}")
    parser.add_argument("--dockerfile", type=Path, default=ROOT / "Dockerfile", help="check another Dockerfile (to try the check)")
    options = parser.parse_args()

    def stop(number, _frame):
        raise Stop(signal.Signals(number).name)
    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, stop)

    report = Report()
    print("container check: the Dockerfile against the release docserver", flush=True)
    if options.skip_build:
        report.check("build (skipped)", lambda: f"{BINARY.relative_to(ROOT)}, {BINARY.stat().st_size / 1e6:.1f} MB")
    elif report.check("build", build) is None:
        print(f"container: {report.passed} passed, {report.failed} failed")
        return 1

    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="docserver-container-check-"))
    try:
        run_checks(report, options.dockerfile, scratch)
    except Stop as reason:
        print(f"  stopped by {reason}", flush=True)
        report.failed += 1
    finally:
        Container.stop_all()
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"  {time.monotonic() - started:.1f} s after the build", flush=True)
    print(f"container: {report.passed} passed, {report.failed} failed", flush=True)
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
