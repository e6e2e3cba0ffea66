"""The OpenAI-compatible example, against a fake chat endpoint on 127.0.0.1 started by the test."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


class _Chat(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    seen: list[dict] = []

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Chat.seen.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        question = body["messages"][-1]["content"]
        if "boom" in question.lower():
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = "Je ne trouve pas cette information." if "licorne" in question else "Quatre mois."
        reply = json.dumps({"choices": [{"message": {"content": answer}}], "usage": {"prompt_tokens": 1000, "completion_tokens": 10}}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


def test_the_openai_example_answers_from_the_retrieved_passages_and_reports_tokens_and_cost(tmp_path):
    gold = tmp_path / "gold.yaml"
    gold.write_text(
        "- {id: q1, question: \"Quelle est la durée de la période d'essai pour un cadre ?\", gold_passages: [p_reglement_intx_007]}\n"
        "- {id: q2, question: 'Combien coûte une licorne ?', gold_passages: []}\n"
        "- {id: q3, question: 'Boom ?', gold_passages: []}\n",
        encoding="utf-8",
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Chat)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    out = tmp_path / "llm.jsonl"
    env = {**os.environ, "OPENAI_BASE_URL": f"http://127.0.0.1:{server.server_address[1]}/v1", "OPENAI_API_KEY": "sk-fake-key-123456",
           "OPENAI_MODEL": "fake-model", "OPENAI_PRICE_IN": "0.4", "OPENAI_PRICE_OUT": "1.6"}
    example = REPO / "sample_data" / "example_openai.py"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ragtui", "run", str(gold), "--retriever", f"{example}:chercher", "--generator", f"{example}:repondre", "-o", str(out), "-q", "-j", "1"],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=120, check=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    records = {r["id"]: r for r in (json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()[1:])}
    assert records["q1"]["answer"] == "Quatre mois." and records["q1"]["retrieved"][0]["id"] == "p_reglement_intx_007"
    assert (records["q1"]["tokens_in"], records["q1"]["tokens_out"]) == (1000, 10)
    assert records["q1"]["cost_usd"] == (1000 * 0.4 + 10 * 1.6) / 1_000_000
    assert records["q2"]["abstained"] is True
    assert records["q3"]["error"].startswith(f"{example}:repondre raised HTTPStatusError: Server error '500 Internal Server Error'")
    first = _Chat.seen[0]
    assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer sk-fake-key-123456"
    assert first["body"]["model"] == "fake-model" and "[p_reglement_intx_007]" in first["body"]["messages"][-1]["content"]
    assert "sk-fake-key-123456" not in out.read_text(encoding="utf-8")
