"""Lab 6 starter: the client of lab 1 grows roots, and sampling with a person approving.

    .venv/bin/python course/lab06-sampling-client/starter.py [--yes] "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]

The client of lab 1 is given, finished. Its initialize now declares roots and sampling, so the
server may ask for both, and today the answers are empty. Fix the TODOs, then run the check from
this lab's README until it passes.

Spec pages: client/roots, client/sampling
https://modelcontextprotocol.io/specification/2024-11-05/client/roots
https://modelcontextprotocol.io/specification/2024-11-05/client/sampling
"""

import json
import queue
import shlex
import subprocess
import sys
import threading

PROTOCOL_VERSION = "2024-11-05"
TIMEOUT = 10.0  # seconds to wait for any one answer


class Connection:
    """A server process and the lines it writes, read by a thread into a queue."""

    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lines = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.process.stdout:  # one message per line
            self.lines.put(line)
        self.lines.put(None)  # end of stream: the server is gone

    def send(self, message):
        line = json.dumps(message, separators=(",", ":"))
        print(f"client -> server  {line}", file=sys.stderr)
        self.process.stdin.write(line.encode("utf-8") + b"\n")
        self.process.stdin.flush()

    def receive(self):
        try:
            line = self.lines.get(timeout=TIMEOUT)
        except queue.Empty:
            raise SystemExit(f"no message from the server within {TIMEOUT:g} s") from None
        if line is None:
            raise SystemExit("the server closed the connection")
        print(f"server -> client  {line.decode('utf-8').rstrip()}", file=sys.stderr)
        return json.loads(line)

    def request(self, method, params=None):
        """Send a request and return its response, answering the server meanwhile."""
        request_id = self.next_id
        self.next_id += 1  # never reuse an id (MSG-04)
        message = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        while True:
            incoming = self.receive()
            if "method" not in incoming and incoming.get("id") == request_id:
                return incoming
            self.answer_server(incoming)

    def notify(self, method, params=None):
        message = {"jsonrpc": "2.0", "method": method}  # a notification has no id (MSG-08)
        if params is not None:
            message["params"] = params
        self.send(message)

    def answer_server(self, incoming):
        """The server spoke first: answer its requests; its notifications need no answer."""
        if "method" not in incoming or "id" not in incoming:
            return
        answer = ANSWERS.get(incoming["method"])
        if answer is None:
            self.send({"jsonrpc": "2.0", "id": incoming["id"],
                       "error": {"code": -32601, "message": f"Method not found: {incoming['method']}"}})
            return
        try:
            result = answer(incoming.get("params") or {})
        except Refused as exc:
            self.send({"jsonrpc": "2.0", "id": incoming["id"], "error": {"code": exc.code, "message": str(exc)}})
            return
        self.send({"jsonrpc": "2.0", "id": incoming["id"], "result": result})

    def close(self):
        """LC-16..18: close stdin, wait; then SIGTERM, wait; then SIGKILL."""
        self.process.stdin.close()
        for stop in (None, self.process.terminate, self.process.kill):
            if stop is not None:
                stop()
            try:
                self.process.wait(timeout=2)
                return
            except subprocess.TimeoutExpired:
                continue


# --- new in lab 6: what the client answers --------------------------------------------------------

APPROVE_ALL = False  # --yes


class Refused(Exception):
    """The person said no: the request is answered with an error."""

    code = -1  # the code of the page's example for a rejected sampling request (SAMP-07)


def answer_ping(params):
    return {}  # PING-01


def answer_roots(params):
    """The folders the server may work in."""
    # TODO 1 (ROOT-01, ROOT-03): answer {"roots": [...]}, each root a file:// URI with a name.
    #   Offer the current directory: pathlib.Path.cwd().as_uri() spells it as a file:// URI.
    return {}


def canned_model(messages):
    """A stand-in for a language model: a course has no real one to call."""
    question = " ".join(m["content"].get("text", "") for m in messages if m.get("role") == "user")
    return f"(a canned model) You asked: {question.strip()!r}. I would answer that briefly."


def ask(question):
    """One line from the person at the terminal; "" when there is no terminal (stdin closed)."""
    sys.stderr.write(question)
    sys.stderr.flush()
    return sys.stdin.readline().strip()


def answer_sampling(params):
    """The server asks our model for a completion of params["messages"]."""
    messages = params.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) and isinstance(m.get("content"), dict)
                                                 for m in messages):
        raise Refused("the sampling request has no valid messages")  # SAMP-09: check what arrives
    # TODO 2 (SAMP-01..04; the kit cannot see this one, your teacher can): let the model draft
    #   an answer (canned_model(messages)); then, unless APPROVE_ALL (--yes), show the person
    #   the request (system prompt, messages, maxTokens) and the draft, and ask() them to
    #   approve, edit (ask for their text) or reject (raise Refused(...)).
    # TODO 3 (SAMP-05): answer with the result the page describes: "role" (assistant),
    #   "content" (a text item holding the draft), "model" (which model answered) and
    #   "stopReason" (e.g. "endTurn").
    return {}


ANSWERS = {"ping": answer_ping, "roots/list": answer_roots, "sampling/createMessage": answer_sampling}


def main():
    global APPROVE_ALL
    args = sys.argv[1:]
    if args[:1] == ["--yes"]:
        APPROVE_ALL, args = True, args[1:]
    if not args:
        raise SystemExit('usage: python starter.py [--yes] "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]')
    server = Connection(shlex.split(args[0]))
    try:
        reply = server.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {"roots": {"listChanged": False}, "sampling": {}},  # ROOT-01, SAMP-05
            "clientInfo": {"name": "lab06-client", "version": "1.0"},
        })
        if "error" in reply:
            raise SystemExit(f"initialize failed: {reply['error']}")
        if reply["result"].get("protocolVersion") != PROTOCOL_VERSION:  # LC-26
            raise SystemExit(f"the server speaks {reply['result'].get('protocolVersion')!r}; we speak {PROTOCOL_VERSION}")
        server.notify("notifications/initialized")  # LC-08

        tools = server.request("tools/list")
        names = [tool["name"] for tool in tools.get("result", {}).get("tools", [])]
        print("tools:", ", ".join(names) or "(none)")
        if len(args) > 1:
            arguments = json.loads(args[2]) if len(args) > 2 else {}
            answer = server.request("tools/call", {"name": args[1], "arguments": arguments})
            print(json.dumps(answer.get("result", answer.get("error")), indent=2))
    finally:
        server.close()


if __name__ == "__main__":
    main()
