"""The twenty-eighth real-world pass's fixes through the real plugin: Inkling's call message
(SGLang's ``inkling`` detector) runs its tool with the payload's ``args`` (before, the whole
``{"name", "args"}`` payload went to the tool as its arguments), a header naming another tool than
the payload runs nothing and shows nothing; HyperCLOVAX-SEED-Think-14B's ``-> tool/function_call``
list (vLLM's ``hyperclovax_seed_think_14b`` parser) runs in Function Calling instead of being
shown as the answer."""

import pytest

from tests.e2e.helpers import answer_turn, assert_clean_end
from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

INK_JSON, INK_END = "<|content_invoke_tool_json|>", "<|end_message|>"
INKLING_CALL = 'get_weather' + INK_JSON + '{"name":"get_weather","args":{"city":"Paris"}}' + INK_END
MISMATCH = "<|message_model|>search" + INK_JSON + '{"name":"get_weather","args":{"city":"Paris"}}' + INK_END
HCX_CALL = ' -> tool/function_call\n[{"name": "get_weather", "arguments": {"city": "Seoul"}}]<|im_end|>'
WEATHER, SEARCH = Tool("get_weather", ("city",), ("sunny",)), Tool("search", ("query",), ("news",))

CASES = [
    # SGLang's inkling detector: an Inkling call runs with its args
    Reply("an-inkling-call-runs-with-its-args", INKLING_CALL, 7, "Weather in Paris?", "It is sunny in Paris.",
          tools=(WEATHER, SEARCH), calls=(("get_weather", {"city": "Paris"}),), hidden=("content_invoke", '"args"')),
    # vLLM's hyperclovax_seed_think_14b parser: a HyperCLOVAX tool message runs in Function Calling
    Reply("a-hyperclovax-tool-message-runs-in-function-calling", HCX_CALL, 7, "Weather in Seoul?",
          "It is sunny in Seoul.", tools=(WEATHER,), calls=(("get_weather", {"city": "Seoul"}),),
          hidden=("tool/function_call",), strategies=("function_calling",)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_an_inkling_header_naming_another_tool_runs_nothing(run, strategy):
    result = run([{"text": MISMATCH, "split": 7}, {"text": INKLING_CALL, "split": 7},
                  answer_turn(strategy, "It is sunny in Paris.")],
                 query="Weather in Paris?", tools=[WEATHER.build(), SEARCH.build()], strategy=strategy)
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Paris"})]
    assert "content_invoke" not in result.text and "message_model" not in result.text

