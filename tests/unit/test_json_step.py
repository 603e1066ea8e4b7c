"""ReAct's JSON steps: the schema built from the tools, the answer streamed while it is decoded,
and how each reply becomes a decision."""

import json
import time

import pytest
from dify_plugin.entities.model.message import PromptMessageTool
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core import prompts
from agent_core.model_call import ModelChunk, ModelTimeoutError, PastDeadlineError
from agent_core.react.json_step import (
    FINAL_ANSWER,
    AnswerStream,
    GuardedChunks,
    parse_step,
    read_json_step_turn,
    read_step,
    step_schema,
)
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls

CALCULATOR = PromptMessageTool(
    name="calculator",
    description="Evaluate an arithmetic expression",
    parameters={"type": "object", "properties": {"expression": {"type": "string"}}, "required": ["expression"]},
)
CONVERT = PromptMessageTool(
    name="unit_convert",
    description="Convert units",
    parameters={
        "type": "object",
        "properties": {"value": {"type": "number"}, "unit": {"type": "string", "enum": ["km", "mi"]}, "exact": {"type": "boolean"}},
        "required": ["value", "unit"],
    },
)
TOOLS = [CALCULATOR, CONVERT]


def drain(generator):
    """Run a turn reader: (yielded texts, returned turn)."""
    texts = []
    while True:
        try:
            texts.append(next(generator))
        except StopIteration as stop:
            return texts, stop.value


def chunks_of(text, size, **last):
    pieces = [text[i : i + size] for i in range(0, len(text), size)] or [""]
    chunks = [ModelChunk(text=piece) for piece in pieces]
    chunks[-1] = ModelChunk(text=pieces[-1], **last)
    return chunks


# --- the schema ---------------------------------------------------------------------------------


def test_the_schema_ties_each_action_to_its_own_arguments():
    schema = step_schema(TOOLS)
    assert schema["type"] == "object" and schema["required"] == ["action", "action_input"]
    assert schema["properties"]["action"]["enum"] == ["calculator", "unit_convert", FINAL_ANSWER]
    branches = {b["properties"]["action"]["enum"][0]: b for b in schema["anyOf"]}
    assert list(branches) == ["calculator", "unit_convert", FINAL_ANSWER]
    convert = branches["unit_convert"]["properties"]["action_input"]
    assert convert["required"] == ["value", "unit"]
    assert convert["properties"]["unit"]["enum"] == ["km", "mi"]
    assert branches[FINAL_ANSWER]["properties"]["action_input"]["required"] == ["answer"]
    assert list(branches["calculator"]["properties"]) == ["action", "action_input"]


def test_after_the_limit_only_the_answer_is_allowed():
    schema = step_schema(TOOLS, answer_only=True)
    assert schema["properties"]["action"]["enum"] == [FINAL_ANSWER]
    assert len(schema["anyOf"]) == 1


def test_a_tool_without_parameters_gets_an_empty_object():
    bare = PromptMessageTool(name="now", description="Current time", parameters={})
    branch = step_schema([bare])["anyOf"][0]
    assert branch["properties"]["action_input"] == {"type": "object", "properties": {}, "required": []}


def test_the_schema_converts_to_a_grammar_that_holds_every_tool():
    llama_grammar = pytest.importorskip("llama_cpp.llama_grammar")
    grammar = llama_grammar.json_schema_to_gbnf(json.dumps(step_schema(TOOLS)))
    assert '"\\"calculator\\""' in grammar and '"\\"final_answer\\""' in grammar
    assert '"\\"km\\"" | "\\"mi\\""' in grammar


# --- streaming the answer -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(answer=st.text(), thought=st.text(max_size=30), size=st.integers(1, 9), ascii_only=st.booleans())
def test_the_streamed_answer_is_the_answer_whatever_the_chunking(answer, thought, size, ascii_only):
    text = json.dumps({"thought": thought, "action": "final_answer", "action_input": {"answer": answer}}, ensure_ascii=ascii_only)
    stream = AnswerStream()
    streamed = "".join(stream.feed(text[i : i + size]) for i in range(0, len(text), size))
    assert streamed == answer
    assert stream.closed


def test_nothing_streams_before_the_action_is_known_or_for_a_tool_call():
    stream = AnswerStream()
    assert stream.feed('{"thought": "the \\"answer\\": \\"no\\" trap", "action_input": {"answer": "x"') == ""
    tool = AnswerStream()
    assert tool.feed('{"action": "calculator", "action_input": {"answer": "1+1"}}') == ""


