"""The real app served over HTTP for the tests that need a socket (browsers, client libraries, WebSockets)."""

from __future__ import annotations

import threading

from werkzeug.serving import make_server

from webapp.web.security import RequestHandler


class ServerThread:
    """The real app under Werkzeug's threaded server on 127.0.0.1, on a free port, in a daemon thread (with the
    request handler ``python -m webapp serve`` uses)."""

    def __init__(self, app) -> None:
        self.server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=RequestHandler)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.thread.join(timeout=5)
