"""The relay through Redis: sessions reachable from every process and host that share one Redis.

Not a spec section: a ``Relay`` (relay.py) for several gunicorn workers or several hosts behind
one HTTP+SSE address. One pub/sub channel per session, named after a hash of the session id;
``PUBLISH`` says how many processes heard the message, so 0 means no such session, at once.

How a message finds its session through Redis (S the session id, H its sha256)::

    client                      process A                    Redis                    process B
      |--1 GET /sse---------------->|                            |                          |
      |                             |--2 SUBSCRIBE session:H---->|                          |
      |<--3 endpoint ?session_id=S--|                            |                          |
      |--4 POST ?session_id=S-------------------------------------------------------------->|
      |                             |                            |<--5 PUBLISH session:H----|
      |                             |<--6 {H, reply_to, nonce}   |   (heard by 0: 404)      |
      |                             |      + body                |                          |
      |                 7 body into S's inbox                    |                          |
      |                             |--8 PUBLISH ack:B "queued"->|--9 "nonce queued"------->|
      |<--10 202 Accepted-------------------------------------------------------------------|
      |<--11 event: message---------|  (the answer, on S's stream as without a relay)       |

Channel names start with ``mcp_ref:``. B answers 503 when Redis is away, or when step 9 has
not come within ``ack_timeout``; A answers ``gone`` at step 8 (then B: 404) if the session
ended while its message was on the way.

The session id grants the session, so it never goes to Redis: channel names and payloads carry
only H. The id has 128 random bits, so H can be neither reversed nor guessed, and whoever reads
Redis learns which sessions exist but cannot reach them over HTTP. (Whoever can *write* to Redis
can inject messages into any session by its channel; a keyed hash would not change that, so
Redis must be private to the deployment: a password, TLS (``rediss://``), a private network.)

Threads and bounds: ``RedisRelay`` owns one listener thread and one subscriber connection per
process; the listener delivers messages, resolves acknowledgements, pings Redis after a second
of silence, and after a lost connection subscribes again to every session still held, with no
restart. Every Redis command has a 1 s socket timeout and no retries; a relayed POST waits at
most ``ack_timeout`` for its acknowledgement. ``close()`` stops the thread.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
import time
import urllib.parse
import weakref
from typing import TYPE_CHECKING, Any

from .relay import LOCAL_MAILBOXES, Deliver, LocalRelay, Relay, RelayUnavailable, UnknownSession, session_hash

if TYPE_CHECKING:
    import redis

log = logging.getLogger("mcp_ref.scaleout.relay")  # the relay's logger, whichever kind

PREFIX = "mcp_ref"
# Seconds a relayed POST waits for the holder to say the message is queued: then 503.
DEFAULT_ACK_TIMEOUT = 2.0
# Seconds between checks, while it waits, that the holder is still there (a dead one: 404).
ACK_CHECK_EVERY = 0.25
# Seconds a relayed POST waits for the relay to be connected (a worker that has just started is
# connecting) before it is answered 503.
CONNECT_WAIT = 1.0
# Seconds for any one Redis command (and for connecting): a Redis that is away costs a POST
# about this long, never a hang.
REDIS_TIMEOUT = 1.0
# Seconds hold() waits for Redis to confirm a new subscription before the stream opens.
SUBSCRIBE_TIMEOUT = 1.0
# Seconds of silence on the subscriber connection before the listener pings Redis, and before
# it gives the connection up as dead.
HEARTBEAT = 1.0
SILENCE_LIMIT = 3.0
# Seconds between attempts to reach Redis again: the first, and the longest.
RECONNECT_FIRST, RECONNECT_MAX = 0.1, 1.0
# Redis connections for commands (PUBLISH, acknowledgements) per process.
MAX_CONNECTIONS = 64



def relay_from(relay: Relay | str | None) -> tuple[Relay, bool]:
    """``SseApp(relay=...)``: None is a ``LocalRelay``, a ``redis://`` (``rediss://``,
    ``unix://``) URL a ``RedisRelay``, anything else must be a ``Relay``. Also says whether the
    relay was made here (and is then the app's to close)."""
    if relay is None:
        return LocalRelay(), True
    if isinstance(relay, str):
        return RedisRelay(relay), True
    if not isinstance(relay, Relay):
        raise TypeError(f"relay must be a redis:// URL or an object with hold, release, publish, is_live "
                        f"and close (see mcp_ref.scaleout.relay.Relay), not {type(relay).__name__}")
    return relay, False


def public_url(url: str) -> str:
    """The URL without user name and password: what logs, errors and HTTP answers may show."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}{parts.path}"


class _Ack:
    """A relayed POST waiting for the holder's word; ``done`` is set when ``outcome`` is."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.outcome = ""


class RedisRelay(LocalRelay):
    """Sessions reachable from every process that shares one Redis, through pub/sub.

    ``RedisRelay("redis://:PASSWORD@HOST:6379/0")`` needs the ``redis`` package
    (from a checkout: ``.venv/bin/pip install -e '.[redis]'``). It starts its listener at once and returns even when
    Redis is unreachable (it logs a warning and keeps trying). After a fork (gunicorn
    ``--preload``) the child starts afresh: its own listener, connections and ack channel.
    """

    def __init__(self, url: str, *, ack_timeout: float = DEFAULT_ACK_TIMEOUT) -> None:
        try:
            import redis  # noqa: F401 - only to say how to get it, here rather than in the listener
        except ImportError:
            raise ImportError("RedisRelay needs the redis package: from the mcp_ref checkout, run "
                              "`.venv/bin/pip install -e '.[redis]'` (or `pip install redis`)") from None
        super().__init__()
        self.url = url
        self.where = public_url(url)
        self.ack_timeout = ack_timeout
        self._password = urllib.parse.unquote(urllib.parse.urlsplit(url).password or "")
        try:  # a URL redis cannot read fails here, loudly, not in the listener
            if urllib.parse.urlsplit(url).scheme not in ("redis", "rediss", "unix"):
                raise ValueError("unknown scheme")
            self._reset()
        except ValueError as exc:
            raise ValueError(f"not a Redis URL: {self.where!r} ({self._redact(exc)}); "
                             "expected redis://[:PASSWORD@]HOST:PORT/DB, rediss://... or unix://PATH") from None
        self._ensure_running()
        _reset_in_forked_children(self)

    def __repr__(self) -> str:
        return f"RedisRelay({self.where!r})"

    def _reset(self) -> None:
        """Fresh state, no thread yet: at construction, and in the child after a fork (where
        the parent's thread does not exist and its locks and connections must not be shared).
        The thread starts at the first use."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        self._local, self._local_lock, self._mailboxes = {}, threading.Lock(), {}
        self._lock = threading.Lock()  # guards everything below, and every write to _conn
        self._by_hash: dict[str, Deliver] = {}  # the sessions held here, by hash
        self._acks: dict[str, _Ack] = {}  # relayed POSTs of this process waiting for their ack
        self._confirming: dict[bytes, threading.Event] = {}  # hold() waiting for its SUBSCRIBE
        self._conn: Any = None  # the subscriber connection, when it is up
        self._ack_channel = f"{PREFIX}:ack:{secrets.token_hex(8)}"  # this process's own
        self._ack_ready = threading.Event()  # set while _ack_channel is subscribed
        self._first_attempt = threading.Event()
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._start_lock = threading.Lock()
        # RESP2 (protocol=2): pub/sub replies then come back as plain arrays, the same from
        # every Redis version, rather than as pushes the client library handles by itself.
        pool = redis.ConnectionPool.from_url(self.url, socket_timeout=REDIS_TIMEOUT,
                                             socket_connect_timeout=REDIS_TIMEOUT, retry=Retry(NoBackoff(), 0),
                                             max_connections=MAX_CONNECTIONS, protocol=2)
        self._redis: redis.Redis = redis.Redis(connection_pool=pool)

    def _ensure_running(self) -> None:
        if self._thread is None:
            with self._start_lock:
                if self._thread is None and not self._stopping.is_set():
                    self._thread = threading.Thread(target=self._listen_forever, name="mcp_ref-relay", daemon=True)
                    self._thread.start()
        # What comes in the first moments must find Redis if it is there: wait for the first try.
        self._first_attempt.wait(2 * REDIS_TIMEOUT)

    # --- the holding side ----------------------------------------------------------------------

    def hold(self, session_id: str, deliver: Deliver) -> None:
        super().hold(session_id, deliver)
        self._ensure_running()
        key = session_hash(session_id)
        channel = _channel(key)
        confirmed = threading.Event()
        with self._lock:
            self._by_hash[key] = deliver
            if self._conn is None:
                return  # Redis is away: the listener subscribes every held session when it is back
            self._confirming[channel] = confirmed
            self._send("SUBSCRIBE", channel)
        # Once Redis confirms, a PUBLISH from any process reaches us; only then may the client
        # learn the endpoint (it could POST through another process at once).
        if not confirmed.wait(SUBSCRIBE_TIMEOUT):
            log.warning("relay: Redis at %s did not confirm a new session's subscription within %g s; "
                        "POSTs for it through other processes may get 404 until it does", self.where,
                        SUBSCRIBE_TIMEOUT)
        with self._lock:
            self._confirming.pop(channel, None)

    def release(self, session_id: str) -> None:
        super().release(session_id)
        key = session_hash(session_id)
        with self._lock:
            if self._by_hash.pop(key, None) is not None and self._conn is not None:
                self._send("UNSUBSCRIBE", _channel(key))

    def _send(self, *command: str | bytes) -> None:
        """A command on the subscriber connection (call with ``_lock`` held). A failure is the
        listener's to notice: it reconnects and subscribes again to all that is held."""
        try:
            self._conn.send_command(*command)
        except Exception as exc:
            log.debug("relay: sending %s failed: %s", command[0], self._redact(exc))

    # --- the relaying side ---------------------------------------------------------------------

    def publish(self, session_id: str, body: bytes) -> None:
        if self._deliver_here(session_id, body):
            return  # held by this process: no Redis round trip
        self._ensure_running()
        if not self._ack_ready.wait(CONNECT_WAIT):  # a process just started may be connecting now
            raise RelayUnavailable("the message relay is not connected to Redis")
        key, nonce, ack = session_hash(session_id), secrets.token_hex(8), _Ack()
        header = json.dumps({"session": key, "reply_to": self._ack_channel, "nonce": nonce}).encode()
        with self._lock:
            self._acks[nonce] = ack
        try:
            try:
                heard = self._redis.publish(_channel(key), header + b"\n" + body)
            except Exception as exc:  # redis.RedisError, or an OSError under it
                log.debug("relay: PUBLISH to Redis at %s failed: %s", self.where, self._redact(exc))
                raise RelayUnavailable("Redis did not take the message") from None
            if heard == 0:
                raise UnknownSession(session_id)  # no process holds it
            self._wait_for_ack(ack, session_id)
            if ack.outcome != "queued":
                raise UnknownSession(session_id)  # it ended while the message was on its way
        finally:
            with self._lock:
                self._acks.pop(nonce, None)

    def _wait_for_ack(self, ack: _Ack, session_id: str) -> None:
        """Until the holder's word comes (or ``ack_timeout``: 503). A holder that dies meanwhile
        (its subscription gone with its connection) makes it 404 at once, not 503 later."""
        deadline = time.monotonic() + self.ack_timeout
        while not ack.done.wait(min(ACK_CHECK_EVERY, max(0.0, deadline - time.monotonic()))):
            if time.monotonic() >= deadline:
                raise RelayUnavailable(f"the process holding the session did not confirm the message within "
                                       f"{self.ack_timeout:g} s")
            try:
                if not self.is_live(session_id):
                    raise UnknownSession(session_id)
            except RelayUnavailable:
                pass  # Redis cannot say now: wait on until the deadline

    def _mailbox_channel(self) -> str:
        return self._ack_channel  # mailboxes ride on this process's acknowledgement channel (relay.py, point 5)

    def post(self, address: str, data: bytes) -> bool:
        channel, _, token = address.partition(" ")
        if channel in (LOCAL_MAILBOXES, self._ack_channel):
            return self._into_mailbox(token, data)  # a mailbox of this process: no Redis round trip
        if not channel.startswith(f"{PREFIX}:ack:"):
            return False  # not an address any process of ours gives out
        try:
            heard = self._redis.publish(channel, b"box " + token.encode() + b"\n" + data)
        except Exception as exc:  # redis.RedisError, or an OSError under it
            log.debug("relay: PUBLISH to a mailbox on Redis at %s failed: %s", self.where, self._redact(exc))
            raise RelayUnavailable("Redis did not take the message") from None
        return bool(heard)

    def is_live(self, session_id: str) -> bool:
        if super().is_live(session_id):
            return True
        self._ensure_running()
        try:
            counts = self._redis.pubsub_numsub(_channel(session_hash(session_id)))
        except Exception as exc:
            log.debug("relay: PUBSUB NUMSUB on Redis at %s failed: %s", self.where, self._redact(exc))
            raise RelayUnavailable("Redis did not answer") from None
        return bool(counts) and int(counts[0][1]) > 0

    def close(self) -> None:
        """Stop the listener (within a second or two) and drop the connections."""
        self._stopping.set()
        with self._lock:  # no one sends on it from now on
            conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.disconnect()  # wakes the listener from its read
            except Exception:
                pass
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=HEARTBEAT + REDIS_TIMEOUT)
        self._redis.connection_pool.disconnect()

    # --- the listener thread -------------------------------------------------------------------

    def _listen_forever(self) -> None:
        """Connect, subscribe to the ack channel and every held session, read; on any failure
        start again after a pause, until close()."""
        delay, down_since = RECONNECT_FIRST, None
        while not self._stopping.is_set():
            try:
                conn = self._subscribe_all()
            except Exception as exc:
                if down_since is None:
                    down_since = time.monotonic()
                    log.warning("relay: cannot reach Redis at %s (%s); POSTs that need another process get 503 "
                                "until it is back", self.where, self._redact(exc))
                self._first_attempt.set()
                self._stopping.wait(delay)
                delay = min(2 * delay, RECONNECT_MAX)
                continue
            if down_since is not None:
                log.warning("relay: Redis at %s is back after %.1f s; every session held here is subscribed again",
                            self.where, time.monotonic() - down_since)
            delay, down_since = RECONNECT_FIRST, None
            try:
                self._read(conn)
            except Exception as exc:  # the connection broke, or fell silent: start again
                if not self._stopping.is_set():
                    down_since = time.monotonic()
                    log.warning("relay: lost Redis at %s (%s); reconnecting", self.where, self._redact(exc))
            finally:
                with self._lock:
                    self._conn = None
                    self._ack_ready.clear()
                try:
                    conn.disconnect()
                except Exception:
                    pass

    def _subscribe_all(self) -> Any:
        pool = self._redis.connection_pool
        conn = pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": HEARTBEAT})
        try:
            conn.connect()  # bounded by REDIS_TIMEOUT; authenticates and selects the database
            with self._lock:
                channels = [_channel(key) for key in self._by_hash]
                conn.send_command("SUBSCRIBE", self._ack_channel, *channels)
                self._conn = conn
        except BaseException:
            conn.disconnect()
            raise
        return conn

    def _read(self, conn: Any) -> None:
        import redis

        last_heard = time.monotonic()
        while not self._stopping.is_set():
            try:
                reply = conn.read_response(disconnect_on_error=False)  # waits at most HEARTBEAT
            except redis.TimeoutError:
                if time.monotonic() - last_heard > SILENCE_LIMIT:
                    raise ConnectionError(f"no word from Redis for {SILENCE_LIMIT:g} s") from None
                with self._lock:
                    self._send("PING")  # answered ["pong", ""] while subscribed
                continue
            last_heard = time.monotonic()
            if reply[0] == b"message":
                self._on_message(reply[1], reply[2])
            elif reply[0] == b"subscribe":
                self._on_subscribed(reply[1])

    def _on_subscribed(self, channel: bytes) -> None:
        if channel == self._ack_channel.encode():
            self._ack_ready.set()  # from now on, relayed POSTs can learn their outcome
            self._first_attempt.set()
            return
        with self._lock:
            confirmed = self._confirming.get(channel)
        if confirmed is not None:
            confirmed.set()

    def _on_message(self, channel: bytes, payload: bytes) -> None:
        if channel == self._ack_channel.encode():
            if payload.startswith(b"box "):  # a message for one of our mailboxes (relay.py, point 5)
                token, _, data = payload[4:].partition(b"\n")
                self._into_mailbox(token.decode("ascii", "replace"), data)
                return
            nonce, _, outcome = payload.decode("ascii", "replace").partition(" ")
            with self._lock:
                ack = self._acks.get(nonce)
            if ack is not None:  # else the POST gave up waiting: it answered 503 already
                ack.outcome = outcome
                ack.done.set()
            return
        header, _, body = payload.partition(b"\n")
        try:
            meta = json.loads(header)
            key, reply_to, nonce = str(meta["session"]), str(meta["reply_to"]), str(meta["nonce"])
        except (ValueError, KeyError, TypeError):
            log.warning("relay: dropped a message on %r that was not ours", channel)
            return
        if _channel(key) != channel or not reply_to.startswith(f"{PREFIX}:ack:"):
            log.warning("relay: dropped a message on %r that was not ours", channel)
            return
        self._deliver_relayed(key, body, reply_to, nonce)

    def _deliver_relayed(self, key: str, body: bytes, reply_to: str, nonce: str) -> None:
        """Into the session's inbox, then the acknowledgement: the sender answers 202 only now."""
        with self._lock:
            deliver = self._by_hash.get(key)
        if deliver is not None:
            deliver(body)
        if self._stopping.is_set():
            return  # closed meanwhile: no new connection for the acknowledgement
        try:
            self._redis.publish(reply_to, f"{nonce} {'queued' if deliver is not None else 'gone'}")
        except Exception as exc:  # the sender will answer 503 when its wait ends
            log.warning("relay: could not acknowledge a relayed message: %s", self._redact(exc))

    def _redact(self, exc: BaseException) -> str:
        """An error's text, with the password (should a library ever quote it) taken out."""
        text = str(exc) or type(exc).__name__
        return text.replace(self._password, "***") if self._password else text


def _reset_in_forked_children(relay: RedisRelay) -> None:
    """After a fork (gunicorn ``--preload`` makes the app, then forks its workers), the child's
    relay starts afresh. Held weakly: the hook must not keep a closed relay alive."""
    ref = weakref.ref(relay)

    def reset() -> None:
        alive = ref()
        if alive is not None and not alive._stopping.is_set():
            alive._reset()

    os.register_at_fork(after_in_child=reset)


def _channel(key: str) -> bytes:
    return f"{PREFIX}:session:{key}".encode()
