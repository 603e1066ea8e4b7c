"""The plugin's own words in a prompt (``agent_core.own_text``) are kept by the last guard while
everything a tool, the model or the user wrote is still redacted, a secret that touches both
included."""

from __future__ import annotations

import pytest
from dify_plugin.entities.model.message import PromptMessageTool, SystemPromptMessage, UserPromptMessage
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.budget import in_pieces
from agent_core.json_args import dumps_arguments
from agent_core.outbound import prompt_redactor
from agent_core.own_text import OwnText, filled, head, joined, note_own, own, own_spans, spans_of
from agent_core.react.json_step import FINAL_ANSWER, redacted_step_schema, step_schema, step_text
from agent_core.react.prompt import _action_text, tools_block
from agent_core.redaction import secret_forms
from agent_core.tool_calls import ToolCall
from agent_core.tool_schema import redacted_schema


def own_parts(text: OwnText) -> list[str]:
    return [text[start:end] for start, end in spans_of(text)]


def test_filled_marks_the_template_and_not_the_values():
    text = filled("Observation: {text} (from {tool})", text="the answer is 42", tool="vault")
    assert text == "Observation: the answer is 42 (from vault)"
    assert own_parts(text) == ["Observation: ", " (from ", ")"]


def test_filled_carries_the_own_spans_of_a_value_and_reads_escaped_braces():
    inner = filled("Final Answer: {text}", text="answer")
    text = filled('{{"k": {v}}}', v=inner)
    assert text == '{"k": Final Answer: answer}'
    assert own_parts(text) == ['{"k": Final Answer: ', "}"]


def test_filled_applies_conversions_and_specs_as_format_does():
    text = filled("tool {name!r} took {seconds:.1f} s", name="vault", seconds=1.25)
    assert text == "tool 'vault' took 1.2 s" == "tool {name!r} took {seconds:.1f} s".format(name="vault", seconds=1.25)
    assert own_parts(text) == ["tool ", " took ", " s"]


def test_joined_marks_separators_and_keeps_parts_spans():
    text = joined("\n\n", ["the user's instruction", own("Final Answer: <x>"), filled("- {name}", name="vault")])
    assert text == "the user's instruction\n\nFinal Answer: <x>\n\n- vault"
    assert own_parts(text) == ["\n\nFinal Answer: <x>\n\n- "]
    assert own_parts(joined(", ", ["a", "b"], own_separator=False)) == []


def test_head_keeps_the_spans_it_cuts():
    text = joined("", [own("Thought: "), "done  "], own_separator=False)
    assert own_parts(head(text, 7)) == ["Thought"]
    assert own_parts(head(text, len(text.rstrip()))) == ["Thought: "]


def test_a_plain_str_and_str_operations_have_no_own_spans():
    assert spans_of("Final Answer:") == ()
    assert spans_of(own("Final Answer:").strip()) == ()
    assert spans_of(own("a") + "b") == ()


def test_note_own_notes_only_a_message_whose_content_is_the_text():
    text = own("Continue.")
    message = note_own(UserPromptMessage(content=text), text)
    assert own_spans(message) == ((0, 9),)
    other = note_own(UserPromptMessage(content="Something else"), text)
    assert own_spans(other) == ()


SECRETS = secret_forms(["answer", "action"])


def test_redact_keeps_a_form_wholly_inside_the_plugins_words():
    text = "Final Answer: the answer is ANSWER"
    assert SECRETS.redact(text, ((0, 14),)) == "Final Answer: the [REDACTED] is [REDACTED]"
    assert SECRETS.redact(text) == "Final [REDACTED]: the [REDACTED] is [REDACTED]"


def test_redact_hides_a_form_that_touches_text_not_the_plugins():
    secrets = secret_forms(["Answer: 42"])
    # the label is the plugin's, "42" the model's: together they spell the secret
    assert secrets.redact("Final Answer: 42", ((0, 14),)) == "Final [REDACTED]"


def test_redact_hides_a_form_kept_text_overlaps_with_a_tools():
    """A secret whose end repeats its start, found inside the plugin's text and again starting
    inside that one and going on into a tool's: the tool's characters are hidden."""
    secrets = secret_forms(["xyzxy"])
    plugin, tool = "label xyzxy", "zxy end"
    redacted = secrets.redact(plugin + tool, ((0, len(plugin)),))
    assert redacted == "label [REDACTED] end"


