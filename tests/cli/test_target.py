"""Finding the Server that ``mcp-ref serve TARGET`` names (mcp_ref/cli/target.py).

Not a spec page: the part of the command line that imports the user's code. Its promises, each
through the real command in a folder of the user's own: TARGET is ``MODULE:ATTRIBUTE`` or
``path/to/file.py:ATTRIBUTE`` (ATTRIBUTE defaults to ``server``), found from the current directory
as ``python -m`` finds it; ATTRIBUTE is a ``Server`` or a function without arguments returning
one; an unusable target is one line on stderr saying what to do (exit status 2); an exception of
the user's own code is their traceback, without our frames or importlib's (exit status 1); a
``print()`` at import time goes to stderr, not to the stdio client (TR-04).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from .test_habits import run_cli
from .test_main import MCP_REF

MY_SERVER = '''
print("hello from import time")
from mcp_ref import Server

server = Server("mine", version="2.0")

@server.tool()
def hello() -> str:
    return "hello"

def needs_arguments(name):
    return Server(name)

def make_number():
    return 42

def make_server():
    return Server("made")
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A folder holding a user's server module, a package, and two broken modules."""
    (tmp_path / "my_server.py").write_text(MY_SERVER)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "servers.py").write_text("from mcp_ref import Server\n\ndef build():\n    return Server('pkg')\n")
    (tmp_path / "broken.py").write_text("def explode():\n    raise RuntimeError('boom in user code')\n\nexplode()\n")
    (tmp_path / "needs_dep.py").write_text("import no_such_dependency_anywhere\n")
    return tmp_path


@pytest.mark.parametrize(("target", "name"), [
    ("my_server:server", "mine"), ("my_server", "mine"), ("my_server.py:server", "mine"),
    ("my_server:make_server", "made"), ("pkg.servers:build", "pkg"),
])
def test_serve_finds_targets_from_the_current_directory(project: Path, target: str, name: str) -> None:
    proc = run_cli("inspect", "--json", "--stdio", f"{MCP_REF} serve {target}", cwd=project)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["serverInfo"]["name"] == name


@pytest.mark.parametrize(("target", "says"), [
    ("nowhere:server", "no module named 'nowhere'"),
    ("missing.py:server", "no such file: missing.py"),
    ("my_server:nothing", "my_server has no attribute 'nothing'"),
    ("my_server:needs_arguments", "is a function that needs arguments (name)"),
    ("my_server:make_number", "returned an object of type int, not an mcp_ref Server"),
    ("my_server:hello", "is a function returning str, not a factory"),
    ("mcp_ref.messages:McpError", "is the class McpError, not an mcp_ref Server"),
])
def test_serve_explains_an_unusable_target_in_one_line(project: Path, target: str, says: str) -> None:
    proc = run_cli("serve", target, cwd=project, stdin=subprocess.DEVNULL)
    assert proc.returncode == 2
    errors = [line for line in proc.stderr.splitlines() if line != "hello from import time"]
    assert len(errors) == 1 and errors[0].startswith("mcp-ref: ") and says in errors[0], proc.stderr


@pytest.mark.parametrize(("target", "error"), [
    ("broken:server", "RuntimeError: boom in user code"),
    ("needs_dep:server", "ModuleNotFoundError: No module named 'no_such_dependency_anywhere'"),
])
def test_serve_shows_the_users_traceback_when_their_module_fails(project: Path, target: str, error: str) -> None:
    proc = run_cli("serve", target, cwd=project, stdin=subprocess.DEVNULL)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0] == f"mcp-ref: loading {target} failed:" and lines[1] == "Traceback (most recent call last):"
    assert lines[-1] == error
    files = [line.split('"')[1] for line in lines if line.lstrip().startswith('File "')]
    assert files and all(file.startswith(str(project)) for file in files), files  # only the user's frames


def test_print_at_import_time_goes_to_stderr(project: Path) -> None:
    proc = subprocess.Popen([MCP_REF, "serve", "my_server:server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=project)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
    out, err = proc.communicate(json.dumps(init).encode() + b"\n", timeout=15)
    assert [json.loads(line)["id"] for line in out.splitlines()] == [1]  # TR-04: nothing else on stdout
    assert b"hello from import time" in err
