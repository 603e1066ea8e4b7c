"""A reply of many Qwen3-Coder calls closed by their envelope alone
(``<tool_call><function=NAME><parameter=K>V</tool_call>``, the ``</parameter>`` and ``</function>``
left out: vLLM's ``hermes`` parser, vllm-project/vllm#21571) is read in time in proportion to its
length. Each block searched the whole rest of the reply (a lower-cased copy of it for a later
``</function>``, then again for a ``</parameter>``), so 1 MB of such calls took about 100 times as
long as prose of that size (4 s), past a run's deadline that is checked only between chunks.

Times are compared with prose of the same size read the same way (never absolute), as in
``test_reading_cost_of_repeated_markup``."""

from agent_core.turn import ToolCalls
from tests.unit.test_reading_cost_of_repeated_markup import PROSE, _read, _reading_time

SIZE = 1_000_000
UNIT = "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</tool_call>\n"


def _repeated(unit: str) -> str:
    return (unit * (SIZE // len(unit) + 1))[:SIZE]


def test_envelope_closed_calls_are_read_within_a_small_multiple_of_prose():
    prose = _reading_time("fc", _repeated(PROSE))
    took = _reading_time("fc", _repeated(UNIT))
    assert took < 40 * max(prose, 2e-4), (took, prose)


def test_envelope_closed_calls_are_each_still_read_as_a_call():
    """What the bounded search must not change: every closed block is a call of its tool with its
    value, and a ``</function>`` later in the same call's text still keeps the value whole."""
    count = 50
    turn = _read("fc", UNIT * count)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})] * count
    quoted = (
        "<tool_call>\n<function=read_file>\n<parameter=path>\nnotes </tool_call> end\n</parameter>\n"
        "</function>\n</tool_call>\n"
    )
    turn = _read("fc", UNIT + quoted)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [
        ("get_weather", {"city": "Paris"}), ("read_file", {"path": "notes </tool_call> end"})
    ]
