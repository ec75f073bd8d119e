"""An OpenAI-compatible model for local/fuzz: `POST .../chat/completions` on loopback answers at
once, with a sentiment JSON object when the prompt asks for one, a recipe array or nutrients
object when the recipe service asks for those, a log analysis when the incident intelligence
asks for one, else a fixed sentence, so the GenAI, recipe and intelligence operations answer
200 and their response schemas get checked; `POST .../embeddings` answers a small vector per
input. It counts the requests it received (`GET /calls`). Usage: python fake_llm.py PORT"""

import json
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SENTIMENT = {"sentiment": "neutral", "score": 0.0, "bias": None,
             "rationale": "The fuzzing model rates every text neutral."}
REPLY = "The fuzzing model's answer."
# Plant foods a generated recipe may be made of: the first no allergy of the prompt rules out
# (the recipe service drops a recipe naming an allergy, as a word prefix).
INGREDIENTS = ["water", "rice", "salt", "quinoa", "zucchini", "kale", "yam", "vinegar",
               "lemon", "basil", "thyme", "oregano", "fennel", "melon", "grape"]
NUTRIENTS = {"calories": 10, "protein": 1, "fat": 1, "carbs": 1}
ANALYSIS = {"summary": "The fuzzing model sees an error.", "root_cause": "Unknown.",
            "severity": "LOW", "recommendations": ["Read the log."]}


def recipes(system):
    allergies = []
    marker = "anything containing them: "
    if marker in system:
        listed = system.split(marker, 1)[1]
        allergies = re.findall(r"\w+", listed.lower())
    name = next((i for i in INGREDIENTS if not any(i.startswith(a) for a in allergies)), "water")
    return [{"title": "Fuzz soup", "portions": 2,
             "ingredients": [{"quantity": 1, "unit": "l", "name": name}],
             "instructions": ["Boil it."]}]
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
        if self.path.endswith("/embeddings"):
            with lock:
                calls += 1
            try:
                inputs = json.loads(raw).get("input", [])
            except ValueError:
                return self.answer(400, {"error": {"message": "not JSON"}})
            inputs = [inputs] if isinstance(inputs, str) else inputs
            data = [{"object": "embedding", "index": i, "embedding": [1.0, float(len(text) % 7)]}
                    for i, text in enumerate(inputs)]
            return self.answer(200, {"object": "list", "data": data, "model": "fuzz-embeddings"})
        if not self.path.endswith("/chat/completions"):
            return self.answer(404, {"error": {"message": "not found"}})
        with lock:
            calls += 1
        try:
            messages = json.loads(raw).get("messages", [])
            prompt = json.dumps(messages)
            system = " ".join(m.get("content", "") for m in messages if m.get("role") == "system")
        except ValueError:
            return self.answer(400, {"error": {"message": "not JSON"}})
        if '\\"sentiment\\"' in prompt:
            content = json.dumps(SENTIMENT)
        elif '\\"ingredients\\"' in prompt:
            content = json.dumps(recipes(system))
        elif '\\"calories\\"' in prompt:
            content = json.dumps(NUTRIENTS)
        elif '\\"root_cause\\"' in prompt:
            content = json.dumps(ANALYSIS)
        else:
            content = REPLY
        self.answer(200, {
            "id": "fuzz", "object": "chat.completion", "model": "fuzz-model",
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
