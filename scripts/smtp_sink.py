"""A real SMTP server for the mail tests (aiosmtpd, from the tests' pinned venv).

    smtp_sink.py PORT DIR

Listens on 127.0.0.1:PORT, prints "ready" once it accepts connections, and writes each message
it receives into DIR, parsed by Python's own MIME parser: N.json (envelope, headers, the plain
body, the attachments' names and types) and N-FILENAME for each attachment's decoded bytes,
plus N.eml, the message as received. Stops when its standard input closes or on SIGTERM.
"""

import email
import email.policy
import json
import os
import signal
import sys
import threading

from aiosmtpd.controller import Controller


class Sink:
    def __init__(self, directory):
        self.directory = directory
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            n = self.count
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        attachments = []
        for part in message.iter_attachments():
            name = os.path.basename(part.get_filename() or f"part{len(attachments)}")
            stored = f"{n}-{name}"
            with open(os.path.join(self.directory, stored), "wb") as out:
                out.write(part.get_payload(decode=True))
            attachments.append(
                {"filename": name, "content_type": part.get_content_type(), "file": stored}
            )
        body = message.get_body(preferencelist=("plain",))
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_tos": envelope.rcpt_tos,
            "from": str(message["from"]),
            "to": str(message["to"]),
            "subject": str(message["subject"]),
            "body": body.get_content() if body is not None else None,
            "attachments": attachments,
        }
        with open(os.path.join(self.directory, f"{n}.eml"), "wb") as out:
            out.write(envelope.content)
        # Written under a temporary name and renamed: a reader never sees half a record.
        tmp = os.path.join(self.directory, f".{n}.json")
        with open(tmp, "w", encoding="utf-8") as out:
            json.dump(record, out, ensure_ascii=False)
        os.replace(tmp, os.path.join(self.directory, f"{n}.json"))
        return "250 Message accepted for delivery"


def main():
    port, directory = int(sys.argv[1]), sys.argv[2]
    os.makedirs(directory, exist_ok=True)
    controller = Controller(Sink(directory), hostname="127.0.0.1", port=port)
    controller.start()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
