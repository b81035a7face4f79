"""Lab 1 starter: an MCP client by hand, with nothing but the standard library.

    .venv/bin/python course/lab01-json-rpc-by-hand/starter.py "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]

It starts the server, sends initialize, lists the tools and prints them: try it on the demo
server. Three things are missing; the TODOs say where. Fix them, then run the check from this
lab's README until it passes.

Spec pages: basic/messages, basic/lifecycle, basic/transports (stdio), basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
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
        """The server spoke first: a request of its own, or a notification."""
        # TODO 2 (PING-01, MSG-01): a request from the server (it has a "method" and an "id")
        #   needs exactly one response with that id. Answer ping with an empty result, and
        #   any other method with error -32601 (Method not found). Notifications need nothing.
        #   Today every one of them is ignored, and the server waits in vain.

    def close(self):
        """Stop the server."""
        # TODO 3 (LC-16, LC-17, LC-18): be polite: close the server's stdin first and wait a
        #   little (it should exit by itself); only then terminate(), and kill() last.
        self.process.kill()
        self.process.wait(timeout=2)


def main():
    if len(sys.argv) < 2:
        raise SystemExit('usage: python starter.py "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]')
    server = Connection(shlex.split(sys.argv[1]))
    try:
        reply = server.request("initialize", {
            "protocolVersion": PROTOCOL_VERSION,
            "capabilities": {},
            "clientInfo": {"name": "lab01-client", "version": "1.0"},
        })
        if "error" in reply:
            raise SystemExit(f"initialize failed: {reply['error']}")
        if reply["result"].get("protocolVersion") != PROTOCOL_VERSION:  # LC-26
            raise SystemExit(f"the server speaks {reply['result'].get('protocolVersion')!r}; we speak {PROTOCOL_VERSION}")
        # TODO 1 (LC-08, LC-01, MSG-08): tell the server we are ready: send the notification
        #   notifications/initialized (no id: a notification) before any other request.

        tools = server.request("tools/list")
        names = [tool["name"] for tool in tools.get("result", {}).get("tools", [])]
        print("tools:", ", ".join(names) or "(none)")
        if len(sys.argv) > 2:
            arguments = json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}
            answer = server.request("tools/call", {"name": sys.argv[2], "arguments": arguments})
            print(json.dumps(answer.get("result", answer.get("error")), indent=2))
    finally:
        server.close()


if __name__ == "__main__":
    main()
