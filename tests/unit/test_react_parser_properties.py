"""Properties of the streaming ReAct parser: chunking never matters, nothing raises, the
events agree with the turn, and time grows linearly with the input."""

import json
import time

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core.react.parser import (
    ActionFound,
    AnswerDelta,
    ReactStreamParser,
    ReasoningDelta,
    ThoughtDelta,
)
from tests.unit.helpers import merged

# Texts of the react_text cases (docs/real-world-cases.md) and of the formats the parser reads.
CORPUS = [
    'Thought: I need to search\nAction_input: {"input": "x"}',
    '{"tool_call": {"function": {"name": "webSearch", "arguments": ...}}}',
    "action_input='128乘以6的结果是768'",
    "我需要计算这个字符串的长度，应该使用get_word_length函数。\nAction: get_word_length\nAction Input: 'hwchasfffffe17'\nObserv",
    "{'query': 'What is the exchange rate between USD and EUR?', 'task_id': None, 'context_id': None}",
    "I need to use a tool to help me answer the question.\n\nAction: None\nAction Input: None\n\n"
    "Please let me know how I can assist you with your task or question.",
    "Thought: [reasoning about why tool can't be used]\nAction: None (direct response required)",
    "Thought: The current language of the user is: English. I need to use a tool to help me answer the question.\n"
    "Action: current_date\nAction Input: {'type': 'object', 'properties': AttributedDict()}\n"
    "Observation: Error: current_date() got an unexpected keyword argument 'type'",
    "## thought:\nI need to find the main entry point...\n\n## action:\n<action>\n<tool_name>search_files</tool_name>\n"
    '<arguments><arg key="pattern">*.go</arg></arguments>\n</action>\n\n## observation:\ncmd/app/main.go\n'
    "cmd/cli/main.go\n\n## thought:\nI found several files. Let me read main.go...\n\n## action:\n<action>\n"
    '<tool_name>read_file</tool_name>\n<arguments><arg key="file_path">cmd/app/main.go</arg></arguments>\n</action>',
    '{\n"action": "think",\n"args": {\n"thought": "I should check if the \'hello\\_world.sh\' script exists in this '
    "directory by running 'ls'.\"\n}\n}",
    'Thought: search\nAction: search\nAction Input: {"q": "x"}\nObservation: made up\nFinal Answer: invented',
    '<think>Thought: need data\nAction: search\nAction Input: {"q": "x"}</think>\n',
    "<think>Thought: easy\nFinal Answer: 4",
    'Action:\n{\n  "tool_name": "get_weather",\n  "tool_arguments": {"location": "Paris", "celsius": true}\n}\n\n'
    "This action will get the weather information for Paris, and I will use the result as the final answer.",
    '{"name":"get_weather","parameters":{"location":"Hangzhou"}}<|eot_id|>',
    "<tool_call><function=get_weather><parameter=city>Tokyo</parameter></function></tool_call>\n\n"
    '<tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</tool_call>',
    "Thought: search it\nAction:\n```json\n"
    '{\n  "action": "web_search",\n  "action_input": {"query": "dify {plugins} \\"quoted\\" [x]"}\n}\n```\n',
    'Thought: t\nAction:\n```json\n{"action": "Final Answer", "action_input": "Hi\\nthere"}\n```',
    '**Thought:** t\n**Action:** search\n**Action Input:** {"q": 1}',
    "THOUGHT： t\nACTION： search\nACTION_INPUT： {'q': 1, 'r': None,}",
    "<thinking>plan</thinking>Thought: the set {1, 2} and [3\n{ note\nFinal Answer:  \n Hello <b>world</b>\nObs",
    "Final Answer: A<think>hidden</think>B<|im_end|>\n\n",
    '{"thought": "t", "final_answer": "Paris"}',
    'Action: search Action Input: {"q": "x"}\nThought: more\nAction: Search[Apple]\nAction: two\nAction Input: "s"',
    'Action:\n```json\n{"action": "a", "action_input": {}}\n```\nAction:\n```\n{"action": "b", "action_input": 1}\n```',
    "Use this:\n```python\nprint({'a': 1})\n```\n```json\n{\"a\": 1}\n```\n[1] ref",
    "Action: python\nAction Input: x = 1\nprint(x)\n\nObservation: 1",
    "Action:\nAction Input: {}",
    'Thought: t\nAction Input: {"action": "search", "action_input": {"q": 1}}',
    "Action: {{{{",
    'Action: {"action": "search", "action_input": {"q": "x"',
    'Action:\n```json\n{"action": "search", "action_input": {"q": "x"}\n```\nThought: more',
    "Action: tool\nAction Input: {'q': 'what's {up'}",
    '<tool_call>\n{"name": "a", "arguments": {}}\n</tool_call>\n<tool_call>{"name": "b", "arguments": {}}</tool_call>',
    '{"tool_calls": [{"name": "a", "arguments": "{\\"x\\": 1}"}, {"name": "b", "arguments": {}}]}',
    "Plain prose with no markers at all.\nSecond line: still prose.",
    "Thought: I am thinking about how to help you",
    "</think>\nFinal Answer: ok",
    'Thought: x\r\nAction: search\r\nAction Input: {"q": 1}\r\nObservation: y',
    'Action: {"action": "a", "action_input": {}} {"action": "b", "action_input": {"x": 1}}\nThought: both',
    'Thought: t\n{"name": "a", "arguments": {}}; {"name": "b", "arguments": {}}, {bad} {"x": 1}',
    '```json\n{"action": "a", "action_input": {}},{"action": "b", "action_input": {"q": "} {"}}\n```',
    # wave 33: the ReAct paper's answer action alone, and MiniMax's calls without their "<"
    "Finish[see [1] and [2]]",
    "<think>plan</think>Finish[Paris]",
    "Finish[",
    "finish[]\nThought: more",
    'Let me check.\ninvoke name="search">\nparameter name="q">Paris</parameter>\ninvoke>',
    'invoke name="search">\nparameter name="q">a parameter>\ninvoke>\ninvoke name="nope">\ninvoke>\n',
]

