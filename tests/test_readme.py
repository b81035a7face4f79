"""Every Python block of README.md runs as written.

Not a spec page. Each ```python block is written to a file of its own and run with this
virtual environment's python, from the repository's root, with a PATH that does not hold the
virtual environment: what the README shows must work without activating anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

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
