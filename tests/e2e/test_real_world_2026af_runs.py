"""The thirty-first real-world pass's fix through the real plugin: Granite 3.3 8B's parallel calls
written as code, one a line, in the content (vllm-project/vllm#43116) run both tools in both
strategies instead of the two lines being shown as the answer; the same lines with a line of
prose run nothing and are the answer as written."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

LINES = 'get_weather(location="San Francisco", unit="celsius")\nsearch_web(query="vLLM release notes")'
TOOLS = (Tool("get_weather", ("location", "unit"), ("14 °C, fog",)), Tool("search_web", ("query",), ("vLLM 0.20.1 released",)))

CASES = [
    # vllm-project/vllm#43116: Granite 3.3's calls as code, one a line, run
    Reply("calls-as-code-one-a-line-run", LINES, 7,
          "Weather in San Francisco, and the vLLM news?", "It is 14 °C and foggy; vLLM 0.20.1 is out.", tools=TOOLS,
          calls=(("get_weather", {"location": "San Francisco", "unit": "celsius"}),
                 ("search_web", {"query": "vLLM release notes"})), unordered=True, hidden=("get_weather(",)),
    # the same lines after a line of prose stay the answer
    Reply("code-lines-after-prose-stay-the-answer", "You could call:\n" + LINES, 7,
          "How do I call these?", "You could call:\n" + LINES, tools=TOOLS, strategies=("function_calling",)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