def test_redact_keeps_many_own_forms_at_a_cost_linear_in_them():
    plugin = " ".join(["Final Answer:"] * 2000)
    text = plugin + " the answer"
    assert SECRETS.redact(text, ((0, len(plugin)),)) == plugin + " the [REDACTED]"


def test_the_prompt_redactor_keeps_a_noted_messages_own_words():
    redact = prompt_redactor(SECRETS)
    text = joined("\n\n", ["Instruction: give the answer.", tools_block([PromptMessageTool(
        name="vault", description="Finds the answer.", parameters={"type": "object", "properties": {}})])])
    (shown,) = redact([note_own(SystemPromptMessage(content=text), text)])
    assert "Final Answer: <your answer to the user>" in shown.content
    assert '{"action": "<one of: vault>", "action_input"' in shown.content
    assert "Instruction: give the [REDACTED]." in shown.content
    assert "- vault: Finds the [REDACTED].;" in shown.content
    (plain,) = redact([SystemPromptMessage(content=str(text))])  # not noted: every form hidden
    assert "Final [REDACTED]:" in plain.content


def test_the_prompt_redactor_keeps_own_words_of_a_message_in_pieces():
    redact = prompt_redactor(SECRETS)
    call = ToolCall(id="c1", name="vault", arguments={"q": "the answer"})
    pieces = [joined("\n", [filled("Thought: {t}", t="find the answer"), _action_text(call),
                            filled("Observation: {o}", o="the answer is 42")]), own("\n"), own("Thought:")]
    message = in_pieces(UserPromptMessage(content="".join(pieces)), pieces)
    (shown,) = redact([message])
    assert shown.content == (
        'Thought: find the [REDACTED]\nAction:\n```json\n{"action": "vault", "action_input": {"q": "the [REDACTED]"}}\n```'
        "\nObservation: the [REDACTED] is 42\nThought:")


def test_the_action_blob_is_dumps_arguments_of_the_step():
    for name, arguments in [("vault", {"q": "r1"}), ('é"x', {"a": [1, 2.5, float("inf")], "b": "ü\n"}), ("x", {})]:
        text = _action_text(ToolCall(id="c", name=name, arguments=arguments))
        assert text == "Action:\n```json\n" + dumps_arguments({"action": name, "action_input": arguments}) + "\n```"
        assert own_parts(text)[1] == ', "action_input": '


@pytest.mark.parametrize(("action", "action_input", "shown"), [
    ("vault", {"q": "answer"}, '{"action": "vault", "action_input": {"q": "[REDACTED]"}}'),
    (FINAL_ANSWER, {"answer": "the answer"}, '{"action": "final_answer", "action_input": {"answer": "the [REDACTED]"}}'),
    ("answer", {"answer": "x"}, '{"action": "[REDACTED]", "action_input": {"[REDACTED]": "x"}}'),
    (FINAL_ANSWER, {"city": "Rome"}, '{"action": "final_answer", "action_input": {"city": "Rome"}}'),
])
def test_step_text_is_dumps_arguments_of_the_step(action, action_input, shown):
    """The step's keys, ``final_answer`` and a final answer's ``answer`` key are the plugin's; a
    tool's name and every argument the model's."""
    text = step_text(action, action_input)
    assert text == dumps_arguments({"action": action, "action_input": action_input})
    assert SECRETS.redact(text, spans_of(text)) == shown


TOOL = PromptMessageTool(name="vault", description="Finds the answer.", parameters={
    "type": "object", "properties": {"action": {"type": "string", "description": "what the answer is for"}},
    "required": ["action"]})


def test_the_step_schema_keeps_its_own_keys_and_hides_the_tools_words():
    schema = step_schema([TOOL])
    shown = redacted_step_schema(schema, SECRETS.redact)
    plain = step_schema([PromptMessageTool(name="vault", description="", parameters={
        "type": "object", "properties": {"[REDACTED]": {"type": "string", "description": "what the [REDACTED] is for"}},
        "required": ["[REDACTED]"]})])
    assert shown == plain  # the tool's parameter named "action" hidden, the step's keys kept


def test_the_step_schema_hides_a_tool_named_after_the_secret_and_the_users_answer_schema():
    secrets = secret_forms(["vault", "answer"])
    answer = {"type": "object", "properties": {"answer": {"type": "string"}}, "$defs": {"vault": {"type": "string"}}}
    shown = redacted_step_schema(step_schema([TOOL], answer_schema=answer), secrets.redact)
    assert shown["properties"]["action"]["enum"] == ["[REDACTED]", FINAL_ANSWER]
    assert shown["$defs"] == {"[REDACTED]": {"type": "string"}}
    final = shown["anyOf"][-1]["properties"]["action_input"]
    assert final == {"type": "object", "properties": {"[REDACTED]": {"type": "string"}}}
    assert shown["required"] == ["action", "action_input"]


