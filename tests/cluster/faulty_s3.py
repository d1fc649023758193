"""An HTTP proxy in front of an S3 server that injects the object store's
faults (docs/design/cluster.md, failure cases): 503 SlowDown answered
without forwarding, a request forwarded and its answer replaced by a 503 (a
PUT stored but its answer lost), 429 throttling, every request refused
while "down", or every request held unanswered while "hanging" (then
forwarded late, when the hang ends: a broker that gave up on a PUT may find
it stored after all). The broker is not mocked: it talks to the real server
through this proxy. Deterministic: the faults follow the request count.
With tls=(certificate file, key file) the proxy speaks HTTPS (the object
store's TLS, tests/cluster/test_objstore_tls.py); with client_ca=PEM too it
requires a client certificate signed by that CA (ssl.CERT_REQUIRED: mutual
TLS, tests/cluster/test_objstore_mtls.py). `requests` lists the (method,
path, Range header or None) of every request it received; `client_names`
the common names of the client certificates they came with."""

import http.client
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SLOW_DOWN = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>SlowDown</Code>'
             b"<Message>Please reduce your request rate.</Message></Error>")
THROTTLED = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>TooManyRequests</Code>'
             b"<Message>Throttled.</Message></Error>")


class FaultyS3:
    """mode: "pass" (forward all), "flaky" (of every six requests, one is
    answered 503 unforwarded, one carried out and answered 503, one 429),
    "down" (all 503), "hang" (all held until the mode changes, at most
    HANG_MAX_S, then forwarded)."""

    HANG_MAX_S = 60
    # hang_only(method, path): which requests "hang" holds (None: all); the others pass.
    hang_only = None

    def __init__(self, upstream_port, tls=None, client_ca=None):
        self.upstream_port = upstream_port
        self.tls = tls
        self.requests = []
        self.client_names = set()
        self.mode = "pass"
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)
        self.count = 0
        self.injected = {"503": 0, "lost answer": 0, "429": 0, "hang": 0}
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def handle_any(self):
                try:
                    proxy._handle(self)
                except (BrokenPipeError, ConnectionResetError):  # the broker gave up on it
                    self.close_connection = True

            do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = handle_any

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(*tls)
            if client_ca:
                ctx.verify_mode = ssl.CERT_REQUIRED
                ctx.load_verify_locations(client_ca)
            self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, bucket, region="us-east-1", ca_file=None, cert_file=None, key_file=None):
        scheme = "https" if self.tls else "http"
        url = "s3://%s?endpoint=%s://127.0.0.1:%d&region=%s" % (bucket, scheme, self.port, region)
        for name, value in (("ca_file", ca_file), ("cert_file", cert_file), ("key_file", key_file)):
            url += "&%s=%s" % (name, value) if value else ""
        return url

    PATTERN = (None, "503", None, "lost answer", None, "429")  # flaky: one request in two fails

    def set_mode(self, mode):
        """Changes the mode; requests held by a hang go on."""
        with self.changed:
            self.mode = mode
            self.changed.notify_all()

    def _fault(self, h):
        with self.lock:
            if self.mode == "hang" and self.hang_only and not self.hang_only(h.command, h.path):
                return None
            if self.mode == "hang":
                self.injected["hang"] += 1
                self.changed.wait_for(lambda: self.mode != "hang", timeout=self.HANG_MAX_S)
            if self.mode == "down":
                fault = "503"
            elif self.mode == "flaky":
                fault = self.PATTERN[self.count % len(self.PATTERN)]
                self.count += 1
            else:
                fault = None
            if fault:
                self.injected[fault] += 1
            return fault

    @staticmethod
    def _answer(h, status, headers, body):
        h.send_response(status)
        for k, v in headers:
            if k.lower() not in ("connection", "transfer-encoding", "content-length"):
                h.send_header(k, v)
        h.send_header("Content-Length", str(len(body)))
        h.send_header("Connection", "close")
        h.end_headers()
        if h.command != "HEAD":
            h.wfile.write(body)
        h.close_connection = True

    def _handle(self, h):
        peer = h.connection.getpeercert() if self.tls else None
        with self.lock:
            self.requests.append((h.command, h.path, h.headers.get("Range")))
            if peer:
                self.client_names.update(v for rdn in peer["subject"] for k, v in rdn if k == "commonName")
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else b""
        fault = self._fault(h)
        if fault == "503":
            return self._answer(h, 503, [("Content-Type", "application/xml")], SLOW_DOWN)
        if fault == "429":
            return self._answer(h, 429, [("Content-Type", "application/xml")], THROTTLED)
        c = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        try:
            headers = {k: v for k, v in h.headers.items() if k.lower() != "connection"}
            c.request(h.command, h.path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            if fault == "lost answer":  # done upstream, the answer never arrives
                return self._answer(h, 503, [("Content-Type", "application/xml")], SLOW_DOWN)
            return self._answer(h, r.status, r.getheaders(), data)
        finally:
            c.close()

    def close(self):
        self.set_mode("pass")  # held requests go on
        self.server.shutdown()
        self.server.server_close()
