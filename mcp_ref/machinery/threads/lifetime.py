"""Clients that do not outlive their program, and are not kept alive by their own threads.

Not a spec section: the machinery under client.py that makes a forgotten ``Client`` behave like a
forgotten file, so that a spawned server never outlives the script that started it (the shutdown
of basic/lifecycle, LC-16..18, still runs).

1. Every open client is tracked, weakly (``track``/``untrack``). At exit, those still open are
   closed (their servers shut down), and only then warned about: with ``-W error`` the first
   warning would stop the rest from closing.
2. A session's threads reach its client only through weak references (``weakly``): a thread of
   the session must not keep an abandoned client alive, or its finalizer could never run, warn
   and clean up (``close_forgotten``).
"""

from __future__ import annotations

import atexit
import threading
import warnings
import weakref
from collections.abc import Callable
from typing import Any, Protocol


class Closable(Protocol):
    @property
    def is_closed(self) -> bool: ...

    def close(self) -> None: ...


_open: weakref.WeakSet[Any] = weakref.WeakSet()  # every tracked object not yet closed


def track(obj: Closable) -> None:
    _open.add(obj)


def untrack(obj: Closable) -> None:
    _open.discard(obj)


@atexit.register
def _close_left_open() -> None:
    left_open = [obj for obj in list(_open) if not obj.is_closed]
    for obj in left_open:
        # LC-16, LC-17
        obj.close()  # LC-18: a spawned server is shut down with its client
    for obj in left_open:
        warnings.warn(f"{obj!r} was still open at exit: use `with Client...` or call close()", ResourceWarning,
                      stacklevel=1)


def close_forgotten(obj: object, close: Callable[[str], None]) -> None:
    """``obj`` (a client) is being garbage-collected while still open: ``close(reason)`` it, then
    warn. It closes on a thread of its own: a finalizer may run on any thread, even one that holds
    the lock closing takes. That thread is not a daemon, so the program waits for the server to
    be shut down before it exits."""
    reason = f"the {type(obj).__name__} was garbage-collected without close()"
    try:
        threading.Thread(target=close, args=(reason,), name="mcp_ref-client-close").start()
    except RuntimeError:  # the interpreter is shutting down: no new threads
        close(reason)
    warnings.warn(f"unclosed {obj!r}: use `with Client...` or call close()", ResourceWarning, stacklevel=3,
                  source=obj)


def weakly(obj: object, method: str, gone: Callable[..., Any]) -> Callable[..., Any]:
    """A function that calls ``obj.method(*args)`` through a weak reference to ``obj``, or
    ``gone(*args)`` once ``obj`` has been garbage-collected."""
    ref = weakref.ref(obj)

    def call(*args: Any) -> Any:
        alive = ref()
        return gone(*args) if alive is None else getattr(alive, method)(*args)

    return call
