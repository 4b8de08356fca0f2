"""Runs the runtime stage's command the way the container would (for check_container.py).

The image's files are laid out under a temporary root: the binary where the Dockerfile COPYs
it (its directory first on PATH), each run's volume in a directory of its own standing for
/data. The command gets the container's environment only (the image's ENV, PATH, HOME), and,
when this runs as root, is PID 1 of a new PID namespace (unshare) and runs as an unprivileged
user (setpriv), as docker run would start it. The HEALTHCHECK command runs the same way
beside it.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import shutil
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Callable, ClassVar

import dockerfile
import libraries

NOBODY = (65534, 65534)  # the user the checks run the server as, when run as root
START_TIMEOUT = 30.0  # the first start after a build pages in a 95 MB binary
STOP_TIMEOUT = 10.0  # docker stop's default grace period


class RuntimeFailure(Exception):
    pass


class Server:
    """One started container command."""

    def __init__(self, process: subprocess.Popen, log: Path, port: int | None) -> None:
        self.process = process
        self.log = log
        self.port = port
        self.lines: queue.Queue[str | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def wait_listening(self) -> tuple[str, float]:
        started = time.monotonic()
        deadline = started + START_TIMEOUT
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeFailure(f"no 'listening on' line within {START_TIMEOUT:.0f} s; log: {self.log_tail()}")
            if line is None:
                raise RuntimeFailure(f"exited {self.process.wait()} before listening; log: {self.log_tail()}")
            if line.startswith("listening on "):
                return line[len("listening on "):], time.monotonic() - started

    def log_tail(self, lines: int = 3) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return " | ".join(text[-lines:]) or "(empty)"

    def docserver_pid(self, binary: Path) -> int:
        """The host PID of docserver itself: the started process, or the child unshare forked."""
        pid = self.process.pid
        children_file = Path(f"/proc/{pid}/task/{pid}/children")
        if children_file.exists():
            children = children_file.read_text().split()
            if children:
                pid = int(children[0])
        exe = os.path.realpath(f"/proc/{pid}/exe")
        if exe != os.path.realpath(binary):
            raise RuntimeFailure(f"process {pid} runs {exe}, not {binary}")
        return pid


class Container:
    running: ClassVar[list[subprocess.Popen]] = []

    def __init__(self, stage: dockerfile.Stage, binary: Path, scratch: Path, volumes: list[str], argv: list[str]) -> None:
        self.environment = dockerfile.environment(stage)
        health = dockerfile.healthcheck(stage)
        if health is None:
            raise RuntimeFailure("the runtime stage has no HEALTHCHECK")
        self.health: dockerfile.Healthcheck = health
        self.argv = argv
        self.volumes = volumes
        workdir = stage.last("WORKDIR")
        self.workdir = workdir.arguments if workdir else "/"
        self.scratch = scratch
        self.root = scratch / "root"
        os.chmod(scratch, 0o755)  # the unprivileged user reaches the image's files

        copy = next((c for c in dockerfile.copies(stage) if os.path.basename(c.destination) == os.path.basename(argv[0])), None)
        if copy is None:
            raise RuntimeFailure(f"the runtime stage COPYs no {argv[0]}")
        self.binary = self.root / copy.destination.lstrip("/")
        self.binary.parent.mkdir(parents=True)
        try:
            os.link(binary, self.binary)
        except OSError:
            shutil.copy2(binary, self.binary)
        self.bin_directories = [str(self.binary.parent)]

        self.isolated = os.geteuid() == 0 and all(shutil.which(t) for t in ("unshare", "setpriv")) and subprocess.run(
            ["unshare", "--pid", "--fork", "--kill-child", "setpriv", f"--reuid={NOBODY[0]}", f"--regid={NOBODY[1]}",
             "--clear-groups", "--", "true"], stdin=subprocess.DEVNULL, capture_output=True).returncode == 0
        self.uid, self.gid = NOBODY if self.isolated else (os.geteuid(), os.getegid())

    # The container's view.

    def map(self, path: str, volume: Path) -> str:
        """A path in the container -> here: under a volume's directory, or under the root."""
        for mount in self.volumes:
            if path == mount or path.startswith(mount + "/"):
                return str(volume) + path[len(mount):]
        return str(self.root) + path if path.startswith("/") else path

    def env(self, volume: Path, **overrides: str | None) -> dict[str, str]:
        environment = {
            "PATH": ":".join(self.bin_directories + ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"]),
            "HOME": str(volume),
            "HOSTNAME": "docserver-check",
        }
        for key, value in self.environment.items():
            if key == "PATH":
                raise RuntimeFailure("the runtime stage sets PATH: not supported by this check")
            environment[key] = self.map(value, volume) if value.startswith("/") else value
        if "DOCSERVER_HTTP_PORT" in environment and "DOCSERVER_HTTP_PORT" not in overrides:
            environment["DOCSERVER_HTTP_PORT"] = str(free_port())  # the image's port may be taken on this machine
        for key, override in overrides.items():
            if override is None:
                environment.pop(key, None)
            else:
                environment[key] = override
        return environment

    def wrap(self, argv: list[str], as_pid_1: bool) -> list[str]:
        if not self.isolated:
            return argv
        drop = ["setpriv", f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--"]
        return (["unshare", "--pid", "--fork", "--kill-child"] if as_pid_1 else []) + drop + argv

    def how(self) -> str:
        return f"as PID 1, uid {self.uid}" if self.isolated else "not as PID 1 nor as another user (that needs root, unshare and setpriv)"

    def new_volume(self, name: str) -> Path:
        volume = self.scratch / "volumes" / name
        volume.mkdir(parents=True)
        os.chown(volume, self.uid, self.gid)
        return volume

    def start(self, volume: Path, **overrides: str | None) -> Server:
        environment = self.env(volume, **overrides)
        log = volume.parent / f"{volume.name}.log"
        with open(log, "w", encoding="utf-8") as stderr:
            process = subprocess.Popen(
                self.wrap(self.argv, as_pid_1=True), env=environment, cwd=self.map(self.workdir, volume),
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=stderr, text=True, start_new_session=True)
        Container.running.append(process)
        port = environment.get("DOCSERVER_PORT")
        return Server(process, log, int(port) if port else None)

    def healthcheck(self, volume: Path, **overrides: str | None) -> tuple[int, str]:
        timeout = dockerfile.seconds(self.health.options.get("timeout", "30s"))
        try:
            result = subprocess.run(self.wrap(self.health.command, as_pid_1=False), env=self.env(volume, **overrides),
                                    cwd=self.map(self.workdir, volume), stdin=subprocess.DEVNULL, capture_output=True,
                                    text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return -1, f"no exit within the HEALTHCHECK timeout of {timeout:.0f} s"
        return result.returncode, (result.stdout + result.stderr).strip()

    def stop(self, server: Server, pid: int) -> float:
        """SIGTERM to docserver, as docker stop sends it; the seconds until it exited 0."""
        started = time.monotonic()
        os.kill(pid, signal.SIGTERM)
        try:
            status = server.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise RuntimeFailure(f"still running {STOP_TIMEOUT:.0f} s after SIGTERM (docker stop would SIGKILL it); log: {server.log_tail()}")
        elapsed = time.monotonic() - started
        if status != 0:
            raise RuntimeFailure(f"exited {status} after SIGTERM, not 0; log: {server.log_tail()}")
        return elapsed

    @classmethod
    def stop_all(cls) -> None:
        """Kills whatever this check started and is still running (its process groups)."""
        for process in cls.running:
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                try:
                    process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    pass
            if process.stdout:
                process.stdout.close()
        cls.running.clear()

    # The checks.

    def check_serve(self, library_problems: Callable[[list[libraries.Library]], list[str]]) -> str:
        volume = self.new_volume("serve")
        token = secrets.token_hex(16)
        port = free_port()
        settings = {"DOCSERVER_PORT": str(port), "DOCSERVER_AUTH_TOKEN": token,  # docker run -e …, seen by the HEALTHCHECK too
                    "DOCSERVER_HTTP_PORT": str(free_port())}
        server = self.start(volume, **settings)
        address, waited = server.wait_listening()
        pid = server.docserver_pid(self.binary)
        if self.isolated:
            namespace_pid = Path(f"/proc/{pid}/status").read_text().split("NSpid:")[1].split("\n")[0].split()[-1]
            assert namespace_pid == "1", f"docserver is PID {namespace_pid} in its namespace, not 1"
            owner_uid = Path(f"/proc/{pid}/status").read_text().split("Uid:")[1].split()[0]
            assert owner_uid == str(self.uid), f"docserver runs as uid {owner_uid}, not {self.uid}"

        answers = exchange(port, [
            {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"client": "container check", "token": token}},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"},
            {"jsonrpc": "2.0", "id": 3, "method": "save",
             "params": {"insert": [{"id": "a", "entity": "Artist", "values": {"name": "Container Check"}}]}},
        ])
        assert "result" in answers[0] and answers[1].get("result") == "pong", f"hello/ping answered {answers[:2]}"
        assert "ids" in answers[2].get("result", {}), f"save answered {answers[2]}"
        store = Path(self.map(self.environment["DOCSERVER_STORE"], volume))
        journal = store.with_name(store.name + "-journal")
        # Acknowledged = appended to the journal beside the store file; a clean stop folds it into the file.
        assert store.is_file() and journal.is_file() and "Container Check" in journal.read_text(encoding="utf-8"), \
            f"the saved object is not in {journal.name} of the volume"

        status, output = self.healthcheck(volume, **settings)
        assert status == 0, f"HEALTHCHECK {' '.join(self.health.command)} exited {status}: {output}"
        health_line = output.splitlines()[-1] if output else ""

        mapped = libraries.mapped(pid, self.binary)
        problems = library_problems(mapped)
        assert not problems, "while serving: " + "; ".join(problems)

        stopped_in = self.stop(server, pid)
        assert "received SIGTERM" in server.log.read_text(encoding="utf-8"), "the log does not say the server received SIGTERM"
        assert "Container Check" in store.read_text(encoding="utf-8") and journal.stat().st_size == 0, \
            f"after SIGTERM the saved object is not in {store.name} with an empty journal (the stop's checkpoint)"
        after, output_after = self.healthcheck(volume, **settings)
        assert after != 0, f"HEALTHCHECK exited 0 with the server stopped: {output_after}"
        return (f"{self.how()}: listening on {address} after {waited:.1f} s; hello, ping, save answered, the object in "
                f"{self.environment['DOCSERVER_STORE']}-journal, then in the store file after SIGTERM; HEALTHCHECK `{' '.join(self.health.command)}` exit 0 ({health_line}); "
                f"{len(mapped)} mapped libraries covered; SIGTERM -> exit 0 in {stopped_in * 1000:.0f} ms; HEALTHCHECK then exits {after}")

    def check_model(self) -> str:
        """A model file the user mounts (here at /config/model.json) and names in DOCSERVER_MODEL."""
        model = self.root / "config" / "model.json"
        model.parent.mkdir(parents=True, exist_ok=True)
        model.write_text(json.dumps({"entities": [{"name": "Note", "attributes": [{"name": "text", "type": "string"}]}]}),
                         encoding="utf-8")
        model.chmod(0o644)
        volume = self.new_volume("model")
        token = secrets.token_hex(16)
        port = free_port()
        server = self.start(volume, DOCSERVER_PORT=str(port), DOCSERVER_AUTH_TOKEN=token,
                            DOCSERVER_MODEL=self.map("/config/model.json", volume))
        server.wait_listening()
        pid = server.docserver_pid(self.binary)
        answers = exchange(port, [
            {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": token}},
            {"jsonrpc": "2.0", "id": 2, "method": "model"},
            {"jsonrpc": "2.0", "id": 3, "method": "save", "params": {"insert": [{"id": "n", "entity": "Note", "values": {"text": "hi"}}]}},
        ])
        entities = [e.get("name") for e in answers[1].get("result", {}).get("entities", [])]
        assert entities == ["Note"], f"model answered entities {entities}, not the mounted model's ['Note']"
        assert "ids" in answers[2].get("result", {}), f"save of a Note answered {answers[2]}"
        stopped_in = self.stop(server, pid)
        return f"DOCSERVER_MODEL=/config/model.json served (entities {entities}, a Note saved); SIGTERM -> exit 0 in {stopped_in * 1000:.0f} ms"

    def check_xcode_model(self) -> str:
        """An Xcode model bundle the user mounts (here at /config/App.xcdatamodeld) and names in
        DOCSERVER_MODEL: read with XMLParser, so libxml2 must be in the image."""
        bundle = self.root / "config" / "App.xcdatamodeld"
        for version, extra in (("App", ""), ("App 2", '<attribute name="done" optional="YES" attributeType="Boolean"/>')):
            folder = bundle / f"{version}.xcdatamodel"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "contents").write_text(
                '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                '<model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">\n'
                f'    <entity name="Task"><attribute name="title" attributeType="String"/>{extra}</entity>\n'
                '</model>\n', encoding="utf-8")
        (bundle / ".xccurrentversion").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict>'
            '<key>_XCCurrentVersionName</key><string>App 2.xcdatamodel</string></dict></plist>\n', encoding="utf-8")
        for path in [bundle, *bundle.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)
        volume = self.new_volume("xcode-model")
        token = secrets.token_hex(16)
        port = free_port()
        server = self.start(volume, DOCSERVER_PORT=str(port), DOCSERVER_AUTH_TOKEN=token,
                            DOCSERVER_MODEL=self.map("/config/App.xcdatamodeld", volume))
        server.wait_listening()
        pid = server.docserver_pid(self.binary)
        answers = exchange(port, [
            {"jsonrpc": "2.0", "id": 1, "method": "hello", "params": {"token": token}},
            {"jsonrpc": "2.0", "id": 2, "method": "model"},
            {"jsonrpc": "2.0", "id": 3, "method": "save",
             "params": {"insert": [{"id": "t", "entity": "Task", "values": {"title": "hi", "done": True}}]}},
        ])
        entities = answers[1].get("result", {}).get("entities", [])
        names = [a.get("name") for e in entities for a in e.get("attributes", [])]
        assert names == ["title", "done"], f"model answered attributes {names}, not the current version's ['title', 'done']"
        assert "ids" in answers[2].get("result", {}), f"save of a Task answered {answers[2]}"
        mapped = [library.name for library in libraries.mapped(pid, self.binary)]
        stopped_in = self.stop(server, pid)
        xml = [name for name in mapped if name.startswith("libxml2")]
        return (f"DOCSERVER_MODEL=/config/App.xcdatamodeld served its current version 'App 2' (attributes {names}, a Task "
                f"saved; mapped {', '.join(xml) or 'no libxml2'}); SIGTERM -> exit 0 in {stopped_in * 1000:.0f} ms")

    def check_no_token(self) -> str:
        volume = self.new_volume("no-token")
        server = self.start(volume, DOCSERVER_PORT=str(free_port()), DOCSERVER_AUTH_TOKEN=None)
        try:
            status = server.process.wait(timeout=START_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise RuntimeFailure(f"still running {START_TIMEOUT:.0f} s after starting without a token")
        assert status != 0, "exited 0 without a token"
        log = server.log.read_text(encoding="utf-8")
        assert "DOCSERVER_AUTH_TOKEN" in log, f"exited {status} without naming DOCSERVER_AUTH_TOKEN: {server.log_tail()}"
        message = next(line for line in log.splitlines() if "DOCSERVER_AUTH_TOKEN" in line)
        return f"exit {status}: {message.split('cannot start: ', 1)[-1]}"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("0.0.0.0", 0))  # docserver listens on every address here
        return probe.getsockname()[1]


def exchange(port: int, messages: list[dict]) -> list[dict]:
    """Sends the messages on one connection and returns the answers, one per message."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall("".join(json.dumps(m) + "\n" for m in messages).encode())
        received = b""
        while received.count(b"\n") < len(messages):
            chunk = connection.recv(65536)
            if not chunk:
                raise RuntimeFailure(f"the server closed the connection after {received[:300]!r}")
            received += chunk
    return [json.loads(line) for line in received.decode().splitlines()[:len(messages)]]
