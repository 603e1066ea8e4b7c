"""Files a run sends to the agent, shaped as Dify's Agent node sends them (protocol §5).

Dify passes a file as ``{"dify_model_identity": "__dify__file__", "mime_type", "filename",
"extension", "size", "type", "url"}``; the plugin downloads ``url`` on demand. Local files
are served over HTTP on 127.0.0.1 by a ``FileServer`` so the plugin can fetch them the same way.
"""

from __future__ import annotations

import mimetypes
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

FILE_IDENTITY = "__dify__file__"
_DOCUMENT_MIMES = ("text/", "application/pdf", "application/msword", "application/vnd.", "application/json")


def file_type(mime_type: str | None) -> str:
    """Dify's ``FileType`` for a MIME type: image, audio, video, document or custom."""
    mime = mime_type or ""
    for kind in ("image", "audio", "video"):
        if mime.startswith(f"{kind}/"):
            return kind
    return "document" if mime.startswith(_DOCUMENT_MIMES) else "custom"


def file_param(entry: dict[str, Any]) -> dict[str, Any]:
    """Complete a file dict (at least ``url``) to the shape Dify sends; given keys win."""
    if "url" not in entry:
        raise ValueError(f"a file needs a 'url' (or give a local path instead): {entry}")
    filename = entry.get("filename") or unquote(str(entry["url"]).rstrip("/").rsplit("/", 1)[-1].split("?")[0])
    mime = entry.get("mime_type") or mimetypes.guess_type(filename)[0] or "application/octet-stream"
    return {
        "dify_model_identity": FILE_IDENTITY,
        "mime_type": mime,
        "filename": filename,
        "extension": "." + filename.rsplit(".", 1)[-1] if "." in filename else "",
        "size": entry.get("size"),
        "type": entry.get("type") or file_type(mime),
        "url": entry["url"],
    } | entry


class FileServer:
    """Serves chosen local files read-only at ``http://127.0.0.1:<port>/<n>/<name>``.

    Context manager; ``add(path) -> url``."""

    def __init__(self) -> None:
        self._files: dict[str, Path] = {}
        files = self._files

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = files.get(unquote(self.path))
                if path is None:
                    self.send_error(404)
                    return
                body = path.read_bytes()
                self.send_response(200)
                self.send_header("Content-Type", mimetypes.guess_type(path.name)[0] or "application/octet-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Stay quiet: the runner's terminal is the live view."""

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="file-server", daemon=True)

    def __enter__(self) -> FileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add(self, path: str | Path) -> dict[str, Any]:
        """Serve the local file ``path``; returns its complete Dify file dict."""
        path = Path(path).resolve()
        if not path.is_file():
            raise FileNotFoundError(f"file to send not found: {path}")
        route = f"/{len(self._files)}/{path.name}"
        self._files[route] = path
        host, port = self._server.server_address[:2]
        return file_param(
            {"url": f"http://{host}:{port}{quote(route)}", "filename": path.name, "size": path.stat().st_size}
        )
