"""An OpenAI-compatible model for local/fuzz: `POST .../chat/completions` on loopback answers at
once, with a sentiment JSON object when the prompt asks for one, else a fixed sentence, so the
GenAI operations answer 200 and their response schemas get checked. It counts the requests it
received (`GET /calls`). Usage: python fake_llm.py PORT"""

import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SENTIMENT = {"sentiment": "neutral", "score": 0.0, "bias": None,
             "rationale": "The fuzzing model rates every text neutral."}
REPLY = "The fuzzing model's answer."
calls = 0
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        with lock:
            self.answer(200, {"calls": calls})

    def do_POST(self):
        global calls
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        if not self.path.endswith("/chat/completions"):
            return self.answer(404, {"error": {"message": "not found"}})
        with lock:
            calls += 1
        try:
            prompt = json.dumps(json.loads(raw).get("messages", []))
        except ValueError:
            return self.answer(400, {"error": {"message": "not JSON"}})
        content = json.dumps(SENTIMENT) if '\\"sentiment\\"' in prompt else REPLY
        self.answer(200, {
            "id": "fuzz", "object": "chat.completion", "model": "fuzz-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
