"""Model plugins that never send the node's tools to the model (``TOOLS_NEVER_SENT``): Function
Calling runs ReAct's steps there from the start, whatever the model declares."""

import pytest

from agent_core.function_calling.prompt import drops_tools, replays_one_call


@pytest.mark.parametrize("provider", ["langgenius/sagemaker/sagemaker", "sagemaker"])
def test_the_sagemaker_plugin_is_known_to_drop_tools(provider):
    assert drops_tools(provider)


@pytest.mark.parametrize("provider", ["langgenius/openai/openai", "langgenius/bedrock/bedrock", "acme/sagemaker-proxy/x", ""])
def test_other_plugins_send_their_tools(provider):
    assert not drops_tools(provider)


def test_the_plugin_name_is_read_as_for_one_call_per_message():
    assert replays_one_call("langgenius/gemini/google") and not drops_tools("langgenius/gemini/google")
