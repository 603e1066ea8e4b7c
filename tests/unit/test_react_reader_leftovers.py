"""Reading gaps the seventh pass of real-world cases left (docs/real-world-cases.md), closed, with
the same shapes that must stay what they were, through both strategies' turn readers, the text
whole and in pieces of 1 and 7 characters:

1. a GLM ``<tool_call>`` whose ``<arg_value>`` names ``</tool_call>`` (Ollama's glm47 parser test):
   ReAct's streaming parser ended the block at that tag, inside the value;
2. Gemini's ``default_api:NAME{...}`` leak, glued to a word (bayesimpact/bayes-platform PR #731):
   read in neither strategy; now a call when NAME is a node tool and the form is the whole rest
   of the reply (or its last line);
3. MiniMax-M3's token form (``]<]minimax[>[<tool_call>...``) in a fenced block: asked again in both
   strategies; now the answer's text, as other families' markup in code is;
4. the XML-tagged step (lamalab-org/corral PR #192): ``<final_answer>...</final_answer>`` with no
   reasoning before it was shown with its tags; a ``<thought>`` block was logged as reasoning, not
   as the turn's thought (ReAct).
"""

import pytest

from agent_core.call_markup import CodeQuote
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import gap_param
from tests.unit.test_real_world_2026 import Case, check, tool
from tests.unit.test_real_world_2026g import read

WRITE = tool("write_file", "path", "content")
WEATHER = tool("get_weather", "city")


def _glm(name: str, *pairs: tuple[str, str]) -> str:
    """GLM's call: ``<tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value>...</tool_call>``."""
    body = "".join(f"<arg_key>{key}</arg_key><arg_value>{value}</arg_value>" for key, value in pairs)
    return f"<tool_call>{name}{body}</tool_call>"


NS = "]<]minimax[>["
M3_CALL = (
    f'{NS}<tool_call>\n{NS}<invoke name="get_weather">{NS}<city>Paris{NS}</city>{NS}</invoke>\n{NS}</tool_call>'
)
TWO_CLOSERS = "Close with </tool_call>, never </tool_call><tool_call> twice."

CALLS = {
    # ---- 1. a GLM value that names the closing tag --------------------------------------------------
    "glm-value-names-closer-twice": (
        (WRITE,),
        _glm("write_file", ("path", "a.md"), ("content", TWO_CLOSERS)),
        [("write_file", {"path": "a.md", "content": TWO_CLOSERS})],
    ),
    "glm-value-names-closer-then-second-call": (
        (WRITE,),
        _glm("write_file", ("path", "a.md"), ("content", "ends at </tool_call>.")) + "\n"
        + _glm("write_file", ("path", "b.md"), ("content", "plain")),
        [("write_file", {"path": "a.md", "content": "ends at </tool_call>."}),
         ("write_file", {"path": "b.md", "content": "plain"})],
    ),
    "glm-value-names-closer-after-thought": (
        (WRITE,),
        "Thought: I will write the file.\n" + _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")),
        [("write_file", {"path": "a.md", "content": "x </tool_call> y"})],
    ),
    # ---- 2. Gemini's default_api:NAME{...} ------------------------------------------------------
    "gemini-default-api-bare": (
        (WEATHER,), "default_api:get_weather{city:Paris}", [("get_weather", {"city": "Paris"})],
    ),
    "gemini-default-api-glued-list-and-null": (
        (tool("tag", "names", "title"),), "Ok:default_api:tag{names:[\"a\", \"b\"],title:null}",
        [("tag", {"names": ["a", "b"], "title": None})],
    ),
    "gemini-default-api-after-a-sentence": (
        (WEATHER,), "Let me check.\nNote:default_api:get_weather{city:Paris}", [("get_weather", {"city": "Paris"})],
    ),
    # ---- 3. MiniMax-M3: a genuine call still runs, also after the same markup shown in a fence -------
    "m3-call": ((WEATHER,), M3_CALL, [("get_weather", {"city": "Paris"})]),
    "m3-call-after-fenced-example": (
        (WEATHER,), f"M3 writes:\n```\n{M3_CALL}\n```\nSo here it is:\n{M3_CALL}", [("get_weather", {"city": "Paris"})],
    ),
}

REACT_ONLY_CALLS = frozenset({"glm-value-names-closer-after-thought"})

