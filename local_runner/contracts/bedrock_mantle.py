"""GPT-5.x behind Dify's official Bedrock model plugin: the bedrock-mantle route (OpenAI's
Responses API at ``https://bedrock-mantle.<region>.api.aws/openai/v1``), which the plugin takes
for ``openai.gpt-5.4``, ``openai.gpt-5.5`` and the ``openai.gpt-5.6-*`` models.

Model plugin: ``langgenius/dify-official-plugins`` ``models/bedrock/models/llm/llm.py``
(``_generate_with_responses_api``, ``_build_responses_api_input``,
``_handle_responses_api_stream``, ``_handle_responses_api_response``). The ``llm.py`` of the
version re-stated is not in the index; its tests are: ``tests/test_mantle_responses_api_tools.py``
(commit 7a1553a6ca2f3a937f11dac093e0bc4c14d3d843, "the mantle path must forward [tools], replay
tool calls and tool results in the input, and return function_call items as tool calls") and
``tests/test_mantle_responses_api.py`` (the request and response shapes). Wave 34 read a version
that sent no tools and dropped tool messages; wave 35 found this one.

* request: ``client.responses.create(model, input, stream, ...)``; a system message becomes
  ``{"role": "system", "content"}``, a user message ``{"role": "user", "content": <its text
  parts joined>}``, an assistant message without calls ``{"role": "assistant", "content"}``, one
  with calls one ``function_call`` item per call (``call_id``, ``name``, ``arguments``; no
  reasoning item, nothing read from ``opaque_body``), a tool message a ``function_call_output``
  with the call's id. Tools are flat ``function`` tools with ``strict: false``; ``max_tokens``
  becomes ``max_output_tokens``; ``top_p`` and ``response_format`` are dropped, and so are stop
  words (as the wave-34 version did).
* streamed: a chunk per text delta; a ``function_call`` output item (``ResponseOutputItemDoneEvent``)
  is a chunk with that one call (id = ``call_id``); the last chunk (``ResponseCompletedEvent``)
  has content ``""``, ``finish_reason`` ``"stop"`` and the usage. No reasoning text, no
  ``opaque_body``.
* blocking: one chunk with ``output_text``, the calls (``call_id``) and usage.

What goes back: the call ids. What the plugin loses whatever the strategy sends: the reasoning
items of a tool-call turn (recorded in ``reasoning_dropped``, not refused: the API answers).

Provider rules enforced (OpenAI's Responses API): a ``function_call_output`` needs an earlier
``function_call`` with its ``call_id``, and a ``function_call`` needs a later output.
"""

from __future__ import annotations

from typing import Any

from local_runner.contracts.azure_openai_responses import AzureOpenAIResponsesContract


class BedrockMantleContract(AzureOpenAIResponsesContract):
    """``openai.gpt-5.5`` behind the Bedrock plugin's mantle (Responses API) route."""

    name = "bedrock_mantle"
    plugin_source = "langgenius/dify-official-plugins models/bedrock/models/llm/llm.py (mantle route)"
    provider_doc = "https://docs.aws.amazon.com/bedrock/latest/userguide/bedrock-mantle.html"
    provider = "langgenius/bedrock/bedrock"
    model = "openai.gpt-5.5"

    def to_provider(self, request: dict[str, Any]) -> dict[str, Any]:
        params = {key: value for key, value in (request.get("completion_params") or {}).items() if key not in ("top_p", "response_format")}
        body = super().to_provider({**request, "stop": None, "completion_params": params})
        body["input"] = self.input_items(request.get("prompt_messages") or [])
        if "temperature" in params:  # forwarded on this route
            body["temperature"] = params["temperature"]
        for tool in body.get("tools") or []:
            tool["strict"] = False
        return body

    @staticmethod
    def input_items(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """``_build_responses_api_input``: roles kept (``system`` stays ``system``)."""
        items = []
        for item in AzureOpenAIResponsesContract.input_items(messages):
            if item.get("role") == "developer":
                item = {**item, "role": "system"}
            items.append(item)
        return items

    @staticmethod
    def reasons(model: str) -> bool:
        """Every model of the mantle route reasons (GPT-5.4 and later)."""
        return True


__all__ = ["BedrockMantleContract"]
