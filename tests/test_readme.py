"""Every Python block of README.md runs as written.

Not a spec page. Each ```python block is written to a file of its own and run with this
virtual environment's python, from the repository's root, with a PATH that does not hold the
virtual environment: what the README shows must work without activating anything.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ROOT
from .support.real_parts import free_port

README = ROOT / "README.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)


def python_blocks() -> list[tuple[int, str]]:
    """(line number, code) of every ```python block, in order."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start()) + 1, match.group(1)) for match in BLOCK.finditer(text)]


def test_the_readme_has_python_blocks() -> None:
    assert len(python_blocks()) >= 4


def without_the_virtual_environment() -> dict[str, str]:
    venv_bin = str(Path(sys.executable).parent)
    env = {key: value for key, value in os.environ.items() if key not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin)
    return env


@pytest.mark.parametrize(("line", "code"), python_blocks(), ids=[f"line{line}" for line, _ in python_blocks()])
def test_readme_python_block_runs(line: int, code: str, tmp_path: Path) -> None:
    script = tmp_path / f"readme_line_{line}.py"
    script.write_text(code, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=without_the_virtual_environment(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, f"README.md line {line}:\n{code}\n--- stderr ---\n{proc.stderr}"


def quick_start_commands() -> list[str]:
    """The shell lines of the README's quick start that use the virtual environment by path."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    block = next((b for b in blocks if ".venv/bin/" in b), "")
    return [line.split("  #")[0].strip() for line in block.splitlines() if line.startswith(".venv/bin/")]


def test_the_quick_start_works_without_activating_the_virtual_environment() -> None:
    commands = quick_start_commands()
    assert commands, "the README's quick start should show the .venv/bin/... commands"
    if not (ROOT / ".venv" / "bin" / "mcp-ref").exists():
        pytest.skip("no .venv in the repository (make test creates it)")
    for command in commands:
        proc = subprocess.run(["bash", "-c", command], cwd=ROOT, env=without_the_virtual_environment(),
                              stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, f"{command}\n{proc.stderr}"
        assert proc.stdout.strip(), command


# --- the sections a newcomer runs first ------------------------------------------------------------


def section(title: str) -> str:
    """The text of the README section whose heading is ``## title``, up to the next ``## ``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start: end if end != -1 else len(text)]


def test_the_first_client_example_stops_on_a_failed_tool(tmp_path: Path) -> None:
    """Its call is checked for isError: made to call a failing tool, the script says so and
    exits 1, rather than printing nothing and carrying on."""
    code = BLOCK.search(section("A client"))
    assert code is not None
    call = 'client.call_tool("add", {"a": 2, "b": 3})'
    assert call in code.group(1) and 'result.get("isError")' in code.group(1)
    script = tmp_path / "first_client.py"
    script.write_text(code.group(1).replace(call, 'client.call_tool("fail", {"reason": "disk full"})'))
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, env=without_the_virtual_environment(),
                          stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "add failed: " in proc.stderr and "disk full" in proc.stderr


def shell_lines(block: str) -> list[str]:
    """The commands of a ```sh block, without their trailing comments."""
    return [line.split("   #")[0].strip() for line in block.splitlines() if line.strip()]


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            assert proc.poll() is None, f"{proc.args} exited with {proc.returncode}"
            assert time.monotonic() < deadline, f"nothing listens on port {port} after {timeout} s"
            time.sleep(0.05)


def test_the_relay_recipe_runs_as_written(tmp_path: Path) -> None:
    """The try-out of "Running on several processes or hosts": its install line installs the
    extra from the checkout; its Redis, gunicorn and request lines run as written, on free ports
    in place of 6379 and 8000, with myapp.py as the README gives it."""
    if not (ROOT / ".venv" / "bin" / "mcp-ref").exists():
        pytest.skip("no .venv in the repository (make test creates it)")
    text = section("Running on several processes or hosts")
    blocks = re.findall(r"^```sh\n(.*?)^```", text, re.DOTALL | re.MULTILINE)
    try_out = shell_lines(next(block for block in blocks if ".venv/bin/pip install" in block))
    install, redis_line, gunicorn_line, request_line = try_out
    assert install.startswith(".venv/bin/pip install -e '.[redis]' ")  # from the checkout, not an index
    extras = re.search(r"^redis =\n((?:    .*\n)+)", (ROOT / "setup.cfg").read_text(), re.MULTILINE)
    assert extras is not None and "redis" in extras.group(1)  # the extra exists
    for package in install.split()[4:]:
        __import__(package)  # what it installs besides the extra is what the test extra has here
    assert "--bind 127.0.0.1" in redis_line and "-b 127.0.0.1:8000" in gunicorn_line  # local only
    myapp = BLOCK.search(text)
    assert myapp is not None and myapp.group(1).startswith("# myapp.py\n")
    (tmp_path / "myapp.py").write_text(myapp.group(1))

    redis_port, http_port = free_port(), free_port()
    env = {**without_the_virtual_environment(), "PYTHONPATH": str(tmp_path),
           "MCP_REF_RELAY": f"redis://127.0.0.1:{redis_port}/0"}
    started: list[subprocess.Popen[bytes]] = []
    try:
        for line, port in ((redis_line, redis_port), (gunicorn_line, http_port)):
            assert line.endswith(" &")  # runs in the background: here, a process of its own
            command = line[:-2].replace("6379", str(redis_port)).replace("8000", str(http_port))
            proc = subprocess.Popen(["bash", "-c", f"exec {command}"], cwd=ROOT, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(proc)
            wait_for_port(port, proc)
        request = request_line.replace("8000", str(http_port))
        answer = subprocess.run(["bash", "-c", request], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                capture_output=True, text=True, timeout=60)
        assert answer.returncode == 0, answer.stderr
        assert json.loads(answer.stdout) == {"content": [{"type": "text", "text": "5"}]}
    finally:
        for proc in reversed(started):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


def test_the_readme_says_where_the_schema_checks_come_from() -> None:
    """The paths the skipping tests look for are the ones the README names, and the
    Compatibility section does not promise checks a fresh clone cannot run."""
    from .check.test_requirements import DOCS, LIST_PATH
    from .support.schema_tap import SCHEMA_PATH

    workspace = ROOT.parent
    development = " ".join(section("Development").split())
    for path in (SCHEMA_PATH, LIST_PATH, DOCS):
        assert f"`../{path.relative_to(workspace)}" in development, path
    compatibility = " ".join(section("Compatibility").split())
    assert "where `../shared/` lies beside the repository" in compatibility
    assert "see \"Development\"" in compatibility
