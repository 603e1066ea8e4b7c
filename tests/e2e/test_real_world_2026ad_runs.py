"""The twenty-ninth real-world pass's fixes through the real plugin: the line Hermes Agent shows
for a call, copied by a model into its reply (``[Calling tool: terminal with arguments: {...}]``:
EKKOLearnAI/hermes-studio#942), and Gemma's ``call:`` before a JSON call object
(tinyhumansai/openhuman PR #6346) run the tool in both strategies instead of the markup being
shown as the answer or asked again; the same line naming a tool the node lacks runs nothing."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

TERMINAL = Tool("terminal", ("command",), ("Mem: 15Gi total, 9Gi free",))
CALL_LINE = '[Calling tool: terminal with arguments: {"command": "free -h"}]'
NOT_A_TOOL_LINE = '[Calling tool: deploy with arguments: {"env": "prod"}]'

CASES = [
    # EKKOLearnAI/hermes-studio#942: Hermes Agent's call line copied into the reply runs
    Reply("hermes-call-line", CALL_LINE, 7, "How much memory is free?", "9 GiB of memory is free.", tools=(TERMINAL,),
          calls=(("terminal", {"command": "free -h"}),), hidden=("Calling tool", "tool_call")),
    # tinyhumansai/openhuman PR #6346: Gemma's call: before a JSON call object runs
    Reply("gemma-call-json", '<|tool_call>call:{"name": "terminal", "arguments": {"command": "free -h"}}<tool_call|>', 7,
          "How much memory is free?", "9 GiB of memory is free.", tools=(TERMINAL,),
          calls=(("terminal", {"command": "free -h"}),), hidden=("Calling tool", "tool_call")),
    # the call line naming a tool the node lacks runs nothing
    Reply("the-call-line-naming-another-tool-runs-nothing", NOT_A_TOOL_LINE, 7, "Deploy it", NOT_A_TOOL_LINE,
          tools=(TERMINAL,), strategies=("function_calling",)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
