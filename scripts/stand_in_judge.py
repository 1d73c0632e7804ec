#!/usr/bin/env python3
"""A stand-in for a model endpoint, for the benchmarks: an OpenAI-compatible chat-completions
server (`POST /v1/chat/completions`, `GET /v1/models`) that answers every request on a thread of
its own, as a batching server (vLLM, `llama-server --parallel N`) answers many at once.

    scripts/stand_in_judge.py PORT grade DELAY_MS   # {"stars": N} after DELAY_MS, N from the prompt
    scripts/stand_in_judge.py PORT endless          # every other reply never ends

`grade` gives 1 to 5 stars by a hash of the prompt. `endless` grades every other request (a
run's first among them: the count starts again whenever no request is in flight) and answers
the others with 200 and chunks of 64 KiB of spaces, as fast as the client reads them, until it
hangs up: the attack of issue 39 (2), kept up for a whole run.
"""
import hashlib
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

PORT, MODE = int(sys.argv[1]), sys.argv[2]
DELAY = int(sys.argv[3]) / 1000 if MODE == "grade" else 0
CHUNK = b" " * 65536
# Requests in flight, and requests since none was.
counts = {"in_flight": 0, "since_idle": 0}
counting = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.answer(200, {"object": "list", "data": [{"id": "stand-in"}]})

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        digest = hashlib.sha256(prompt.encode()).digest()
        with counting:
            if counts["in_flight"] == 0:
                counts["since_idle"] = 0
            number = counts["since_idle"]
            counts["since_idle"] += 1
            counts["in_flight"] += 1
        try:
            self.reply(body, digest, number)
        finally:
            with counting:
                counts["in_flight"] -= 1

    def reply(self, body, digest, number):
        if MODE == "endless" and number % 2:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            chunk = b"%x\r\n%s\r\n" % (len(CHUNK), CHUNK)
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                self.close_connection = True
            return
        stars = digest[0] % 5 + 1
        if DELAY:
            time.sleep(DELAY)
        self.answer(200, {
            "id": "chatcmpl-stand-in", "object": "chat.completion", "model": body["model"],
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": json.dumps({"stars": stars})}}],
        })


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer.request_queue_size = 256
ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
