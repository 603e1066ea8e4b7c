"""The benchmarks, by name, in the order ``python -m bench`` runs them.

Each module has ``NAME``, ``TITLE``, ``Params`` (a frozen dataclass) with ``FULL`` and ``SMOKE``
instances, ``run(params, plugin) -> dict`` (JSON-ready) and ``table(result) -> str`` (Markdown).
"""

from __future__ import annotations

from types import ModuleType

from bench import (
    concurrency,
    long_lived,
    overhead,
    parallel,
    prompt_size,
    react_prompt,
    scale,
    sdk_lines,
    streaming,
    tokens_speed,
)

BENCHMARKS: dict[str, ModuleType] = {
    module.NAME: module
    for module in (react_prompt, prompt_size, streaming, parallel, overhead, scale, concurrency, tokens_speed, sdk_lines,
                   long_lived)
}
