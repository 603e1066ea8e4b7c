"""The query's images that only the plugin can reach, and its documents, fetched once a run.

Dify gives the Agent node a file's address as ``File.to_plugin_parameter`` makes it, for the
plugin to fetch (``generate_url(for_external=False)`` in Dify's ``core/file/models.py``): on a
self-hosted Dify that is the internal address (``http://api:5001/files/...?sign=...``), which the
plugin reaches inside Dify's network but a model provider never does. Dify's own LLM node sends
such images as base64 data (its default ``MULTIMODAL_SEND_FORMAT``); so does this plugin: an
image whose address a provider cannot fetch is fetched here, as the SDK's own ``File``
(dify_plugin ``file/file.py``) does but read in pieces, stopped past the size sent as data and
at the run's fetch deadline (an address that answers slowly or never cannot hold the run), and
sent as data. A public address is sent as it is. A document (a PDF, for a model that reads
documents) is always sent as data: see ``fetch_documents``.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Iterable
from typing import Any, Final
from urllib.parse import unquote, urlsplit

import httpx

from agent_core import prompts

IMAGE_MAX_BYTES: Final = 2 * 1024 * 1024
"""The largest image sent as data (bytes): its base64 (4/3 of it) must fit the request line
budget (``line_budget.REQUEST_BYTES``, 3 MiB) with the rest of the prompt."""

DOCUMENT_MAX_BYTES: Final = IMAGE_MAX_BYTES
"""The largest document sent as data (bytes), for the same reason as ``IMAGE_MAX_BYTES``."""

FETCH_TIMEOUT: Final = 5.0
"""Longest wait for one step of a fetch (connecting, each read), in seconds: the SDK's default
``HTTPX_TIMEOUT``, which its ``File`` waits."""

_PRIVATE_SUFFIXES: Final = (".local", ".internal", ".lan", ".home", ".svc", ".cluster.local", ".localhost")


def url_name(url: Any) -> str:
    """The last segment of ``url``'s path, without its query (``http://api:5001/files/tools/
    ab.png?sign=..`` -> ``ab.png``); '' for no URL, one without a path, or an inline ``data:``
    URL (its "path" is the payload)."""
    if not isinstance(url, str) or not url.strip() or url.strip()[:5].lower() == "data:":
        return ""
    try:
        path = urlsplit(url.strip()).path
    except ValueError:
        return ""
    return unquote(path.rstrip("/").rsplit("/", 1)[-1]).strip()


def is_fetchable_url(url: str) -> bool:
    """Whether ``url`` is an absolute http(s) address (one anybody could try to fetch)."""
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def provider_can_fetch(url: str) -> bool:
    """Whether a model provider on the internet can fetch ``url``: an http(s) address whose host
    is a public name (with a dot, not a private suffix) or a public IP. ``http://api:5001/...``,
    ``localhost``, ``10.0.0.5`` and ``minio.svc`` are not."""
    if not is_fetchable_url(url):
        return False
    host = (urlsplit(url).hostname or "").lower()
    try:
        return ipaddress.ip_address(host).is_global
    except ValueError:
        return "." in host and not host.endswith(_PRIVATE_SUFFIXES)


def fetch_images(
    images: Iterable[tuple[str, int | None] | tuple[str, int | None, str]],
    max_bytes: int = IMAGE_MAX_BYTES,
    left_out: list[str] | None = None,
    deadline: float | None = None,
) -> dict[str, bytes]:
    """``{url: bytes}`` of the ``images`` (``(url, size in bytes or None[, name])``) that a
    provider cannot fetch but the plugin can, each at most ``max_bytes``. One that fails or is
    larger is left out (the caller shows it as a mention), and why is added to ``left_out``
    (named by its name, else its address's last segment); never raises. Waits at most
    ``FETCH_TIMEOUT`` seconds for each step of a fetch, reads no more than ``max_bytes`` + one piece
    of a file, and stops at ``deadline`` (a ``time.monotonic()`` value; None: none): files not
    fetched by then are left out, each said so."""
    return _fetch(images, "image", max_bytes, left_out, deadline, public_too=False)


def fetch_documents(
    documents: Iterable[tuple[str, int | None] | tuple[str, int | None, str]],
    max_bytes: int = DOCUMENT_MAX_BYTES,
    left_out: list[str] | None = None,
    deadline: float | None = None,
) -> dict[str, bytes]:
    """``{url: bytes}`` of the ``documents`` (as ``fetch_images`` takes them), at a public address
    too: a document goes to the model as data only, as Dify's LLM node sends it by default
    (``MULTIMODAL_SEND_FORMAT`` base64), since Anthropic's model plugin reads only a document's
    ``base64_data`` (dify-official-plugins ``models/anthropic/models/llm/llm.py``
    ``_create_document_content``). Left out and said why, and bounded in time and bytes, as in
    ``fetch_images``; never raises."""
    return _fetch(documents, "document", max_bytes, left_out, deadline, public_too=True)


def _fetch(
    files: Iterable[tuple[str, int | None] | tuple[str, int | None, str]],
    kind: str,
    max_bytes: int,
    left_out: list[str] | None,
    deadline: float | None,
    *,
    public_too: bool,
) -> dict[str, bytes]:
    """``fetch_images`` and ``fetch_documents``: ``kind`` is the SDK ``File`` type; a public
    address is fetched only when ``public_too``."""
    fetched: dict[str, bytes] = {}
    notes = left_out if left_out is not None else []
    for url, size, *named in files:
        name = (named[0] if named else "") or url_name(url) or f"a {kind}"
        if url in fetched or not is_fetchable_url(url) or (provider_can_fetch(url) and not public_too):
            continue
        if isinstance(size, int) and size > max_bytes:
            notes.append(prompts.QUERY_FILE_TOO_LARGE.format(name=name, size=size, limit=max_bytes))
            continue
        try:
            blob = _download(url, max_bytes, deadline)
        except Exception as error:  # the address failed: shown as a mention instead
            notes.append(prompts.QUERY_FILE_NOT_FETCHED.format(name=name, error=type(error).__name__))
            continue
        if isinstance(blob, bytes) and blob:
            fetched[url] = blob
        else:
            size = len(blob) if isinstance(blob, bytes) else blob
            notes.append(prompts.QUERY_FILE_TOO_LARGE.format(name=name, size=size, limit=max_bytes))
    return fetched


def _download(url: str, max_bytes: int, deadline: float | None) -> bytes | int:
    """The bytes at ``url``; or, for a file larger than ``max_bytes``, its size in bytes as far as
    known (its declared length, else what was read: more than ``max_bytes``). Raises ``httpx``'s
    errors (a failed address, a status of 400 or more, a step slower than ``FETCH_TIMEOUT``) and
    ``TimeoutError`` when ``deadline`` comes before the file is read."""
    left = FETCH_TIMEOUT if deadline is None else deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("no time left in the run")
    with httpx.stream("GET", url, timeout=min(FETCH_TIMEOUT, left)) as response:
        response.raise_for_status()
        declared = response.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > max_bytes:
            return int(declared)
        pieces: list[bytes] = []
        size = 0
        for piece in response.iter_bytes():
            size += len(piece)
            if size > max_bytes:
                return size
            pieces.append(piece)
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError("no time left in the run")
    return b"".join(pieces)