FRAGMENTS = [
    "Thought:",
    "Action:",
    "Action Input:",
    "Action_input：",
    "Final Answer:",
    "Answer:",
    "Input:",
    "Parameters:",
    "Observation:",
    "Observ",
    "**",
    "## ",
    "\n",
    "\n",
    " ",
    "{",
    "}",
    "[",
    "]",
    '"',
    "'",
    "\\",
    ":",
    ",",
    ";",
    '{"action": "a", "action_input": {}}',
    "```json\n",
    "```",
    "<think>",
    "</think>",
    "<tool_call>",
    "</tool_call>",
    "<action>",
    "</action>",
    "<tool_name>x</tool_name>",
    "<|eot_id|>",
    "<",
    '"action"',
    '"action_input"',
    '"name"',
    '"arguments"',
    "None",
    "search",
    "hello world",
    "Final Answer",
    "é",
    "Finish[",
    'invoke name="',
    "parameter>",
]




def run(chunks, **kw):
    parser = ReactStreamParser(**kw)
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.finish()
    return merged(events), parser.result(), parser.revised


def split(text, cuts):
    points = sorted({cut % (len(text) + 1) for cut in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def check_consistent(events, turn, revised=False):
    """The events tell the same story as the turn; a turn read again after a bare </think>
    that followed labels (the labels before it were reasoning) ends with that story."""
    actions = [e for e in events if isinstance(e, ActionFound)]
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    if revised:
        # an action, an answer, or a call cut at the stream's end (``Final Answer:## <tool_call>{``:
        # the answer's start re-read as a thought before a call markup that never closed)
        assert turn.actions or turn.final_answer or turn.ended_inside, "a revised turn is an action or an answer"
        assert tuple(actions[len(actions) - len(turn.actions):]) == turn.actions
        assert answer.endswith(turn.final_answer or "")
        assert (turn.problem is None) == bool(turn.actions or turn.final_answer)
        return
    assert tuple(actions) == turn.actions
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)).strip() == turn.thought
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)).strip() == turn.reasoning
    assert (answer or None) == turn.final_answer
    assert not (turn.actions and answer), "an answer was streamed in a turn that has an action"
    assert (turn.problem is None) == bool(turn.actions or turn.final_answer)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(CORPUS), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12), st.booleans())
def test_any_split_of_the_corpus_gives_the_same_events(text, cuts, multi):
    whole = run([text], allow_multiple_actions=multi)
    assert run(split(text, cuts), allow_multiple_actions=multi) == whole
    check_consistent(*whole)


