"""Clients that do not outlive their program (machinery/threads/lifetime.py), on its own.

Not a spec page: the machinery under client.py that makes a forgotten ``Client`` behave like a
forgotten file. Its promises: every open client is tracked weakly (``track``/``untrack``); at exit
(``_close_left_open``, an atexit hook) those still open are all closed first and warned about only
then, so that ``-W error`` cannot stop the rest from closing; ``close_forgotten`` closes a
collected client on a thread of its own that the program waits for, then warns; ``weakly`` lets a
session's threads reach their client without keeping it alive.

Here with a small closable object; the same promises with real clients and their spawned
servers (a collected client, a client left open at a real exit) are in tests/cli/test_habits.py.
"""

from __future__ import annotations

import gc
import threading
import warnings
import weakref
from collections.abc import Iterator

import pytest

from mcp_ref.machinery.threads import lifetime

WAIT = 5.0  # seconds: a bound for liveness only


class Door:
    """Something to close, like a client: ``close()`` once, ``is_closed`` after."""

    def __init__(self, name: str, log: list[str] | None = None) -> None:
        self.name = name
        self.is_closed = False
        self.log = log if log is not None else []

    def close(self) -> None:
        self.is_closed = True
        self.log.append(f"closed {self.name}")

    def ping(self, value: int) -> str:
        return f"{self.name} got {value}"

    def __repr__(self) -> str:
        return f"<Door {self.name}>"


@pytest.fixture
def tracked(monkeypatch: pytest.MonkeyPatch) -> Iterator[weakref.WeakSet[object]]:
    """A table of open objects of this test's own: the real one holds the clients of other tests."""
    table: weakref.WeakSet[object] = weakref.WeakSet()
    monkeypatch.setattr(lifetime, "_open", table)
    yield table


def test_at_exit_every_open_object_is_closed_before_any_warning(tracked: weakref.WeakSet[object]) -> None:
    log: list[str] = []
    doors = [Door("a", log), Door("b", log), Door("c", log)]
    for door in doors:
        lifetime.track(door)
    doors[2].close()  # closed already: neither closed again nor warned about
    lifetime.untrack(doors[1])  # untracked: not ours to close
    log.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lifetime._close_left_open()
    assert log == ["closed a"]
    said = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert said == ["<Door a> was still open at exit: use `with Client...` or call close()"]


def test_at_exit_with_warnings_as_errors_the_rest_still_close(tracked: weakref.WeakSet[object]) -> None:
    doors = [Door(name) for name in "abc"]
    for door in doors:
        lifetime.track(door)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ResourceWarning):
            lifetime._close_left_open()
    assert all(door.is_closed for door in doors), "a warning raised as an error stopped the others from closing"


def test_the_table_holds_its_objects_weakly(tracked: weakref.WeakSet[object]) -> None:
    door = Door("forgotten")
    lifetime.track(door)
    assert len(tracked) == 1
    del door
    gc.collect()
    assert len(tracked) == 0, "tracking kept a forgotten object alive"


def test_close_forgotten_closes_on_a_thread_the_program_waits_for_then_warns() -> None:
    seen: list[tuple[str, str, bool]] = []
    done = threading.Event()

    def close(reason: str) -> None:
        here = threading.current_thread()
        seen.append((reason, here.name, here.daemon))
        done.set()

    door = Door("lost")
    with pytest.warns(ResourceWarning, match=r"unclosed <Door lost>: use `with Client\.\.\.` or call close\(\)"):
        lifetime.close_forgotten(door, close)
    assert done.wait(WAIT)
    assert seen == [("the Door was garbage-collected without close()", "mcp_ref-client-close", False)]


def test_weakly_calls_the_method_while_the_object_lives_and_gone_after() -> None:
    door = Door("d")
    call = lifetime.weakly(door, "ping", lambda value: f"gone, {value}")
    assert call(1) == "d got 1"
    del door
    gc.collect()
    assert call(2) == "gone, 2"


def test_weakly_does_not_keep_its_object_alive() -> None:
    door = Door("d")
    ref = weakref.ref(door)
    calls = [lifetime.weakly(door, "ping", lambda value: None) for _ in range(3)]
    del door
    gc.collect()
    assert ref() is None and calls
