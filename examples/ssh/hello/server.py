"""The example app: answers /healthz and / on $PORT, and says whether its database answers."""
import http.server
import os
import socket
from urllib.parse import urlsplit


def database_state():
    url = os.environ.get("DATABASE_URL")
    if not url:
        return "none given"
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname, parts.port or 5432), timeout=2).close()
        return "reachable"
    except OSError as error:
        return "unreachable (%s)" % error


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"ok\n" if self.path == "/healthz" else ("hello from %s (database: %s)\n" % (os.uname().nodename, database_state())).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("", int(os.environ.get("PORT", "8080"))), Hello).serve_forever()
