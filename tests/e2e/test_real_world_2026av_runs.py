"""The forty-seventh real-world pass (text in other scripts) through the real plugin process. Each
case is a reply a public report quotes (see tests/unit/test_real_world_2026av.py for the texts and
their sources), sent as the model's turn, and what the user must get: the tool runs once with the
arguments the model meant (escapes decoded, full-width quotes read as the JSON's own, a Hebrew
abbreviation's quote kept, a call's arguments resent unescaped read once), or the answer shown
whole; and an answer the model plugin stopped reading part-way (the OpenAI-compatible SDK base's
"Non-JSON encountered.", elie222/rakazo#416) ends with a notice that says it is incomplete.

Two cases are this pass's fixes: full-width quotes turned the wrong way round at a value's end
(Graphify-Labs/graphify#2286) lost the call's keys, and a stream the model plugin broke off was
shown as a whole answer."""

from dataclasses import dataclass, field, replace

import pytest

from agent_core import prompts
from agent_core.loop import MAX_PARSE_RETRIES
from local_runner.tools import ToolParam, text_message
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean_run, tool_named, tools_ran
from tests.unit.test_real_world_2026av import CASES as REPLIES
from tests.unit.test_real_world_2026av import NEXTCHAT4785_ANSWER, QWEN1009_TEXT


@dataclass(frozen=True)
class Case:
    turn: dict  # the model's first turn
    tool: tuple[str, tuple[str, ...]] | None = None  # (name, parameters) of the node's tool
    ran: list = field(default_factory=list)  # [(tool, parameters)] the run must make
    text: str | None = None  # what the user sees (after the calls' answer "Done." when ran)
    strategies: tuple[str, ...] = tuple(STRATEGIES)
    shown_before: str = ""  # Function Calling: the text the model wrote before its call, shown first


def _reply(name: str, strategies: tuple[str, ...] = tuple(STRATEGIES)) -> Case:
    case = REPLIES[name]
    tool = case.tools[0]
    params = tuple(p.name for p in tool.parameters)
    return Case({"text": case.content, "split": 7}, (tool.identity.name, params), list(case.calls), "Done.", strategies)


BROKEN = "Non-JSON encountered."

CASES = {
    "qwenagent358-address-as-unicode-escapes": _reply("qwenagent358-address-as-unicode-escapes"),
    "qwen3-1009-text-then-escaped-location": replace(_reply("qwen3-1009-text-then-escaped-location"),
                                                     shown_before=QWEN1009_TEXT.strip()),
    "claudecode79339-backslash-before-a-raw-hangul-syllable": _reply("claudecode79339-backslash-before-a-raw-hangul-syllable"),
    "graphify2286-fullwidth-quotes-as-json-quotes": _reply("graphify2286-fullwidth-quotes-as-json-quotes", ("ReAct",)),
    "sglang39809-hebrew-gershayim-quote-inside-a-string": _reply("sglang39809-hebrew-gershayim-quote-inside-a-string"),
    # vllm-project/vllm#17703: the arguments escaped, then the whole again unescaped, as the SDK's
    # OpenAI-compatible base hands the merged call on
    "vllm17703-escaped-arguments-then-the-whole-again-unescaped": Case(
        {"text": "", "tool_calls": [{"id": "chatcmpl-tool-1", "name": "get_current_weather",
                                     "arguments": '{"city": "M\\u00fcnster", "unit": "celsius"}'
                                                  '{"city": "Münster", "unit": "celsius"}'}]},
        ("get_current_weather", ("city", "unit")),
        [("get_current_weather", {"city": "Münster", "unit": "celsius"})], "Done.", ("function_calling",),
    ),
    "nextchat4785-bold-words-and-fullwidth-colons-in-an-answer": Case(
        {"text": NEXTCHAT4785_ANSWER, "split": 7}, text=NEXTCHAT4785_ANSWER,
    ),
    # elie222/rakazo#416: the text before the event the model plugin could not read, then its end
    "rakazo416-stream-broken-at-a-lone-surrogate": Case(
        {"text": "好的，已经帮你订好了 ", "finish_reason": BROKEN},
        text="好的，已经帮你订好了\n\n" + prompts.ANSWER_STREAM_BROKEN.format(reason=BROKEN),
    ),
}


def _params():
    for name, case in CASES.items():
        for strategy in case.strategies:
            yield pytest.param(name, strategy, id=f"{name}-{strategy}")


@pytest.mark.parametrize(("name", "strategy"), list(_params()))
def test_real_world_multilingual_run(run, name, strategy):
    case = CASES[name]
    tools = []
    if case.tool:
        tool_name, params = case.tool
        tools = [tool_named(tool_name, [text_message("ok")], *(ToolParam(p, required=False) for p in params))]
    turns = [case.turn, answer_turn(strategy, "Done.")] if case.ran else [case.turn]
    result = run(turns, query="请帮我处理。", strategy=strategy, tools=tools)
    assert_clean_run(result)
    assert tools_ran(result) == case.ran
    before = case.shown_before + "\n\n" if case.shown_before and strategy == "function_calling" else ""
    assert _lines(result.text) == _lines(before + case.text)


def _lines(text: str) -> str:
    """``text`` stripped, each line's trailing spaces too (Function Calling streams a reply's text
    as written, a space before the notice that follows it included)."""
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_replies_broken_before_any_text_end_with_a_message_that_names_the_break(run, strategy):
    """rakazo#416's break in a reply's first event: nothing of the reply arrives. The model is
    asked again as for an empty reply; when every reply breaks so, the run fails with
    ``BROKEN_REPLIES`` (the finish reason named), not the message for empty replies, and no log
    is left in ``start`` state."""
    broken = {"text": "", "finish_reason": BROKEN}
    result = run([broken] * MAX_PARSE_RETRIES, query="请帮我处理。", strategy=strategy)
    assert not result.ok
    assert prompts.BROKEN_REPLIES.format(attempts=MAX_PARSE_RETRIES, reason=BROKEN) in result.error_text
    assert result.unfinished_logs() == []
    run.backend.assert_complete()
