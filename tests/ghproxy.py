"""The fake GitHub of tests/ghapi.py served on 127.0.0.1, for a bot running in a subprocess (action.yml).

Each request the subprocess sends is replayed in this process against the `responses` mock, so the same
schema checks, stateful handlers and request log apply as for the bot run in-process.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType

import requests

from tests.ghapi import FakeGitHub

FORWARDED = ("Authorization", "Content-Type", "Accept")


class Proxy:
    """A loopback HTTP server answering from the fake; its url is the GITHUB_API_URL to give the bot."""

    def __init__(self, fake: FakeGitHub) -> None:
        self.fake = fake
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def _forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: self.headers[k] for k in FORWARDED if self.headers.get(k)}
                resp = requests.request(
                    self.command, proxy.fake.root + self.path, data=body, headers=headers, timeout=30
                )
                self.send_response(resp.status_code)
                for name in ("Content-Type", "Retry-After", "Link"):
                    if name in resp.headers:
                        public = proxy.fake.root.replace(":443", "", 1)
                        self.send_header(name, resp.headers[name].replace(public, proxy.url))
                self.send_header("Content-Length", str(len(resp.content)))
                self.end_headers()
                self.wfile.write(resp.content)

            do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _forward

            def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base's name
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Proxy:
        self.thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.server.shutdown()
        self.server.server_close()
