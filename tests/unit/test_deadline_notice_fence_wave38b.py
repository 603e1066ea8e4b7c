"""The notice that ends a run whose deadline came before a round (``prompts.STOPPED_AT_TIME_LIMIT``,
``AgentLoop._round_stopped(None)``) comes after a closing fence when the text shown left a fenced
code block open, as the run's other end notices do: CommonMark runs a block never closed to the
end of the text, so the notice would read as the code's last line."""

from types import SimpleNamespace

import pytest

from agent_core import prompts
from agent_core.fences import open_block
from agent_core.loop import AgentLoop
from agent_core.params import StrategyParams
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps

NOTICE = prompts.STOPPED_AT_TIME_LIMIT.format(seconds=30)


def stopped(shown: str, *, continuing: bool = False) -> str:
    """The chat text of a run that showed ``shown`` and then had no time for another round."""
    model = ModelSettings(features=["tool-call", "stream-tool-call"], completion_params={})
    params = StrategyParams.model_validate({"model": model.selector([]), "query": "q", "run_timeout": 30})
    loop = AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params)
    loop._last_text = loop._reply_shown = shown
    if continuing:  # the answer the output limit cut, its rest not asked for yet
        loop._continuing, loop._cut_answer = True, shown
    return shown + "".join(m.message.text for m in loop._round_stopped(None))


@pytest.mark.parametrize("continuing", [False, True], ids=["before its calls", "a cut answer"])
@pytest.mark.parametrize("shown", ["Let me run it:\n```python\nprint(1)\n", "Let me run it:\n~~~~ bash\nls -la"])
def test_the_time_limit_notice_closes_a_code_block_the_text_left_open(shown, continuing):
    text = stopped(shown, continuing=continuing)
    assert text.endswith("\n\n" + NOTICE), text
    assert open_block(text) is None, text  # the notice is prose, not the code's last line
    assert text.count(NOTICE) == 1


def test_the_time_limit_notice_after_closed_code_or_prose_is_a_paragraph_of_its_own():
    assert stopped("Done:\n```\nx\n```\n") == "Done:\n```\nx\n```\n\n" + NOTICE
    assert stopped("Let me check.") == "Let me check.\n\n" + NOTICE
    assert stopped("") == NOTICE
