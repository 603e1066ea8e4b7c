"""The thirty-third real-world pass's fixes through the real plugin. An answer ended by a
``</tool_call>`` that closes nothing (ai-dynamo/frontend-crates PR #61) is shown without it
(Function Calling showed the tag); GLM's bare call, its name straight before ``<arg_key>`` and an
orphan ``</tool_call>`` after it (ai-dynamo/dynamo PR #10144), runs (Function Calling showed the
markup as the answer); and Gemma 4's thought after a tool's result, its channel opened by the
template in the prompt so the reply holds only ``<channel|>`` and the answer (jundot/omlx PR
#2533), is kept out of the answer (both strategies showed it)."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

WEATHER = Tool("get_weather", ("location",), ("18 °C, light rain",))

CASES = [
    # ai-dynamo/frontend-crates PR #61: an answer ended by an orphan tool-call close is shown without it
    Reply("an-answer-ended-by-an-orphan-tool-call-close-is-shown-without-it",
          "The build is green on all three platforms.</tool_call>", 7,
          "Is the build green?", "The build is green on all three platforms.", tools=(WEATHER,), framed=True),
    # ai-dynamo/dynamo PR #10144: GLM's bare call with an orphan close runs
    Reply("glms-bare-call-with-an-orphan-close-runs",
          "get_weather<arg_key>location</arg_key><arg_value>Paris</arg_value></tool_call>", 7,
          "Weather in Paris?", "Paris: 18 °C with light rain.", tools=(WEATHER,),
          calls=(("get_weather", {"location": "Paris"}),), exact=True, hidden=("arg_key",)),
    # jundot/omlx PR #2533: Gemma 4's prompt-opened thought is kept out of the answer
    Reply("gemma4s-prompt-opened-thought-is-kept-out-of-the-answer",
          ("The tool returned 18 °C and light rain for Paris. Summarise it in one line.<channel|>"
           "Paris: 18 °C with light rain."), 7,
          "Weather in Paris?", "Paris: 18 °C with light rain.", tools=(WEATHER,), model="gemma-4-26b-a4b-it",
          hidden=("Summarise it", "channel")),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
