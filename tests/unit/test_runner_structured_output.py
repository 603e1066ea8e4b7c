"""The runner's answer to an ``llm_structured_output`` invocation (Dify's closing chunk and its
parse rules), how a schema reaches an OpenAI-compatible server, and the task suite's variants."""

import pytest

from local_runner import protocol
from local_runner.backends import completion_kwargs, constrained
from local_runner.scenario import ModelSettings
from local_runner.structured_output import StructuredOutputError, parse_structured_output, with_structured_output
from local_runner.tasks import Suite, parse_strategies

SCHEMA = {"type": "object", "properties": {"action": {"type": "string", "enum": ["calc", "final_answer"]}}, "required": ["action"]}


def chunk(text):
    return {"model": "m", "delta": {"index": 0, "message": {"role": "assistant", "content": text, "tool_calls": []}}}


def test_the_reply_is_relayed_then_closed_by_its_parse():
    out = list(with_structured_output([chunk('{"action": '), chunk('"calc"}')], "m"))
    assert [c["delta"]["message"]["content"] for c in out] == ['{"action": ', '"calc"}', ""]
    assert out[-1]["structured_output"] == {"action": "calc"}
    assert protocol.daemon_chunk(out[-1])["structured_output"] == {"action": "calc"}
    assert "structured_output" not in protocol.daemon_chunk(out[0])


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ('{"a": 1}', {"a": 1}),
        ("{'a': 1,}", {"a": 1}),  # repaired, as Dify does with json_repair
        ('<think>\n\n</think>\n{"a": 1}', {"a": 1}),  # a list after repair: its first object
    ],
)
def test_difys_parse_rules(text, parsed):
    assert parse_structured_output(text) == parsed


@pytest.mark.parametrize("text", ["[1, 2]", '"just text"', "42"])
def test_a_reply_that_is_no_object_fails_after_its_chunks(text):
    stream = with_structured_output([chunk(text)], "m")
    assert next(stream)["delta"]["message"]["content"] == text
    with pytest.raises(StructuredOutputError, match="Failed to parse structured output"):
        next(stream)


def test_the_schema_reaches_the_server_as_its_api_allows():
    request = {"model": "m", "mode": "completion", "prompt_messages": [{"role": "user", "content": "Q"}]}
    kwargs = completion_kwargs(request, "m")
    assert constrained(kwargs, None, "grammar") is kwargs
    as_format = constrained(kwargs, SCHEMA, "response_format")
    assert as_format["extra_body"]["response_format"] == {"type": "json_schema", "json_schema": {"name": "llm_response", "schema": SCHEMA}}
    chat = constrained({"messages": []}, SCHEMA, "response_format")
    assert chat["response_format"]["json_schema"]["schema"] == SCHEMA
    pytest.importorskip("llama_cpp.llama_grammar")
    grammar = constrained(kwargs, SCHEMA, "grammar")["extra_body"]["grammar"]
    assert "root ::=" in grammar and '"\\"final_answer\\""' in grammar


def test_structured_output_is_allowed_by_the_llm_permission():
    allowed = {"resource": {"permission": {"model": {"enabled": True, "llm": True}}}}
    assert protocol.permission_error(allowed, protocol.STRUCTURED_OUTPUT) is None
    assert protocol.permission_error({}, protocol.STRUCTURED_OUTPUT) == protocol.PERMISSION_ERRORS["llm"]


def test_task_variants_set_the_step_format():
    assert parse_strategies("ReAct", "both") == ["ReAct:text", "ReAct:json_schema"]
    assert parse_strategies("all", "json_schema") == ["ReAct:json_schema", "function_calling"]
    assert parse_strategies("ReAct") == ["ReAct"]
    task = Suite.load().tasks[0]
    scenario = task.scenario("ReAct:json_schema", ModelSettings())
    assert scenario.strategy == "ReAct" and scenario.params == {"step_format": "json_schema"}
    assert task.scenario("ReAct", ModelSettings()).params == {}
