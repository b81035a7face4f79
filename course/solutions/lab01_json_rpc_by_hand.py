"""Lab 1, reference solution: an MCP client by hand, with nothing but the standard library.

Spec pages: basic/messages, basic/lifecycle, basic/transports (stdio), basic/utilities/ping
https://modelcontextprotocol.io/specification/2024-11-05/basic/messages
https://modelcontextprotocol.io/specification/2024-11-05/basic/lifecycle
https://modelcontextprotocol.io/specification/2024-11-05/basic/transports
https://modelcontextprotocol.io/specification/2024-11-05/basic/utilities/ping

    python lab01_json_rpc_by_hand.py "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]

What it does, in order:

1. Starts the server as a child process and talks to it over its stdin and stdout: one JSON-RPC
   message per line, in both directions (TR-02, TR-05). Every line is shown on stderr.
2. Sends initialize with the version it speaks, its capabilities (none) and its name
   (LC-04..06), and checks that the server answered with a version it speaks (LC-26).
3. Sends notifications/initialized (LC-08): only now may it send other requests.
4. Lists the tools, and calls one if asked to.
5. While it waits for an answer, the server may send requests of its own: ping is answered
   with {} (PING-01), anything else with -32601 (MSG-01); notifications are only shown.
6. Shuts the server down politely: closes its stdin first, and signals it only if it does
   not exit (LC-16..18). Every wait has a bound, so a silent server cannot hang us (LC-24).
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
        if incoming["method"] == "ping":
            self.send({"jsonrpc": "2.0", "id": incoming["id"], "result": {}})  # PING-01
        else:
            self.send({"jsonrpc": "2.0", "id": incoming["id"],
                       "error": {"code": -32601, "message": f"Method not found: {incoming['method']}"}})

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


def main():
    if len(sys.argv) < 2:
        raise SystemExit('usage: python lab01_json_rpc_by_hand.py "SERVER COMMAND" [TOOL [ARGUMENTS-AS-JSON]]')
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
        server.notify("notifications/initialized")  # LC-08

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
