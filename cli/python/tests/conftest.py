"""Fixtures of the rlmkg package tests: the repository's sample corpus in a
store, and a scripted OpenAI-compatible chat server on 127.0.0.1.

No test may use an installed embedded model: RLMKG_MODEL_DIR points at an
empty folder before rlmkg looks for one (it reads the variable at each ask).
"""

import json
import os
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

os.environ["RLMKG_MODEL_DIR"] = tempfile.mkdtemp(prefix="rlmkg-no-models-")

import rlmkg  # noqa: E402  (after RLMKG_MODEL_DIR is set)

REPO = Path(os.environ.get("RLMKG_REPO", Path(__file__).resolve().parents[3]))
CORPUS = REPO / "examples" / "corpus"
QUESTIONS = REPO / "examples" / "questions.jsonl"


def sample_questions():
    """The sample questions of examples/questions.jsonl, by id."""
    rows = [json.loads(l) for l in QUESTIONS.read_text().splitlines() if l.strip()]
    return {r["id"]: r for r in rows}


@pytest.fixture(scope="session")
def store(tmp_path_factory):
    """A store holding the sample corpus (shared: tests only read it)."""
    s = rlmkg.Store.create(tmp_path_factory.mktemp("store"))
    report = s.ingest([CORPUS])
    assert report["ingested"] == report["files"] >= 10, report
    return s


class ChatServer:
    """An OpenAI-compatible chat-completions server answering each POST with
    what `script(request)` returns (a reply text); every GET (server and
    model probes) is a 404, so the client takes it for the plain OpenAI API."""

    def __init__(self, script):
        self.requests = []
        lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def do_GET(self):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_POST(self):
                n = int(self.headers.get("Content-Length", "0"))
                req = json.loads(self.rfile.read(n) or b"null")
                with lock:
                    outer.requests.append(req)
                content = script(req)
                # About four characters a token, as the client estimates:
                # fewer would read as a truncated prompt.
                chars = sum(
                    len(m["content"])
                    for m in req.get("messages") or []
                    if isinstance(m.get("content"), str)
                )
                prompt, completion = chars // 4 + 1, len(content) // 4 + 1
                body = json.dumps(
                    {
                        "id": f"chatcmpl-{len(outer.requests)}",
                        "object": "chat.completion",
                        "model": req.get("model", "scripted"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": content},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": completion,
                            "total_tokens": prompt + completion,
                        },
                    }
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self):
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


def is_root_request(req):
    """A root turn starts with the system prompt; sub-calls do not."""
    msgs = req.get("messages") or []
    return bool(msgs) and msgs[0].get("role") == "system"


def last_user(req):
    """The text of the request's last user message."""
    for m in reversed(req.get("messages") or []):
        if m.get("role") == "user" and isinstance(m.get("content"), str):
            return m["content"]
    return ""


@pytest.fixture
def chat_server():
    """Start scripted servers; all are stopped after the test."""
    servers = []

    def start(script):
        s = ChatServer(script)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()
