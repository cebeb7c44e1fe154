"""A real SMTP server on loopback for the e-mail tests (aiosmtpd): prints READY, then one JSON line per message."""
import asyncio
import email
import email.policy
import json
import sys

from aiosmtpd.controller import Controller


class Sink:
    async def handle_DATA(self, server, session, envelope):
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = parsed.get_body(preferencelist=("plain",))
        line = {
            "from": envelope.mail_from,
            "to": envelope.rcpt_tos,
            "content": envelope.content.decode("utf8", "replace"),
            "subject": str(parsed["subject"]),
            "text": body.get_content() if body is not None else "",
        }
        print(json.dumps(line), flush=True)
        return "250 Message accepted for delivery"


controller = Controller(Sink(), hostname="127.0.0.1", port=int(sys.argv[1]))
controller.start()
print("READY", flush=True)
try:
    asyncio.get_event_loop().run_until_complete(asyncio.sleep(3600))
finally:
    controller.stop()
