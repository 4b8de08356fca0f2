"""The package as a user gets it: ``pip install ./clients/python`` into a new virtual
environment, on this Python and on the oldest one supported (3.9) when it is installed;
the complete example of ``clients/python/README.md`` runs against a real server."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1]


def readme_example(host: str, port: int) -> str:
    text = (PACKAGE / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "clients/python/README.md has no python example"
    example = blocks[0]
    assert 'docstore.connect("127.0.0.1", 7878)' in example
    return example.replace('docstore.connect("127.0.0.1", 7878)', f'docstore.connect("{host}", {port})')


def oldest_supported_python():
    """A Python 3.9 that runs: on PATH, or one pyenv installed (its shim may not select it)."""
    candidates = [shutil.which("python3.9")]
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(str(path) for path in root.glob("versions/3.9*/bin/python3.9"))
    for candidate in candidates:
        if candidate and subprocess.run([candidate, "-c", "pass"], capture_output=True, timeout=30).returncode == 0:
            return candidate
    return None


def interpreters():
    found = [pytest.param(sys.executable, id=f"python{sys.version_info[0]}.{sys.version_info[1]}")]
    oldest = oldest_supported_python()
    if oldest is not None:
        found.append(pytest.param(oldest, id="python3.9"))
    else:
        found.append(pytest.param(None, id="python3.9", marks=pytest.mark.skip(reason="no python3.9 is installed")))
    return found


@pytest.mark.deadline(240)
@pytest.mark.parametrize("python", interpreters())
def test_pip_install_then_the_readme_example_runs(python, server, tmp_path):
    source = tmp_path / "source"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("tests", "build", "*.egg-info", "__pycache__"))
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=120)
    venv_python = str(venv / "bin" / "python")
    install = subprocess.run([venv_python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", str(source)],
                             capture_output=True, text=True, timeout=180)
    assert install.returncode == 0, install.stdout + install.stderr

    where = subprocess.run([venv_python, "-c", "import docstore; print(docstore.__file__)"],
                           capture_output=True, text=True, timeout=30, cwd=str(tmp_path))
    assert str(venv) in where.stdout, where.stderr  # the installed copy, not the source tree

    example = tmp_path / "example.py"
    example.write_text(readme_example(server.host, server.port), encoding="utf-8")
    run = subprocess.run([venv_python, str(example)], capture_output=True, text=True, timeout=60, cwd=str(tmp_path))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("graph://") and lines[0].endswith("/Album/2")
    assert lines[1] == "['So What', 'Freddie Freeloader', 'Blue in Green']"
    assert lines[2] == "[('Blue in Green', 12), ('So What', 7)]"
    assert lines[3] == "2 ['So What']"
    assert lines[4].startswith("[Conflict(id='graph://") and lines[4].endswith("/Song/3', expected=2, current=3)]")
    assert lines[5] == "0 []"
    assert len(lines) == 6


def test_the_project_readme_example_runs(server, tmp_path):
    text = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    [example] = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    example = example.replace('docstore.connect("127.0.0.1", 7878)', f'docstore.connect("{server.host}", {server.port})')
    script = tmp_path / "example.py"
    script.write_text(example, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(PACKAGE / "src")})
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["['So What']", "1"]
