"""agent_core.sdk_speedups: the SDK's line readers reuse one TypeAdapter per type."""

from __future__ import annotations

import importlib
import types
from pathlib import Path
from typing import Annotated, Any

from pydantic import ConfigDict, TypeAdapter

from agent_core.sdk_speedups import READER_MODULES, share_type_adapters, shared_type_adapter


def test_the_sdk_readers_still_build_a_type_adapter_per_line_and_are_changed():
    """Fails on an SDK upgrade that drops or renames the readers: the speed-up would be gone
    silently (``bench overhead`` shows it), so the list must be checked again."""
    share_type_adapters()
    for name in READER_MODULES:
        module = importlib.import_module(name)
        assert module.TypeAdapter is shared_type_adapter, name
        assert "TypeAdapter(dict[str, Any]).validate_json(line)" in Path(module.__file__).read_text(), name


def test_one_adapter_per_type_and_the_same_parse():
    first, second = shared_type_adapter(dict[str, Any]), shared_type_adapter(dict[str, Any])
    assert first is second
    line = b'{"session_id": "s", "event": "request", "data": {"n": 1, "t": "\\u00e9"}}'
    assert first.validate_json(line) == TypeAdapter(dict[str, Any]).validate_json(line)


def test_other_arguments_and_unhashable_types_get_a_fresh_adapter():
    config = ConfigDict(strict=True)
    assert shared_type_adapter(int, config=config) is not shared_type_adapter(int, config=config)

    unhashable = Annotated[int, ["a list makes the type unhashable"]]
    assert shared_type_adapter(unhashable).validate_python(3) == 3


def test_missing_modules_and_modules_without_the_name_are_skipped(monkeypatch):
    plain = types.ModuleType("plain_reader")
    monkeypatch.setitem(__import__("sys").modules, "plain_reader", plain)
    assert share_type_adapters(("no.such.module", "plain_reader")) == []
    assert not hasattr(plain, "TypeAdapter")