def test_a_step_inside_a_list_or_after_prose_never_streams_but_a_fenced_one_does():
    """Such a step is refused: its answer must not reach the chat before the refusal."""
    step = '{"action": "final_answer", "action_input": {"answer": "x"}}'
    for text in (f"[{step}]", f"Here it is: {step}"):
        stream = AnswerStream()
        assert "".join(stream.feed(piece) for piece in (text[:3], text[3:])) == ""
    fenced = AnswerStream()
    assert "".join(fenced.feed(piece) for piece in ("  ``", "`json\n", step, "\n```")) == "x"


def test_a_split_escape_waits_for_the_rest():
    stream = AnswerStream()
    out = [stream.feed(p) for p in ['{"action": "final_answer", "action_input": {"answer": "a\\', 'u00e9\\ud83d', '\\ude00b', '"}}']]
    assert "".join(out) == "aé😀b"
    assert out[0] == "a"



def _seconds_to_stream(text: str) -> float:
    """Best-of-three CPU seconds to feed ``text`` to an ``AnswerStream`` in 20-character chunks."""
    best = float("inf")
    for _ in range(3):
        stream, start = AnswerStream(), time.process_time()
        for at in range(0, len(text), 20):
            stream.feed(text[at : at + 20])
        best = min(best, time.process_time() - start)
    return best


