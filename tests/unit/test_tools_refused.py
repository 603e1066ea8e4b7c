"""``model_call.refuses_tools``: which model plugin errors say the model's server takes no native
tools, so that Function Calling goes on with ReAct steps (``AgentLoop._without_native_tools``)
instead of failing the run (langgenius/dify#13538)."""

import pytest

from agent_core.model_call import refuses_stop, refuses_tools

REFUSALS = [
    # Ollama, a model whose template has no tools (langgenius/dify#13538, langgenius/dify#12655)
    '[ollama] Error: PluginInvokeError: {"args":{},"error_type":"InvokeBadRequestError","message":"API request '
    'failed with status code 400: {\\"error\\":\\"registry.ollama.ai/library/deepseek-r1:1.5b does not support tools\\"}"}',
    "[ollama] Error: API request failed with status code 400: {\"error\":\"registry.ollama.ai/library/qwen:7b does not support tools\"}",
    # vLLM started without its tool parser, through the OpenAI-API-compatible plugin
    '[openai_api_compatible] Error: API request failed with status code 400: {"object":"error","message":'
    '"\\"auto\\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError"}',
    # llama.cpp's server without --jinja
    '[openai_api_compatible] Error: API request failed with status code 500: {"error":{"code":500,'
    '"message":"tools param requires --jinja flag","type":"server_error"}}',
    # Gemini API, a Gemma model
    "[gemini] Error: 400 INVALID_ARGUMENT. Function calling is not enabled for models/gemma-3-27b-it",
    # OpenRouter, no provider of the model takes tools
    "[openrouter] Error: 404 No endpoints found that support tool use. To learn more about provider routing, visit ...",
    # Cohere's v1 API in multi-step mode, the plugin's tool loop (langgenius/dify#5441)
    "[cohere] Bad Request Error, status_code: 400, body: {'message': 'invalid request: cannot specify both "
    "message and tool_results in multistep mode'}",
    # Cohere's plugin, an Agent node with one tool (its own ValueError, before any request)
    '[cohere] Error: PluginInvokeError: {"args":{},"error_type":"ValueError","message":"Cohere tool call requires '
    'at least two tools to be specified."}',
]

NOT_REFUSALS = [
    "[openai] Error: 400 This model's maximum context length is 128000 tokens.",
    "[ollama] Error: API request failed with status code 400: {\"error\":\"invalid tool call arguments\"}",
    "[anthropic] Error: tools.0.custom.input_schema: Field required",
    "Invalid tool choice: the tool 'search' does not exist",
    "Unsupported parameter: 'stop' is not supported with this model.",
    "connection refused",
    "[cohere] Error: invalid request: message must be at least 1 token long or tool results must be specified.",
]


@pytest.mark.parametrize("message", REFUSALS)
def test_a_server_that_takes_no_tools_is_recognised(message):
    assert refuses_tools(message)


@pytest.mark.parametrize("message", NOT_REFUSALS)
def test_other_failures_are_not_taken_for_a_refusal_of_tools(message):
    assert not refuses_tools(message)


def test_a_refused_stop_list_is_not_a_refusal_of_tools():
    message = "Unsupported parameter: 'stop' is not supported with this model."
    assert refuses_stop(message) and not refuses_tools(message)
