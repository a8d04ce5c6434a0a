"""The example app: answers /healthz and / on $PORT, and says whether it was given a database."""
import http.server
import os


class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"ok\n" if self.path == "/healthz" else ("hello from %s (database: %s)\n" % (os.uname().nodename, "yes" if os.environ.get("DATABASE_URL") else "no")).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


http.server.ThreadingHTTPServer(("", int(os.environ.get("PORT", "8080"))), Hello).serve_forever()
