"""The constant cost of reading one ReAct reply: which Python-level calls a short reply makes.

Timing is left to ``bench/``; these tests count calls (``sys.setprofile``), which do not depend
on the machine, so that work done once per step or per line start cannot creep back."""

import enum
import re
import sys
from collections import Counter

from agent_core.react.parser import ReactStreamParser

TOOL_REPLY = (
    "Thought: be was updat\nAction:\n```json\n"
    '{"action": "tool_000", "action_input": {"query": "records for case 3", "limit": 5}}\n```'
)
FINAL_REPLY = "Thought: I know.\nFinal Answer: The answer is 42."


def _pieces(text: str, count: int) -> list[str]:
    size = -(-len(text) // count)
    return [text[i : i + size] for i in range(0, len(text), size)]


def _python_calls(chunks: list[str]) -> Counter[tuple[str, str]]:
    """(file, function name) of every Python-level call made while reading ``chunks``."""
    calls: Counter[tuple[str, str]] = Counter()

    def profile(frame, event, arg):
        if event == "call":
            calls[(frame.f_code.co_filename, frame.f_code.co_name)] += 1

    parser = ReactStreamParser()
    sys.setprofile(profile)
    try:
        for chunk in chunks:
            parser.feed(chunk)
        parser.finish()
    finally:
        sys.setprofile(None)
    parser.result()
    return calls


def test_no_python_level_hash_or_regex_cache_lookup_per_step():
    # state lookups hash the state enum; a module-level re.sub looks its pattern up each call
    for chunks in ([TOOL_REPLY], _pieces(TOOL_REPLY, 10), [FINAL_REPLY], _pieces(FINAL_REPLY, 10)):
        calls = _python_calls(chunks)
        assert not [call for call in calls if call[0] in (enum.__file__, re.__file__)], calls
