"""One change to how the SDK reads the daemon's lines, made once at start-up (``main.py``).

The SDK parses every line the daemon sends with ``TypeAdapter(dict[str, Any]).validate_json``
and builds that ``TypeAdapter`` anew for each line (dify_plugin 0.10.2:
``core/server/stdio/request_reader.py``, ``core/server/tcp/request_reader.py`` and the
serverless reader in ``core/runtime.py``). Building one generates a pydantic core schema and
looks up pydantic plugins in the environment each time: in a profiled run (py-spy on
``python -m bench overhead``) it was 18 % of the plugin's CPU, paid for every streamed model
chunk and every tool message.

``share_type_adapters()`` gives those modules a ``TypeAdapter`` that returns one shared adapter
per type. A ``TypeAdapter`` holds no per-call state, so what each line parses to is unchanged;
a module that no longer uses the name is left as it is, so an SDK upgrade cannot break on it.
"""

from __future__ import annotations

import functools
import importlib
from typing import Any

from pydantic import TypeAdapter

READER_MODULES = (
    "dify_plugin.core.server.stdio.request_reader",
    "dify_plugin.core.server.tcp.request_reader",
    "dify_plugin.core.runtime",
)
"""The SDK modules that build a ``TypeAdapter`` for each line they read."""


@functools.cache
def _shared(type_: Any) -> TypeAdapter[Any]:
    return TypeAdapter(type_)


def shared_type_adapter(type_: Any, *args: Any, **kwargs: Any) -> TypeAdapter[Any]:
    """``TypeAdapter(type_)``, built once per type and reused.

    With any other argument (``config``, ``module``...) or an unhashable type it builds a new
    adapter, exactly as ``TypeAdapter`` does.
    """
    if args or kwargs:
        return TypeAdapter(type_, *args, **kwargs)
    try:
        return _shared(type_)
    except TypeError:  # unhashable type
        return TypeAdapter(type_)


def share_type_adapters(modules: tuple[str, ...] = READER_MODULES) -> list[str]:
    """Point each module's ``TypeAdapter`` at ``shared_type_adapter``; returns the modules
    changed (a module that is missing or does not use ``TypeAdapter`` is skipped)."""
    changed = []
    for name in modules:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        if getattr(module, "TypeAdapter", None) is TypeAdapter:
            module.TypeAdapter = shared_type_adapter  # type: ignore[attr-defined]
            changed.append(name)
    return changed
