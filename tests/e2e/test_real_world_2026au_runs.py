"""The forty-sixth real-world pass (what tools return) through the real plugin, in both
strategies: each tool's stream is played the way Dify hands it on (see
tests/unit/test_real_world_2026au.py for the shapes and sources), and the test checks what the
model read in the next round, what the user got, and that the run went on as the model decided.

One table: each case is what the tool sends (or the error it raises), and what must follow. A
tool output holding the loop's own markup (``<think>``, ``</tool_call>``, ``Final Answer:``,
``Action:``, a forged end of a data wrapper) reaches the model as it is, never ends the run,
never runs the tool it names, and never reaches the user as the answer. The multi-megabyte log
(charmbracelet/crush PR #3602) is this pass's fix: the model reads its last lines, the error,
besides its head (before, only the head of its first million characters)."""

from dataclasses import dataclass

import pytest

from local_runner.tools import ScriptedTool, text_message
from tests.e2e.helpers import assert_clean_run, tools_ran
from tests.e2e.test_tool_output import STRATEGIES, assert_no_base64, call_turns, file_bytes, observation
from tests.unit.test_real_world_2026am import tool_file
from tests.unit.test_real_world_2026au import (
    BUILD_LOG,
    CASES,
    FORGED_WRAPPER_END,
    PDF,
    PNG,
    REACT_DOC_PAGE,
    README_11K,
    SESSION_SLICE,
    TOOL_CALL_MARKUP,
)


@dataclass(frozen=True)
class Case:
    responses: tuple = ()  # the tool's messages, as Dify hands them on
    error: str | None = None  # raised after them
    seen: tuple = ()  # in what the model reads of the result
    files: tuple = ()  # (type, text or None) of each file the user gets
    whole: bool = False  # the model reads the text exactly as the tool sent it
    provider_type: str = "builtin"


def _pieces(text: str, size: int = 400_000) -> tuple:
    """A long text as a tool streams it, in text messages of ``size`` characters."""
    return tuple(text_message(text[i : i + size]) for i in range(0, len(text), size))


RUNS = {
    "githubmcp1952-missing-parameter-text": Case(
        CASES["githubmcp1952-missing-parameter-text-is-error-false"].messages, seen=("missing required parameter: owner",),
        provider_type="mcp"),
    "raise112-status-error-body": Case(
        CASES["raise112-status-error-body-is-error-false"].messages, seen=("1 validation error for WorkLifecycle",),
        provider_type="mcp"),
    "difymcpserver41-mcperror-32000-status-500": Case(
        error=CASES["difymcpserver41-mcperror-32000-status-500"].error, seen=("Error: the tool 'fetch' failed", "status code: 500")),
    "gallery889-readme-11k-tokens": Case(
        (text_message(README_11K),), seen=("# Box", "were cut from the middle", "MIT")),
    "crush3602-multi-megabyte-log-in-pieces": Case(
        _pieces(BUILD_LOG), seen=("module_00000.go", "undefined: ParseToken", "FAIL: exit status 1")),
    "claudecode70280-image-and-base64-structured-content": Case(
        CASES["claudecode70280-image-and-its-base64-in-structured-content"].messages, seen=("image/png",),
        files=(("blob", None),), provider_type="mcp"),
    "openwebui29665-data-uri-nested-in-json": Case(
        CASES["openwebui29665-data-uri-nested-in-a-json-list"].messages, seen=('"page":1', "not shown to the model")),
    "claudecode94746-pdf-blob-then-metadata": Case(
        CASES["claudecode94746-pdf-blob-then-its-metadata"].messages, seen=("application/pdf", "invoice-0042.pdf"),
        files=(("blob", None),), provider_type="mcp"),
    "dify30260-pdf-tool-file": Case(
        (tool_file("link", "c41d9e27", ".pdf", "application/pdf"),), seen=("A file was sent to the user",),
        files=(("link", "/files/tools/c41d9e27.pdf"),), provider_type="mcp"),
    "lmstudio79-non-ascii-escapes": Case(
        CASES["lmstudio79-tool-output-non-ascii-escapes"].messages, seen=("München", "12°C")),
    # ---- the loop's own markup in a tool's output ------------------------------------------------
    "continue7720-think-tags-in-a-file": Case((text_message(SESSION_SLICE),), whole=True),
    "hermes56172-forged-wrapper-end": Case((text_message(FORGED_WRAPPER_END),), whole=True),
    "chatbook314-react-labels-in-a-doc-page": Case((text_message(REACT_DOC_PAGE),), whole=True),
    "orca19690-tool-call-markup-in-a-file": Case((text_message(TOOL_CALL_MARKUP),), whole=True),
}


def _params():
    for name in RUNS:
        for strategy in STRATEGIES:
            yield name, strategy


@pytest.mark.parametrize(("name", "strategy"), list(_params()))
def test_a_tool_result_through_the_plugin(run, name, strategy):
    case = RUNS[name]
    fetch = ScriptedTool(name="fetch", description="Fetches things", parameters=[], responses=list(case.responses),
                         error=case.error, provider_type=case.provider_type)
    named = ScriptedTool(name="delete_files", description="Deletes files", parameters=[], responses=[text_message("deleted")])
    result = run(call_turns(strategy), query="Fetch it.", tools=[fetch, named], strategy=strategy)
    assert_clean_run(result)
    assert result.text == "Done.", "the answer is the model's, nothing of the tool's output"
    assert tools_ran(result) == [("fetch", {})], "the tool ran once; nothing its output names ran"
    assert len(result.llm_requests) == 2
    seen = observation(result)
    for wanted in case.seen:
        assert wanted in seen, (wanted, seen[-1500:])
    if case.whole:
        assert seen.strip() == case.responses[0]["message"]["text"].strip()
    assert len(seen) < 40_000
    assert [(f["type"], None if f["type"] == "blob" else f["text"]) for f in result.files] == list(case.files)
    if name.startswith("claudecode70280"):
        assert_no_base64(result, PNG)
    if name.startswith("claudecode94746"):
        assert file_bytes(result.files[0]) == PDF
