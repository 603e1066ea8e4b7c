"""Qwen3-Coder's XML call with a name whose ``>`` was left out, through the real plugin in both
strategies. A ``<parameter=path`` or ``<function=read_file`` ending its line is read when it names
the tool's declared parameter or the node's tool (mlx-lm's repair): the tool gets its argument and
the user sees no markup. A name the node did not declare is never dropped: the call does not run,
the model is asked again, and its next call runs with the argument it meant."""

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import answer_turn, assert_clean, prompt_text


def _read_file() -> ScriptedTool:
    return ScriptedTool(name="read_file", description="Read a file",
                        parameters=[ToolParam("path", description="The file's path")],
                        responses=[text_message("127.0.0.1 localhost"), text_message("127.0.0.1 localhost")])


HOSTS = [{"path": "/etc/hosts"}]
REPLIES = {
    "parameter-name": "<function=read_file>\n<parameter=path\n/etc/hosts\n</parameter>\n</function>",
    "function-name": "<tool_call>\n<function=read_file\n<parameter=path>\n/etc/hosts\n</parameter>\n</function>\n</tool_call>",
}


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
@pytest.mark.parametrize("form", sorted(REPLIES))
def test_an_unclosed_declared_name_is_read_and_the_tool_gets_its_argument(run, strategy, form):
    turns = [{"text": REPLIES[form], "split": 7}, answer_turn(strategy, "It maps localhost.")]
    result = run(turns, query="What is in /etc/hosts?", tools=[_read_file()], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == HOSTS
    assert result.text.endswith("It maps localhost.")
    assert "<parameter" not in result.text and "<function" not in result.text


@pytest.mark.parametrize("strategy", ["ReAct", "function_calling"])
def test_an_undeclared_parameter_name_is_asked_again_never_run_without_it(run, strategy):
    """``<parameter=file`` names no parameter of ``read_file``: before, the call ran with no
    arguments at all. Now it does not run; the model is told its markup could not be read, and
    the call it writes next reaches the tool with the path."""
    broken = "<function=read_file>\n<parameter=file\n/etc/hosts\n</parameter>\n</function>"
    turns = [{"text": broken, "split": 1}, {"text": REPLIES["parameter-name"], "split": 7},
             answer_turn(strategy, "It maps localhost.")]
    result = run(turns, query="What is in /etc/hosts?", tools=[_read_file()], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == HOSTS
    assert "could not be read" in prompt_text(result.llm_requests[1])
    assert result.text.endswith("It maps localhost.")
    assert "<parameter" not in result.text