TEXT = {
    # the GLM call shown in a code span: the answer as written (a code span is quoted text)
    "glm-closer-in-value-in-code-span": (
        (WRITE,),
        "GLM writes `" + _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")) + "` for a call.",
    ),
    # Gemini's form in a sentence, in a code span, in a fence, with text after it, naming no node
    # tool, glued to a long run of characters: the answer as written
    "gemini-in-prose": ((WEATHER,), "Gemini wrote default_api:get_weather{city:Paris} instead of a call."),
    "gemini-in-code-span": ((WEATHER,), "Gemini wrote `default_api:get_weather{city:Paris}` instead."),
    "gemini-in-fence": ((WEATHER,), "Gemini wrote:\n\n```\ndefault_api:get_weather{city:Paris}\n```"),
    "gemini-text-after": ((WEATHER,), "default_api:get_weather{city:Paris}\nThat is what it wrote."),
    "gemini-no-node-tool": ((WEATHER,), "default_api:get_time{zone:UTC}"),
    "gemini-glued-to-a-long-run": ((WEATHER,), "https://example.com/path/default_api:get_weather{city:Paris}"),
    # after a sentence: its line with text after it, or naming no node tool, and lines that open
    # with a word and a colon as prose does (the gate holds such a line start only while it may grow)
    "gemini-after-a-sentence-text-after": (
        (WEATHER,), "Let me check.\nNote:default_api:get_weather{city:Paris}\nThat is what it wrote.",
    ),
    "gemini-after-a-sentence-no-node-tool": ((WEATHER,), "Let me check.\nNote:default_api:get_time{zone:UTC}"),
    "word-colon-lines": ((WEATHER,), "Summary:\nNote: it rains.\nTODO:default\ncity:Paris{x}"),
    # MiniMax-M3's markup shown in a fenced block (backticks, tildes, after Final Answer:): the answer
    "m3-in-a-fence": ((WEATHER,), f"MiniMax-M3 writes:\n\n```\n{M3_CALL}\n```"),
    "m3-in-a-tilde-fence-with-text-after": ((WEATHER,), f"The raw reply:\n~~~xml\n{M3_CALL}\n~~~\nThat is all."),
    "m3-in-a-code-span": ((WEATHER,), "M3 opens with `" + NS + "<tool_call>` and a newline."),
}

# ---- 4. the XML-tagged step's answer alone: the answer without its frame ---------------------------
STEP_ANSWERS = {
    "final-answer-element-alone": ("<final_answer>Paris is sunny.</final_answer>", "Paris is sunny."),
    "final-answer-element-on-lines": ("\n<final_answer>\nParis is sunny.\n</final_answer>\n", "Paris is sunny."),
}

STEP_TEXT = {
    # the element in a sentence, in a code span, in a fence, and <answer> alone (a reply asked to
    # use such tags keeps them): the answer as written
    "final-answer-element-in-prose": "Close the step with <final_answer>Paris</final_answer> tags.",
    "final-answer-element-after-a-word": "Result: <final_answer>Paris</final_answer>",
    "final-answer-element-in-code-span": "`<final_answer>Paris is sunny.</final_answer>`",
    "final-answer-element-in-fence": "```xml\n<final_answer>Paris is sunny.</final_answer>\n```",
    "answer-element-alone": "<answer>Paris is sunny.</answer>",
}

REACT_TEXT = {
    "m3-in-a-fence-after-final-answer": (
        (WEATHER,), f"Thought: I know.\nFinal Answer: M3 writes:\n```\n{M3_CALL}\n```\nThat is all.",
        f"M3 writes:\n```\n{M3_CALL}\n```\nThat is all.",
    ),
}

NO_NODE_TOOL = {
    # a value naming the closer, in a call of a tool the node lacks: no node tool runs
    "glm-closer-in-value-unknown-tool": (
        (WEATHER,), _glm("write_file", ("path", "a.md"), ("content", "x </tool_call> y")),
    ),
}


GAPS = {
    # (case, strategy) -> why it fails today: a strict xfail, named in docs/real-world-cases.md
}


def _params(table, only=frozenset()):
    for name in table:
        for strategy in ("react", "fc"):
            if name in only and strategy != "react":
                continue
            yield gap_param(name, strategy, gap=GAPS.get((name, strategy)), id=f"{name}-{strategy}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(CALLS, REACT_ONLY_CALLS)))
def test_the_call_runs_with_its_arguments_whole(name, strategy, size):
    tools, text, calls = CALLS[name]
    streamed, turn = read(strategy, Case(tools, text, calls=calls), size)
    check(strategy, Case(tools, text, calls=calls), streamed, turn)
    assert "<arg_key>" not in streamed and "default_api" not in streamed


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(TEXT)))
def test_the_shape_shown_as_text_is_the_answer(name, strategy, size):
    tools, text = TEXT[name]
    streamed, turn = read(strategy, Case(tools, text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "strategy"), list(_params(NO_NODE_TOOL)))
def test_a_call_of_no_node_tool_runs_none(name, strategy, size):
    tools, text = NO_NODE_TOOL[name]
    streamed, turn = read(strategy, Case(tools, text), size)
    assert "<arg_value>" not in streamed or isinstance(turn.decision, FinalAnswer)
    if isinstance(turn.decision, ToolCalls):
        assert [call.name for call in turn.decision.calls] == ["write_file"]  # an unknown tool, answered so
    else:
        assert isinstance(turn.decision, (ParseFailure, FinalAnswer))


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(REACT_TEXT))
def test_react_answer_shows_the_markup(name, size):
    tools, text, answer = REACT_TEXT[name]
    streamed, turn = read("react", Case(tools, text), size)
    assert turn.decision == FinalAnswer(answer)
    assert streamed.strip() == answer


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_a_tool_call_tag_in_a_fence_without_the_token_is_still_a_call(strategy, size):
    text = 'Here:\n```\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n```'
    _, turn = read(strategy, Case((WEATHER,), text), size)
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


@pytest.mark.parametrize(
    "text",
    ["```\nx\n```\nSo:\n", "~~~\nx\n~~~\nnext line", "a `b` c\n```py\nx\n```\n\nd", "```\nx\n```"],
)
def test_code_quote_reads_a_closing_fence_fed_a_character_at_a_time_as_whole(text):
    # a held run of backticks followed by a newline was read as text without that newline: the
    # line after a closed fence was taken for the fence's own, and M3's call after it went unread
    whole, split = CodeQuote(), CodeQuote()
    whole.feed(text)
    for char in text:
        split.feed(char)
    assert (split.open, split.in_span, split.in_fence, split.blank_line) == (
        whole.open, whole.in_span, whole.in_fence, whole.blank_line
    )


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(STEP_ANSWERS))
def test_the_step_answer_element_alone_is_the_answer_without_its_tags(name, strategy, size):
    text, answer = STEP_ANSWERS[name]
    streamed, turn = read(strategy, Case((tool("search", "query"),), text), size)
    assert turn.decision == FinalAnswer(answer)
    assert streamed.strip() == answer


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(STEP_TEXT))
def test_the_step_answer_element_elsewhere_is_text(name, strategy, size):
    text = STEP_TEXT[name]
    streamed, turn = read(strategy, Case((tool("search", "query"),), text), size)
    assert turn.decision == FinalAnswer(text)
    assert streamed.strip() == text


SEARCH = tool("search", "query")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(
    ("text", "thought", "decision"),
    [
        (
            "<thought>I need to search.</thought>\n<action>search</action>\n<action_input>Paris</action_input>",
            "I need to search.", ToolCalls,
        ),
        ("<thought>I know it.</thought>\n<final_answer>Paris is sunny.</final_answer>", "I know it.", FinalAnswer),
        ("<thought>Plan.</thought>\nThought: I know.\nFinal Answer: Paris.", "Plan.\n\nI know.", FinalAnswer),
    ],
)
def test_react_thought_element_is_the_turns_thought(text, thought, decision, size):
    streamed, turn = read("react", Case((SEARCH,), text), size)
    assert isinstance(turn.decision, decision)
    assert (turn.thought, turn.reasoning) == (thought, "")
    assert "I need" not in streamed and "I know it" not in streamed


@pytest.mark.parametrize("size", [None, 1])
@pytest.mark.parametrize(
    ("text", "reasoning"),
    [
        # other reasoning beside it: all of it stays reasoning, as before
        ("<think>hmm</think><thought>I know.</thought>\nThought: x\nFinal Answer: y", "hmm"),
        # a <think> block is reasoning, never the thought
        ("<think>I know.</think>\nThought: x\nFinal Answer: y", "I know."),
    ],
)
def test_react_other_reasoning_stays_reasoning(text, reasoning, size):
    _, turn = read("react", Case((SEARCH,), text), size)
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text == "y"
    assert turn.reasoning.startswith(reasoning)
    assert turn.thought == "x"


def test_react_a_reply_that_is_only_a_thought_element_is_asked_again_as_before():
    # no action, no answer: the text stays reasoning, so the reply-only-reasoning path is unchanged
    _, turn = read("react", Case((SEARCH,), "<thought>only thinking</thought>"), None)
    assert isinstance(turn.decision, ParseFailure)
    assert turn.reasoning == "only thinking"


@pytest.mark.parametrize("size", [1, 3, None])
@pytest.mark.parametrize("word", ["Checking", "Lie:"])
def test_fc_a_word_held_for_gemini_s_form_is_shown_before_a_native_call(word, size):
    # the gate holds a first word that may grow into WORD:default_api:NAME{; a native call came
    # instead, so the word is the answer's text, as an unheld one would be
    from agent_core.function_calling.turn import read_function_calling_turn
    from agent_core.model_call import normalize_chunk
    from agent_core.tool_schema import ToolRegistry
    from tests.unit.helpers import drain
    from tests.unit.test_real_world_2026d import chunk

    pieces = [word] if size is None else [word[i : i + size] for i in range(0, len(word), size)]
    native = {"index": 0, "id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'}}
    raw = [*(chunk(piece) for piece in pieces), chunk(tool_calls=[native]), chunk(finish_reason="tool_calls")]
    registry = ToolRegistry([WEATHER])
    streamed, turn = drain(read_function_calling_turn(iter([normalize_chunk(r) for r in raw]), registry.prompt_tools()))
    assert streamed == word
    assert [call.name for call in turn.decision.calls] == ["get_weather"]