def test_the_default_answer_input_is_kept_whole():
    shown = redacted_step_schema(step_schema([]), SECRETS.redact)
    assert shown == step_schema([])


def test_a_schema_of_another_shape_is_redacted_as_any_other():
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    assert redacted_step_schema(schema, SECRETS.redact) == redacted_schema(schema, SECRETS.redact)


def test_the_react_format_is_the_plugins_and_the_tools_lines_are_not():
    block = tools_block([TOOL])
    kept = SECRETS.redact(block, spans_of(block))
    assert kept.endswith(prompts.REACT_FORMAT.format(names="vault").split("\n", 1)[1])
    assert "- vault: Finds the [REDACTED].; arguments:" in kept


def _reference_filled(template: str, /, **values) -> tuple[str, tuple[tuple[int, int], ...]]:
    """``filled`` written the plain way (the template parsed at every call, every span collected
    and then merged): what the builders' faster version must give, text and spans."""
    import string

    formatter, parts, spans, at = string.Formatter(), [], [], 0
    for literal, field, spec, conversion in formatter.parse(template):
        if literal:
            parts.append(literal)
            spans.append((at, at + len(literal)))
            at += len(literal)
        if field is None:
            continue
        value = values[field]
        if conversion:
            value = formatter.convert_field(value, conversion)
        text = value if isinstance(value, OwnText) and not spec else format(value, spec or "")
        spans += [(at + start, at + end) for start, end in spans_of(text)]
        parts.append(text)
        at += len(text)
    merged: list[tuple[int, int]] = []
    for start, end in spans:
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        elif start < end:
            merged.append((start, end))
    return "".join(parts), tuple(merged)


_LITERALS = st.text(alphabet="ab {}:\n", max_size=6).map(lambda s: s.replace("{", "{{").replace("}", "}}"))
_FIELDS = st.tuples(st.sampled_from(["x", "y"]), st.sampled_from(["", "!r", "!s"]), st.sampled_from(["", ":>4", ":.2"]))
_VALUES = st.one_of(st.text(alphabet="ab{}", max_size=4), st.text(alphabet="ab{}", max_size=4).map(own),
                    st.integers(-5, 5), st.builds(lambda a, b: filled("<{a}>", a=a) if b else own(""), st.text(max_size=2),
                                                  st.booleans()))


@given(st.lists(st.tuples(_LITERALS, _FIELDS), max_size=5), _LITERALS,
       st.lists(st.fixed_dictionaries({"x": _VALUES, "y": _VALUES}), min_size=2, max_size=3))
@settings(max_examples=300, deadline=None)
def test_filled_gives_the_text_and_spans_of_a_template_parsed_at_every_call(fields, tail, fills):
    """Each template parsed once (``_parsed``) and filled again with other values gives, every
    time, what parsing it anew gives: ``str.format``'s text and the same own spans."""
    template = "".join(literal + "{" + name + conversion + spec + "}" for literal, (name, conversion, spec) in fields) + tail
    for values in fills:
        try:
            expected = _reference_filled(template, **values)
        except (ValueError, TypeError) as error:  # a spec a value does not take (format's own error)
            with pytest.raises(type(error)):
                filled(template, **values)
            continue
        text = filled(template, **values)
        assert (str(text), spans_of(text)) == expected
        assert text == template.format(**values)


@given(st.text(alphabet="ab\n", max_size=3), st.lists(_VALUES.filter(lambda v: isinstance(v, str)), max_size=5),
       st.booleans())
@settings(max_examples=200, deadline=None)
def test_joined_gives_the_join_and_the_spans_of_its_parts_and_separators(separator, parts, own_separator):
    text = joined(separator, iter(parts), own_separator=own_separator)
    assert text == separator.join(parts)
    expected, at = [], 0
    for n, part in enumerate(parts):
        if n and own_separator:
            expected += [(at, at + len(separator))] if separator else []
        at += len(separator) if n else 0
        expected += [(at + start, at + end) for start, end in spans_of(part)]
        at += len(part)
    covered = {i for start, end in expected for i in range(start, end)}
    assert {i for start, end in spans_of(text) for i in range(start, end)} == covered
    assert all(start < end for start, end in spans_of(text))
    assert all(a[1] < b[0] for a, b in zip(spans_of(text), spans_of(text)[1:], strict=False))
