"""A scripted OpenAI-compatible chat-completions server for the stock scenario, in its own process.

    python bench/model_server.py [--port 0] [--dialect openai|azure|none]
                                                # prints its base URL on the first line of stdout

It stands where a user's vLLM or Ollama would: `ChatOpenAI` talks to it over HTTP/1.1 keep-alive
connections. A reply is chosen by the request's content, never by order, because runs overlap:

- the planner (system prompt "You plan how..."): the stock plan for the SKUs of the last user
  message (`perf_scenario.plan_for`), as JSON text in `content` (ChatOpenAI's structured output
  sends a `json_schema` response_format and parses the content);
- the safety analyser ("You are a safety analyser"): `reorder` is irreversible, `get_stock` reads;
- the answer writer ("You write the final answer"): `perf_scenario.answer_for` of its prompt.

It is provider-faithful: a request the real API would refuse (`--dialect`, OpenAI's rules by
default, or Azure OpenAI's) gets that API's HTTP 400 and error body, from the rules the tests'
stub uses (tests/provider_rules.py, loaded by path: bench/ imports nothing from the tests
package), so a schema, tool list or history that drifts fails the bench as an error.
`--dialect none` takes any request.

The latency is part of the model name: `bench-300ms` sleeps 300 ms before answering, so one
server serves every latency. A request it does not recognise gets HTTP 400 (the bench counts it
as an error). Its CPU is its own process's: the bench measures the graph's process alone.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from perf_scenario import SKU, answer_for, plan_for

RULES_FILE = Path(__file__).resolve().parent.parent / "tests" / "provider_rules.py"
"""The provider rules the tests' stub answers by, shared rather than copied."""


def _load_rules() -> Any:
    """tests/provider_rules.py as a module of its own (standard library only)."""
    spec = importlib.util.spec_from_file_location("provider_rules", RULES_FILE)
    assert spec is not None, RULES_FILE
    assert spec.loader is not None, RULES_FILE
    module = importlib.util.module_from_spec(spec)
    # Registered before running: its dataclasses look their module up by name.
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


rules = _load_rules()

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
    dialect: str | None = "openai"
    """Whose rules requests are held to (`--dialect`), or None to take any request."""

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a line per request would cost this process more than answering."""

    def do_POST(self) -> None:
        """Answer one chat completion after the latency its model name asks for."""
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        refusal = rules.check_request(body, self.dialect) if self.dialect else None
        if refusal is not None:
            self._send(400, refusal.body())
            return
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
    parser.add_argument(
        "--dialect",
        choices=[*rules.DIALECTS, "none"],
        default="openai",
        help="whose rules requests must follow (HTTP 400 as that API answers); none takes any",
    )
    args = parser.parse_args()
    Handler.dialect = None if args.dialect == "none" else args.dialect
    server = Server(("127.0.0.1", args.port), Handler)
    print(f"http://127.0.0.1:{server.server_address[1]}/v1", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
