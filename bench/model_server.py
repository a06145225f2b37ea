"""A scripted OpenAI-compatible chat-completions server for the stock scenario, in its own process.

    python bench/model_server.py [--port 0]     # prints its base URL on the first line of stdout

It stands where a user's vLLM or Ollama would: `ChatOpenAI` talks to it over HTTP/1.1 keep-alive
connections. A reply is chosen by the request's content, never by order, because runs overlap:

- the planner (system prompt "You plan how..."): the stock plan for the SKUs of the last user
  message (`perf_scenario.plan_for`), as JSON text in `content` (ChatOpenAI's structured output
  sends a `json_schema` response_format and parses the content);
- the safety analyser ("You are a safety analyser"): `reorder` is irreversible, `get_stock` reads;
- the answer writer ("You write the final answer"): `perf_scenario.answer_for` of its prompt.

The latency is part of the model name: `bench-300ms` sleeps 300 ms before answering, so one
server serves every latency. A request it does not recognise gets HTTP 400 (the bench counts it
as an error). Its CPU is its own process's: the bench measures the graph's process alone.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf_scenario import SKU, answer_for, plan_for

ANALYSIS = {"irreversible": True, "blocked_tools": ["reorder"], "read_only_tools": ["get_stock"]}
"""The analyser's structured answer: the write cannot be undone, the lookups only read."""

LATENCY = re.compile(r"(\d+)ms$")


def _text(content: Any) -> str:
    """A message's content as text (a string, or a list of text parts)."""
    if isinstance(content, list):
        return " ".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content or "")


def reply_for(body: dict[str, Any]) -> str | None:
    """The reply's content for a chat-completions request body, or None when not recognised."""
    messages = body.get("messages") or []
    system = _text(messages[0].get("content")) if messages else ""
    users = [_text(m.get("content")) for m in messages if m.get("role") == "user"]
    if system.startswith("You plan how"):
        return json.dumps(plan_for(SKU.findall(users[-1] if users else "")))
    if system.startswith("You are a safety analyser"):
        return json.dumps(ANALYSIS)
    if system.startswith("You write the final answer"):
        return answer_for(system)
    return None


def completion(content: str, model: str) -> dict[str, Any]:
    """A non-streaming chat completion carrying `content`."""
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": None},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


class Handler(BaseHTTPRequestHandler):
    """POST /v1/chat/completions; keep-alive, like the servers users run."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a line per request would cost this process more than answering."""

    def do_POST(self) -> None:
        """Answer one chat completion after the latency its model name asks for."""
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        model = str(body.get("model", ""))
        latency = LATENCY.search(model)
        if latency:
            time.sleep(int(latency.group(1)) / 1000)
        content = None if body.get("stream") else reply_for(body)
        if content is None:
            self._send(400, {"error": {"message": "unrecognised request (or stream)"}})
        else:
            self._send(200, completion(content, model))

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class Server(ThreadingHTTPServer):
    """A thread per connection; a backlog for a hundred clients connecting at once."""

    daemon_threads = True
    request_queue_size = 256


def main() -> None:
    """Serve until killed; the base URL goes to stdout first."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