@pytest.mark.parametrize(
    "step",
    [
        lambda n: json.dumps({"thought": "x", "action": "search", "action_input": {"q": "a" * n}}),
        lambda n: json.dumps({"thought": "a " * (n // 2), "action": "final_answer", "action_input": {"answer": "ok"}}),
        lambda n: '{"action"' + " " * n,
        lambda n: json.dumps({"action": "final_answer", "action_input": {"answer": "word " * (n // 5)}}),
    ],
    ids=["long tool input", "long thought", "blank space after the action key", "long answer"],
)
def test_a_streamed_step_is_read_in_time_linear_in_its_length(step):
    # the text was searched whole for the action at every chunk: 1.0 s for a 400 KB tool input
    # (7 s for blank space), growing with the square of the length
    assert AnswerStream().feed(step(20)) in ("", "ok", "word word word word ")
    # 200 KB read in about 7 ms of CPU (at 50 KB, 2 ms: too short a reading to compare)
    small, big = _seconds_to_stream(step(200_000)), _seconds_to_stream(step(800_000))
    assert big < 8 * max(small, 1e-3), (small, big)  # linear: 4x, quadratic: 16x

# --- reading a step -----------------------------------------------------------------------------


def test_a_tool_step_becomes_one_call_with_its_arguments():
    step = parse_step('```json\n{"action": "unit_convert", "action_input": {"value": 5, "unit": "km", "exact": "true"}}\n```', None)
    decision = read_step(step, TOOLS, "react-1-1")
    assert isinstance(decision, ToolCalls)
    (call,) = decision.calls
    assert (call.id, call.name, call.arguments) == ("react-1-1", "unit_convert", {"value": 5, "unit": "km", "exact": "true"})


def test_a_string_input_goes_to_the_single_parameter():
    decision = read_step({"action": "calculator", "action_input": "2 + 2"}, TOOLS, "c")
    assert decision.calls[0].arguments == {"expression": "2 + 2"}


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", prompts.PROBLEM_EMPTY),
        ('{"action_input": {}}', prompts.JSON_STEP_NO_ACTION),
        ('{"action": "final_answer", "action_input": {"answer": "  "}}', prompts.PROBLEM_EMPTY_ANSWER),
    ],
)
def test_steps_that_cannot_be_used_name_the_problem(text, problem):
    step = parse_step(text, None)
    decision = step if isinstance(step, ParseFailure) else read_step(step, TOOLS, "c")
    assert decision == ParseFailure(problem)


@pytest.mark.parametrize(
    ("answer", "shown"),
    [({"city": "Paris", "note": "été"}, '{"city": "Paris", "note": "été"}'), ([1, 2], "[1, 2]"), (42, "42"),
     (False, "false")],
)
def test_an_answer_that_is_a_json_value_is_shown_as_json_not_refused_as_empty(answer, shown):
    """A model without native constrained decoding may answer with a JSON value instead of
    text; it said something, so it is the answer (as ``Final Answer: {...}`` is in text steps)."""
    assert read_step({"action": "final_answer", "action_input": {"answer": answer}}, TOOLS, "c") == FinalAnswer(shown)
    if not isinstance(answer, dict):
        assert read_step({"action": "final_answer", "action_input": answer}, TOOLS, "c") == FinalAnswer(shown)


@pytest.mark.parametrize("answer", [None, {}, []])
def test_an_answer_of_nothing_in_json_is_still_empty(answer):
    decision = read_step({"action": "final_answer", "action_input": {"answer": answer}}, TOOLS, "c")
    assert decision == ParseFailure(prompts.PROBLEM_EMPTY_ANSWER)


def test_prose_is_refused_and_difys_parse_is_used_only_without_text():
    assert isinstance(parse_step("I will compute it.", {"action": "calculator"}), ParseFailure)
    assert parse_step("", {"action": "final_answer", "action_input": {"answer": "ok"}})["action"] == "final_answer"


def test_a_turn_streams_its_answer_and_keeps_reasoning_out_of_it():
    text = '<think>plan</think>{"action": "final_answer", "action_input": {"answer": "Forty-two."}, "thought": "easy"}'
    texts, turn = drain(read_json_step_turn(iter(chunks_of(text, 6, finish_reason="stop")), TOOLS, 3))
    assert "".join(texts) == "Forty-two." and len(texts) > 1
    assert turn.decision == FinalAnswer("Forty-two.") and turn.thought == "easy" and turn.reasoning == "plan"
    assert turn.raw.startswith('{"action"')


def test_an_answer_known_only_from_difys_parse_is_sent_at_the_end():
    chunks = [ModelChunk(text=""), ModelChunk(structured_output={"action": "final_answer", "action_input": {"answer": "Yes."}})]
    texts, turn = drain(read_json_step_turn(iter(chunks), TOOLS, 1))
    assert texts == ["Yes."] and turn.decision == FinalAnswer("Yes.")


def test_a_cut_reply_runs_nothing():
    cut_call = '{"action": "calculator", "action_input": {"expression": "1 +'
    _, turn = drain(read_json_step_turn(iter(chunks_of(cut_call, 8, finish_reason="length")), TOOLS, 1))
    assert turn.decision == ParseFailure(prompts.REPLY_CUT)
    cut_answer = '{"action": "final_answer", "action_input": {"answer": "The first part'
    texts, turn = drain(read_json_step_turn(iter(chunks_of(cut_answer, 8, finish_reason="length")), TOOLS, 1))
    assert "".join(texts) == "The first part" and turn.decision == FinalAnswer("The first part") and turn.cut


# --- failures of the call itself ---------------------------------------------------------------


def failing(chunks, error):
    yield from chunks
    raise error


def test_a_failure_before_any_chunk_means_the_schema_call_is_unavailable():
    guarded = GuardedChunks(failing([], RuntimeError("unsupported invoke type")))
    assert list(guarded) == [] and guarded.unavailable == "unsupported invoke type"


def test_a_failure_after_chunks_ends_the_stream_and_keeps_them():
    guarded = GuardedChunks(failing([ModelChunk(text="{")], RuntimeError("Failed to parse structured output")))
    assert [c.text for c in guarded] == ["{"] and guarded.unavailable is None
    assert guarded.interrupted == "Failed to parse structured output"


@pytest.mark.parametrize("error", [ModelTimeoutError("silent"), PastDeadlineError("deadline")])
def test_a_silent_model_or_the_runs_deadline_still_fails_the_call(error):
    with pytest.raises(type(error)):
        list(GuardedChunks(failing([ModelChunk(text="{")], error)))


# --- the prompt's format block ------------------------------------------------------------------


def test_the_format_block_teaches_the_tools_then_shows_a_worked_run_and_one_call_per_tool():
    from agent_core.react.json_prompt import format_block

    block = format_block(TOOLS)
    assert '"calculator", "unit_convert", "final_answer"' in block.splitlines()[0]
    examples = block[block.index(prompts.JSON_STEP_EXAMPLES_HEADER) :]
    observation = examples.index("Observation: Rome: 24 °C, sunny")
    assert examples.index('"answer": "Rome: 24 °C, sunny"') > observation, "the worked answer copies the observation"
    calls = [json.loads(line) for line in examples.splitlines() if line.startswith('{"action": "') and "weather" not in line
             and FINAL_ANSWER not in line]
    assert [c["action"] for c in calls] == ["calculator", "unit_convert"], "one call per tool, last"
    assert calls[1]["action_input"] == {"value": 1, "unit": "km"}
    assert format_block([]) == prompts.JSON_STEP_NO_TOOLS


# --- the final answer's input -------------------------------------------------------------------


@pytest.mark.parametrize("action", [FINAL_ANSWER, "Final Answer", "final answer", "Final-Answer"])
def test_a_final_answer_object_without_an_answer_key_is_shown_as_json(action):
    """``{"action": "Final Answer", "action_input": {"city": "Paris"}}``: the model answered with
    an object of its own; it said something, so it is the answer, as JSON text (not "empty", and
    LangChain's "Final Answer" is not an unknown tool)."""
    decision = read_step({"action": action, "action_input": {"city": "Paris"}}, TOOLS, "c")
    assert decision == FinalAnswer('{"city": "Paris"}')
    assert read_step({"action": action, "action_input": {"answer": "Paris."}}, TOOLS, "c") == FinalAnswer("Paris.")


def test_a_tool_named_final_answer_is_still_called():
    tool = PromptMessageTool(name="Final Answer", description="Submit", parameters={"type": "object", "properties": {}})
    decision = read_step({"action": "Final Answer", "action_input": {"text": "x"}}, [tool], "c")
    assert isinstance(decision, ToolCalls) and decision.calls[0].name == "Final Answer"


# --- a reply that is a text ReAct step (text_fallback) -------------------------------------------


def _registry():
    from agent_core.tool_schema import ToolRegistry
    from tests.unit.test_tool_schema import tool as tool_entity

    return ToolRegistry([tool_entity("search"), tool_entity("calculator")])


def read_reply(text, *, finish_reason="stop", continues_answer=False, answer_schema=None, size=7):
    """A reply read as a JSON-step run reads it: the JSON reader, then the text fallback."""
    from agent_core.react.text_fallback import as_text_step

    registry = _registry()
    texts, turn = drain(read_json_step_turn(iter(chunks_of(text, size, finish_reason=finish_reason)), registry.prompt_tools(), 2))
    more, turn = drain(as_text_step(turn, registry, 2, continues_answer=continues_answer, answer_schema=answer_schema))
    return texts + more, turn


def test_a_text_action_naming_a_node_tool_is_called():
    """A model that ignores the response format and writes text ReAct steps every time: its call
    runs, instead of the run ending with "could not be understood" after three attempts."""
    text = 'Thought: I should look it up.\nAction: search\nAction Input: {"q": "capital of France"}'
    texts, turn = read_reply(text)
    assert texts == []
    assert isinstance(turn.decision, ToolCalls)
    (call,) = turn.decision.calls
    assert (call.id, call.name, call.arguments) == ("react-2-1", "search", {"q": "capital of France"})
    assert turn.read_as == "text" and turn.thought == "I should look it up."
    assert turn.raw == text and turn.content == text, "its own text goes back to it as it wrote it"


def test_a_labelled_text_final_answer_is_given():
    texts, turn = read_reply("Thought: I know this.\nFinal Answer: Paris is the capital of France.")
    assert "".join(texts) == "Paris is the capital of France."
    assert turn.decision == FinalAnswer("Paris is the capital of France.") and turn.read_as == "text"


@pytest.mark.parametrize(
    "text",
    [
        "I think I should look up the weather.",  # plain text: no step at all
        'Action: get_weather\nAction Input: {"city": "Rome"}',  # a tool the node does not have
        '{"action": "search", "action_input": {"q": "x"}, Final Answer: y',  # meant as JSON: its judgement stands
    ],
)
def test_a_reply_that_is_no_text_step_is_still_asked_again(text):
    texts, turn = read_reply(text)
    assert texts == [] and isinstance(turn.decision, ParseFailure) and turn.read_as == ""


def test_a_json_step_is_preferred_to_a_text_reading():
    texts, turn = read_reply('{"action": "final_answer", "action_input": {"answer": "Final Answer: 1"}}')
    assert "".join(texts) == "Final Answer: 1" and turn.decision == FinalAnswer("Final Answer: 1") and turn.read_as == ""


def test_a_cut_text_answer_is_continued_and_a_cut_text_action_is_not_run():
    texts, turn = read_reply("Final Answer: The first part of", finish_reason="length")
    assert "".join(texts) == "The first part of" and turn.decision == FinalAnswer("The first part of") and turn.cut
    texts, turn = read_reply('Action: search\nAction Input: {"q": "capit', finish_reason="length")
    assert texts == [] and turn.decision == ParseFailure(prompts.REPLY_CUT)


def test_plain_text_continuing_a_cut_answer_is_its_rest_and_a_call_after_it_is_not_an_answer():
    texts, turn = read_reply("and the rest of it.", continues_answer=True)
    assert "".join(texts) == "and the rest of it." and turn.decision == FinalAnswer("and the rest of it.")
    texts, turn = read_reply('the rest.\nAction: search\nAction Input: {"q": "x"}', continues_answer=True)
    assert "".join(texts).strip() == "the rest.", "the rest is shown; the loop does not run a call after it"


def test_a_text_answer_in_the_users_schema_is_checked_and_shown_as_json():
    schema = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    texts, turn = read_reply('Final Answer: {"city": "Paris"}', answer_schema=schema)
    assert texts == ['{"city": "Paris"}'] and turn.decision == FinalAnswer('{"city": "Paris"}')
    texts, turn = read_reply('Final Answer: {"town": "Paris"}', answer_schema=schema)
    assert texts == [] and isinstance(turn.decision, ParseFailure) and "city" in turn.decision.problem
