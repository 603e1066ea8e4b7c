"""A secret in the conversation memory (wave 35): hidden before memory is trimmed, so a tool
result shortened to fit keeps no piece of it at its cut edges; a file of an earlier turn (or of
the query) whose address or name holds one is withheld, not sent to the model as it was."""

import pytest
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    DocumentPromptMessageContent,
    ImagePromptMessageContent,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)
from dify_plugin.interfaces.agent import AgentModelConfig

from agent_core import prompts
from agent_core.outbound import prompt_redactor, redacted_prompt
from agent_core.params import StrategyParams
from agent_core.redaction import secret_forms
from agent_core.run_state import RunState
from agent_core.tool_schema import ToolRegistry
from tests.unit.test_tool_schema import tool as tool_entity

SECRET = "w35-unit-5c0f9e7d1a83"
HEX = "5c0f9e7d1a83"
FORMS = secret_forms({SECRET})


def _pieces_left(text: str) -> list[str]:
    """The six-character pieces of the secret's hex digits found in ``text``."""
    return [HEX[i:i + 6] for i in range(len(HEX) - 5) if HEX[i:i + 6] in text]


def _memory(tool_text: str) -> list:
    call = AssistantPromptMessage.ToolCall(id="h1", type="function", function=AssistantPromptMessage.ToolCall.
                                           ToolCallFunction(name="search", arguments='{"q": "k"}'))
    return [UserPromptMessage(content="look it up"), AssistantPromptMessage(content="", tool_calls=[call]),
            ToolPromptMessage(content=tool_text, tool_call_id="h1", name="search"),
            AssistantPromptMessage(content="Found it."), UserPromptMessage(content="and now?"),
            AssistantPromptMessage(content="ok")]


@pytest.mark.parametrize("offset", range(0, 40, 3))
def test_a_memory_tool_result_shortened_keeps_no_piece_of_a_secret_at_its_edges(offset):
    """The result holds the secret every few characters from ``offset`` on; once shortened (the
    head and a tail, `memory_trim`), whatever edge the cut falls on, no piece of it is left."""
    text = "x" * offset + "".join("z q "[: n % 4] + SECRET + " " for n in range(4_000))
    model = AgentModelConfig(provider="p", model="m", mode="chat", completion_params={},
                             history_prompt_messages=_memory(text))
    run = RunState(params=StrategyParams(model=model, query="q"), registry=ToolRegistry([tool_entity("search")]),
                   redact_memory=prompt_redactor(FORMS))
    run.trim_to((0, 0, 0), 1)  # one memory step: the turn's long tool result shortened
    (tool,) = [m for m in run.history() if isinstance(m, ToolPromptMessage)]
    assert prompts.OBSERVATION_SHORTENED.split("{")[0].strip() in tool.content
    assert "[REDACTED]" in tool.content
    assert _pieces_left(tool.content) == []


def test_memory_without_secrets_is_the_messages_memory_gave():
    history = _memory("a plain result")
    model = AgentModelConfig(provider="p", model="m", mode="chat", completion_params={},
                             history_prompt_messages=history)
    run = RunState(params=StrategyParams(model=model, query="q"), registry=ToolRegistry([tool_entity("search")]),
                   redact_memory=prompt_redactor(FORMS))
    assert [m.content for m in run.history()] == [m.content for m in history]


def test_a_file_part_whose_address_or_name_holds_a_secret_is_withheld_and_the_others_kept():
    signed = ImagePromptMessageContent(format="png", url=f"https://img.example.com/a.png?token={SECRET}",
                                       mime_type="image/png")
    named = DocumentPromptMessageContent(format="pdf", url="https://example.com/r.pdf", mime_type="application/pdf",
                                         filename=f"report-{SECRET}.pdf")
    plain_image = ImagePromptMessageContent(format="png", base64_data="aGVsbG8=", mime_type="image/png")
    message = UserPromptMessage(content=[TextPromptMessageContent(data="see these"), signed, named, plain_image])
    (out,) = redacted_prompt([message], FORMS)
    assert [p.data if isinstance(p, TextPromptMessageContent) else p for p in out.content] == [
        "see these", prompts.FILE_PART_WITHHELD.format(kind="image"),
        prompts.FILE_PART_WITHHELD.format(kind="document"), plain_image]
    assert out.content[3] is plain_image
    assert SECRET not in out.model_dump_json()
    assert message.content[1] is signed, "memory's own message is not changed"


def test_a_file_part_without_a_secret_leaves_the_message_the_same_object():
    image = ImagePromptMessageContent(format="png", url="https://img.example.com/a.png?token=public",
                                      mime_type="image/png")
    message = UserPromptMessage(content=[TextPromptMessageContent(data="see"), image])
    assert redacted_prompt([message], FORMS)[0] is message


def test_a_key_split_over_two_text_parts_of_one_message_is_hidden_as_the_model_reads_it():
    """A client that sends a part a line may split a key over two parts; the provider joins them,
    so they are redacted joined, and the part left empty is dropped."""
    message = UserPromptMessage(content=[TextPromptMessageContent(data=f"my key {SECRET[:9]}"),
                                         TextPromptMessageContent(data=f"{SECRET[9:]} ok"),
                                         TextPromptMessageContent(data="next line")])
    (out,) = redacted_prompt([message], FORMS)
    assert "".join(part.data for part in out.content) == "my key [REDACTED] oknext line"
    assert all(part.data for part in out.content)


def test_many_text_parts_without_a_key_are_the_same_message():
    message = UserPromptMessage(content=[TextPromptMessageContent(data=f"line {n}\n") for n in range(10_000)])
    assert redacted_prompt([message], FORMS)[0] is message