def test_every_two_way_split_and_char_by_char_give_the_same_events():
    for text in CORPUS:
        for multi in (False, True):
            whole = run([text], allow_multiple_actions=multi)
            check_consistent(*whole)
            assert run(list(text), allow_multiple_actions=multi) == whole, text
            for cut in range(len(text) + 1):
                assert run([text[:cut], text[cut:]], allow_multiple_actions=multi) == whole, (text, cut)


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=300), st.lists(st.integers(min_value=0, max_value=400), max_size=10), st.booleans())
def test_arbitrary_text_never_raises_and_chunking_does_not_matter(text, cuts, multi):
    whole = run([text], allow_multiple_actions=multi)
    assert run(split(text, cuts), allow_multiple_actions=multi) == whole
    check_consistent(*whole)
    assert whole[1].raw == text


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.sampled_from(FRAGMENTS), max_size=40).map("".join),
    st.lists(st.integers(min_value=0, max_value=600), max_size=12),
    st.booleans(),
)
@example("Final Answer:## <tool_call>{", [], False)
def test_marker_soup_never_raises_and_chunking_does_not_matter(text, cuts, multi):
    whole = run([text], allow_multiple_actions=multi)
    assert run(split(text, cuts), allow_multiple_actions=multi) == whole
    check_consistent(*whole)


_JSON_KEYS = st.sampled_from(["action", "action_input", "name", "arguments", "Action", "Thought: x", "q", "é", ""])
_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.sampled_from(["Action: x", "```", "</tool_call>", "a\nb"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_JSON_KEYS, inner, max_size=3),
    max_leaves=8,
)
_JSON_SETTINGS = st.sampled_from(
    [
        "Action Input: {json}",
        "Thought: t\nAction: search\nAction Input: {json}\nObservation: x",
        "Action:\n```json\n{json}\n```\nmore",
        "{json}",
        "Thought: t\n{json}\nFinal Answer: done",
        "<tool_call>{json}</tool_call>",
        "Action: {json} trailing",
        "{json} {json}",
        "Thought: t\nAction: {json}; {json}\nThought: x",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    _JSON_VALUES,
    st.sampled_from([None, 0, 2]),
    _JSON_SETTINGS,
    st.lists(st.integers(min_value=0, max_value=600), max_size=8),
    st.booleans(),
)
def test_json_read_in_one_step_or_piece_by_piece_gives_the_same_events(value, indent, setting, cuts, multi):
    """A value complete in the buffer is read in one step; split anywhere it is read character
    class by character class. Both must tell the same story."""

    text = setting.replace("{json}", json.dumps({"action": "search", "action_input": value}, indent=indent, ensure_ascii=False))
    whole = run([text], allow_multiple_actions=multi)
    assert run(split(text, cuts), allow_multiple_actions=multi) == whole
    assert run(list(text), allow_multiple_actions=multi) == whole
    check_consistent(*whole)


def _best_time(text, chunk):
    chunks = [text[i : i + chunk] for i in range(0, len(text), chunk)]
    best = float("inf")
    for _ in range(3):  # this process's CPU time: another process on a loaded machine does not count
        start = time.process_time()
        run(chunks)
        best = min(best, time.process_time() - start)
    return best


def _long_text(size, shape):
    line = "Some reasoning about {braces} and [lists], a < b, Thoughtful words: here.\n"
    body = (line * (size // len(line) + 1))[:size]
    if shape == "answer":
        return "Thought: long\nFinal Answer: " + body
    if shape == "prose":
        return body
    if shape == "think":
        return "<think>" + body + "</think>Final Answer: ok"
    if shape == "name-line":
        return "Action: search" + " " * size + "x\nAction Input: " + body
    if shape == "markers":
        return "Thought: <\n{ [\n```\nObs F <th Final\n" * (size // 30)
    if shape == "deep":  # unclosed nesting: the repair at the end is the slow part, so keep it small
        return "Action: " + "[{" * (size // 40)
    value = body.replace("\\", "").replace('"', "'").replace("\n", "\\n")
    return 'Thought: t\nAction: {"action": "write", "action_input": {"text": "' + value + '", "n": [1, {"a": 2}]}}'


def test_time_grows_linearly():
    for shape in ("answer", "prose", "think", "json", "name-line", "markers", "deep"):
        for chunk in (7, 4096) if shape in ("answer", "json") else (64,):
            small = _best_time(_long_text(10_000, shape), chunk)
            large = _best_time(_long_text(100_000, shape), chunk)
            assert large / max(small, 1e-4) < 30, (shape, chunk, small, large)
