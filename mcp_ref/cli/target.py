"""Finding the Server that ``mcp-ref serve TARGET`` names.

Not a spec section: the part of the command line that imports the user's code. In short:

1. TARGET is ``MODULE:ATTRIBUTE`` or ``path/to/file.py:ATTRIBUTE``; ATTRIBUTE defaults to
   ``server``. MODULE is found the way ``python -m`` finds it: the current directory comes
   first on ``sys.path``, so ``mcp-ref serve my_server`` works next to ``my_server.py``. A
   file's own directory goes first on ``sys.path``, as with ``python file.py``.
2. ATTRIBUTE is a ``Server``, or a function taking no arguments that returns one (a factory).
3. A target that cannot be used (no such module, file or attribute, a function that needs
   arguments or returns something else) raises ``TargetError``, whose message is one line.
   An exception raised by the user's own code while importing it is not ours to explain: it
   propagates, and ``user_traceback()`` formats it without our frames or importlib's.
4. ``stdout_to_stderr()`` points file descriptor 1 at stderr while the target is imported, so
   a ``print()`` at import time cannot reach a stdio client (TR-04).
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import sys
import traceback
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from ..server import Server

HINT = "give MODULE:ATTRIBUTE (e.g. my_server:server) or path/to/file.py:ATTRIBUTE"


class TargetError(Exception):
    """The target cannot be served; the message is one line that says what to do."""


def load_server(target: str) -> Server:
    """Import the target (see the module docstring) and return its Server."""
    module_name, _, attribute = target.partition(":")
    attribute = attribute or "server"
    if not module_name:
        raise TargetError(f"{target!r} names no module; {HINT}")
    module = _import_file(Path(module_name)) if module_name.endswith(".py") else _import_module(module_name)
    obj = getattr(module, attribute, None)
    if obj is None:
        raise TargetError(f"{module_name} has no attribute {attribute!r}; {HINT}")
    if inspect.isfunction(obj):
        obj = _call_factory(target, obj)
    if not isinstance(obj, Server):
        raise TargetError(f"{target} is {_describe(obj)}, not an mcp_ref Server")
    return obj


def _import_module(name: str) -> ModuleType:
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:  # as `python -m` does
        sys.path.insert(0, cwd)
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        # Only when the missing module is the target itself (or its package); a missing module
        # imported *by* the user's code is their error, with their traceback.
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise TargetError(f"no module named {exc.name!r} in {cwd} or on sys.path; {HINT}") from None
        raise


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise TargetError(f"no such file: {path}; {HINT}")
    folder = str(path.resolve().parent)
    if folder not in sys.path:  # as `python file.py` does: the file's siblings are importable
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    if spec is None or spec.loader is None:
        raise TargetError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    if path.stem not in sys.modules:  # so that pickle, dataclasses and friends find it
        sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _call_factory(target: str, factory: object) -> object:
    assert callable(factory)
    required = [p.name for p in inspect.signature(factory).parameters.values()
                if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if required:
        raise TargetError(f"{target} is a function that needs arguments ({', '.join(required)}); "
                          "name a Server, or a function with no arguments that returns one")
    returns = inspect.signature(factory).return_annotation
    if not _may_be_server(returns):  # annotated otherwise: do not run someone's tool or main()
        raise TargetError(f"{target} is a function returning {getattr(returns, '__name__', returns)}, "
                          "not a factory of an mcp_ref Server")
    result = factory()
    if not isinstance(result, Server):
        raise TargetError(f"{target} is a function that returned {_describe(result)}, not an mcp_ref Server")
    return result


def _may_be_server(annotation: object) -> bool:
    if annotation is inspect.Signature.empty:
        return True
    if isinstance(annotation, str):  # from __future__ import annotations
        return annotation.rsplit(".", 1)[-1] == "Server"
    return inspect.isclass(annotation) and issubclass(annotation, Server)


def _describe(obj: object) -> str:
    if inspect.isclass(obj):
        return f"the class {obj.__name__}"
    return f"an object of type {type(obj).__name__}"


def user_traceback(exc: BaseException) -> str:
    """The traceback of an exception raised while importing the user's module, from the user's
    first frame on, without the import machinery's frames in between."""
    ours = str(Path(__file__).resolve().parents[1])  # the mcp_ref package
    te = traceback.TracebackException.from_exception(exc)
    frames = [frame for frame in te.stack if not _is_importlib(frame.filename)]
    while frames and frames[0].filename.startswith(ours):  # how mcp-ref got to the import
        frames.pop(0)
    te.stack = traceback.StackSummary.from_list(frames)
    return "".join(te.format())


def _is_importlib(filename: str) -> bool:
    return filename.startswith("<frozen importlib") or "importlib" in Path(filename).parts


@contextlib.contextmanager
def stdout_to_stderr() -> Iterator[None]:
    """Point file descriptor 1 (and so ``print``) at stderr for the duration (TR-04)."""
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (AttributeError, OSError, ValueError):  # no real stdout: nothing to protect
        yield
        return
    os.dup2(2, 1)  # TR-04: while the user's module is imported, a print() lands on stderr
    try:
        yield
    finally:
        try:
            sys.stdout.flush()  # whatever the import printed goes to stderr, not later to stdout
        except (AttributeError, OSError, ValueError):
            pass
        os.dup2(saved, 1)
        os.close(saved)
