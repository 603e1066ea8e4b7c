"""The streaming ReAct parser: formats, labels, markers, fallbacks and problems.

Case ids name the public threads listed in docs/real-world-cases.md.
"""

import pytest

from agent_core.react.parser import (
    PROBLEM_EMPTY,
    PROBLEM_EMPTY_ANSWER,
    PROBLEM_NO_NAME,
    PROBLEM_NONE_EMPTY,
    PROBLEM_ONLY_REASONING,
    PROBLEM_ORPHAN_INPUT,
    PROBLEM_THOUGHT_ONLY,
    ActionFound,
    AnswerDelta,
    ReactStreamParser,
    ReasoningDelta,
    ThoughtDelta,
    parse_react,
)


def run(chunks, **kw):
    """Feed chunks; return (events per feed call, finish events, turn)."""
    parser = ReactStreamParser(**kw)
    per_feed = [parser.feed(chunk) for chunk in chunks]
    tail = parser.finish()
    return per_feed, tail, parser.result()


def texts(events, cls):
    return "".join(e.text for e in events if isinstance(e, cls))


def all_events(chunks, **kw):
    per_feed, tail, _ = run(chunks, **kw)
    return [e for feed in per_feed for e in feed] + tail


# ---- the main formats --------------------------------------------------------------------------


def test_classic_thought_action_input_json():
    turn = parse_react('Thought: I need the weather.\nAction: get_weather\nAction Input: {"city": "Paris"}')
    assert turn.thought == "I need the weather."
    assert turn.actions == (
        ActionFound("get_weather", {"city": "Paris"}, 'Action: get_weather\nAction Input: {"city": "Paris"}'),
    )
    assert turn.final_answer is None and turn.problem is None


def test_dify_fenced_json_blob():
    text = (
        "Thought: search it\nAction:\n```json\n"
        '{\n  "action": "web_search",\n  "action_input": {"query": "dify {plugins}"}\n}\n```\n'
    )
    turn = parse_react(text)
    assert [(a.name, a.input) for a in turn.actions] == [("web_search", {"query": "dify {plugins}"})]
    assert turn.thought == "search it"


def test_bare_blob_after_action_label_and_trailing_prose_ignored():
    # smolagents158: Llama adds prose after the call
    text = (
        'Action:\n{\n  "tool_name": "get_weather",\n  "tool_arguments": {"location": "Paris", "celsius": true}\n}\n\n'
        "This action will get the weather information for Paris."
    )
    turn = parse_react(text)
    assert [(a.name, a.input) for a in turn.actions] == [("get_weather", {"location": "Paris", "celsius": True})]
    assert turn.thought == ""


def test_action_is_emitted_when_its_blob_closes_not_on_the_next_character():
    parser = ReactStreamParser()
    parser.feed('Thought: x\nAction: {"action": "search", "action_input": {"q": "a}b"}')
    events = parser.feed("}")
    assert events == [ActionFound("search", {"q": "a}b"}, 'Action: {"action": "search", "action_input": {"q": "a}b"}}')]


def test_classic_input_json_emitted_on_close():
    parser = ReactStreamParser()
    assert not [e for e in parser.feed('Action: search\nAction Input: {"q": "x"') if isinstance(e, ActionFound)]
    assert parser.feed("}") == [ActionFound("search", {"q": "x"}, 'Action: search\nAction Input: {"q": "x"}')]


def test_fenced_input_after_action_input_label():
    turn = parse_react('Action: search\nAction Input:\n```json\n{"q": "x"}\n```')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_name_and_input_on_one_line():
    turn = parse_react('Action: search Action Input: {"q": "x"}')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_call_form_name_with_brackets():
    turn = parse_react("Thought: look it up\nAction: Search[Apple Remote]")
    assert [(a.name, a.input) for a in turn.actions] == [("Search", "Apple Remote")]


def test_action_without_input_has_none_input():
    turn = parse_react("Thought: what day is it\nAction: current_date\nObservation: 2024-01-01")
    assert [(a.name, a.input) for a in turn.actions] == [("current_date", None)]


def test_input_as_json_string_containing_json_is_decoded():
    turn = parse_react('Action: {"action": "search", "action_input": "{\\"q\\": \\"x\\"}"}')
    assert turn.actions[0].input == {"q": "x"}
    turn = parse_react('Action: search\nAction Input: "{\\"q\\": \\"x\\"}"')
    assert turn.actions[0].input == {"q": "x"}


def test_plain_string_input_is_kept():
    # dify2949: a natural-language action input must not crash anything
    turn = parse_react("Action: calculator\nAction Input: 128乘以6的结果是768")
    assert turn.actions[0].input == "128乘以6的结果是768"


# ---- labels ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'Thought: t\nAction: search\nAction Input: {"q": 1}',
        '**Thought:** t\n**Action:** search\n**Action Input:** {"q": 1}',
        '## thought:\nt\n## action:\nsearch\n## action input:\n{"q": 1}',
        'THOUGHT： t\nACTION： search\nACTION_INPUT： {"q": 1}',
        'thought: t\naction: search\naction input: {"q": 1}',
        'Thought: t\nAction: search\nAction_input: {"q": 1}',
        '  Thought: t\n  Action: `search`\n  Action Input: {"q": 1}',
        'Thought 1: t\nAction 1: search\nAction Input 1: {"q": 1}',
        '**Thought**: t\n**Action**: search\n**Action Input**: {"q": 1}',
    ],
)
def test_label_variants(text):
    turn = parse_react(text)
    assert turn.thought == "t"
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": 1})]


@pytest.mark.parametrize(
    "label",
    ["Final Answer:", "**Final Answer:**", "final answer:", "Final Answer：", "## Final answer:", "Final_Answer:"],
)
def test_final_answer_label_variants(label):
    turn = parse_react(f"Thought: done\n{label} 42")
    assert turn.final_answer == "42"
    assert turn.thought == "done"


def test_label_words_inside_a_line_are_text():
    turn = parse_react("Thought: my next action: think about the final answer: maybe\nFinal Answer: yes")
    assert turn.thought == "my next action: think about the final answer: maybe"
    assert turn.final_answer == "yes"


def test_lines_that_only_look_like_labels_are_streamed():
    per_feed, _, turn = run(["Thoughtful ", "words\nActions speak\nFinally"])
    assert texts(per_feed[0], ThoughtDelta) == "Thoughtful "
    assert turn.final_answer == "Thoughtful words\nActions speak\nFinally"


# ---- final answer streaming -------------------------------------------------------------------------


def test_final_answer_streams_incrementally_with_leading_whitespace_trimmed():
    per_feed, tail, turn = run(["Thought: ok\nFinal Answer:", "   ", "\n Hel", "lo", " world  \n"])
    answers = [texts(feed, AnswerDelta) for feed in per_feed]
    assert answers == ["", "", "Hel", "lo", " world"]
    assert texts(tail, AnswerDelta) == ""
    assert turn.final_answer == "Hello world"


def test_partial_final_answer_label_is_held_back_only_until_decided():
    parser = ReactStreamParser()
    assert parser.feed("Thought: x\nFinal Ans") == [ThoughtDelta("x\n")]
    assert parser.feed("wer: 4") == [AnswerDelta("4")]
    assert parser.feed("2") == [AnswerDelta("2")]


def test_final_answer_in_json_blob():
    # Dify's ReAct prompt asks for the answer as an action named "Final Answer"
    per_feed, _, turn = run(['Action:\n```json\n{"action": "Final Answer", "action_input": "Hi', ' there"}', "\n```"])
    assert [texts(feed, AnswerDelta) for feed in per_feed] == ["", "Hi there", ""]
    assert turn.final_answer == "Hi there" and turn.actions == ()


def test_classic_final_answer_action():
    assert parse_react("Action: Final Answer\nAction Input: 42").final_answer == "42"


def test_multiline_final_answer_keeps_its_lines_and_markdown():
    text = 'Final Answer: Steps:\n- one\n\n## Two\n```json\n{"a": 1}\n```\nAction: call the supplier\nAnswer: 4'
    assert parse_react(text).final_answer == text[len("Final Answer: ") :]


@pytest.mark.parametrize(
    "tail",
    [
        "\nThought: let me double check\nAction: get_weather\nAction Input: {}",
        "\nObservation: sunny",
        "\n\nQuestion: What about Rome?\nThought: I should call get_weather",
        "\n**Question:** And Rome?\n\n**Observation:** rainy",
        # langchain-ai/langchain#21912, crewAIInc/crewAI#1545: an action after the answer
        '\nAction: get_weather\nAction Input: {"city": "Paris"}',
        '\n\n**Action:** get_weather\n**Action Input:** {"city": "Paris"}\nObservation: sunny',
    ],
)
def test_the_format_written_on_past_the_answer_is_not_the_answer(tail):
    # a model that does not stop after its answer writes the next step of the format
    # (QuangBK/localLLM_langchain#2, stanfordnlp/dspy#931): the user gets the answer only
    text = "Thought: I know it\nFinal Answer: It is sunny in Paris." + tail
    for chunks in ([text], list(text)):
        per_feed, _, turn = run(chunks)
        assert turn.final_answer == "It is sunny in Paris." and turn.actions == ()
        assert "".join(texts(feed, AnswerDelta) for feed in per_feed) == "It is sunny in Paris."


@pytest.mark.parametrize(
    ("answer", "tail"),
    [
        # meeting minutes' action items, then a thought written on past the answer
        ("Minutes:\n- Decided: ship v2\nAction: John to send the notes", "\nThought: I am done."),
        ("Minutes:\nAction: John to send the notes\nAction: Mary to book the room\nDue Friday.", "\n\nThought: done"),
        ("Incident report\nAction: restarted the server\nCause: a full disk", "\nObservation: stable since"),
        # a next question after the action items is the format written on, as after the answer
        ("Minutes:\nAction: John to send the notes", "\nQuestion: anything else?\nThought: no"),
    ],
)
def test_action_lines_of_the_answer_stay_when_the_format_is_written_on_after_them(answer, tail):
    # only an "Action:" line followed by the format's next step (Action Input / Observation) is
    # the format written on; the answer's own "Action:" lines stay, streamed in any chunking
    text = "Thought: I know it\nFinal Answer: " + answer + tail
    for chunks in ([text], list(text)):
        per_feed, _, turn = run(chunks)
        assert turn.final_answer == answer and turn.actions == ()
        assert "".join(texts(feed, AnswerDelta) for feed in per_feed) == answer


def test_an_answer_streams_on_past_its_own_action_line():
    # an action item followed by prose is the answer's own: it is not held to the end of the turn
    text = "Thought: ok\nFinal Answer: Minutes\nAction: John to send the notes\nDue Friday. " + "More notes. " * 50
    per_feed, _, turn = run(list(text))
    streamed = "".join(texts(feed, AnswerDelta) for feed in per_feed[:-1])  # before the last piece
    assert streamed.startswith("Minutes\nAction: John to send the notes\nDue Friday. More notes.")
    assert turn.final_answer == text[len("Thought: ok\nFinal Answer: ") :].rstrip()


def test_a_question_in_the_answer_with_no_format_after_it_is_the_answers_own():
    text = "Final Answer: A quiz for you.\nQuestion 1: What is 2+2?\nAnswer: 4\nQuestion 2: And 3+3?"
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert turn.final_answer == text[len("Final Answer: ") :]


@pytest.mark.parametrize("label", ["### Final Answer", "**Final Answer**", "Final Answer", "## 最终答案"])
def test_final_answer_label_alone_on_its_line(label):
    text = f"Thought: I know the answer.\n\n{label}\nThe capital of France is Paris."
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert turn.final_answer == "The capital of France is Paris."


def test_a_final_answer_heading_in_prose_is_part_of_the_prose():
    assert parse_react("Step one.\n### Final Answer\n42").final_answer == "Step one.\n### Final Answer\n42"


def test_a_sentence_about_the_final_answer_is_not_its_label():
    assert parse_react("The final answer is below\n42").final_answer == "The final answer is below\n42"


def test_special_tokens_do_not_reach_the_answer():
    assert parse_react("Final Answer: done<|im_end|>").final_answer == "done"
    assert parse_react("Final Answer: done<|eot_id|>").final_answer == "done"


def test_empty_final_answer_is_a_problem():
    turn = parse_react("Thought: x\nFinal Answer:   ")
    assert turn.final_answer is None and turn.problem == PROBLEM_EMPTY_ANSWER


# ---- actions win, observations are cut -----------------------------------------------------------


def test_action_before_final_answer_wins():
    # crewai1545
    text = (
        'Thought: search\nAction: search\nAction Input: {"q": "x"}\n'
        "Observation: made up\nThought: I know\nFinal Answer: invented"
    )
    events = all_events([text])
    assert not [e for e in events if isinstance(e, AnswerDelta)]
    turn = parse_react(text)
    assert turn.final_answer is None and [a.name for a in turn.actions] == ["search"]


def test_action_before_final_answer_wins_without_observation_even_with_multiple_actions():
    text = 'Action: search\nAction Input: {"q": "x"}\nFinal Answer: invented'
    turn = parse_react(text, allow_multiple_actions=True)
    assert turn.final_answer is None and len(turn.actions) == 1


def test_only_first_action_by_default_and_invented_observation_cut():
    text = (
        'Thought: a\nAction: one\nAction Input: {"n": 1}\n'
        'Thought: b\nAction: two\nAction Input: {"n": 2}\nObservation: fake\nAction: three\nAction Input: {}'
    )
    assert [a.name for a in parse_react(text).actions] == ["one"]
    multi = parse_react(text, allow_multiple_actions=True)
    assert [(a.name, a.input) for a in multi.actions] == [("one", {"n": 1}), ("two", {"n": 2})]
    assert multi.thought == "a\n\nb"


def test_multiple_fenced_blobs_with_multiple_actions():
    text = (
        'Action:\n```json\n{"action": "a", "action_input": {}}\n```\n'
        'Action:\n```json\n{"action": "b", "action_input": {"x": 1}}\n```\n'
    )
    turn = parse_react(text, allow_multiple_actions=True)
    assert [(a.name, a.input) for a in turn.actions] == [("a", {}), ("b", {"x": 1})]
    assert turn.thought == ""


def test_observation_without_action_is_cut_and_reported():
    turn = parse_react("Thought: I will pretend\nObservation: sunny\nFinal Answer: It is sunny")
    assert turn.final_answer is None
    assert "Observation" in turn.problem


# ---- braces in thought text --------------------------------------------------------------------------


def test_braces_in_thought_text_do_not_start_capture():
    parser = ReactStreamParser()
    events = parser.feed("Thought: the set {1, 2} and list [3")
    assert texts(events, ThoughtDelta) == "the set {1, 2} and list [3"
    parser.feed("]\nFinal Answer: ok")
    parser.finish()
    turn = parser.result()
    assert turn.thought == "the set {1, 2} and list [3]" and turn.final_answer == "ok"


def test_unbalanced_brace_at_line_start_does_not_swallow_the_stream():
    turn = parse_react("Thought: x\n{ note: unbalanced\nFinal Answer: ok")
    assert turn.final_answer == "ok"
    assert turn.thought == "x\n{ note: unbalanced"


def test_bare_json_that_is_not_an_action_is_thought_text():
    text = 'Here is the data:\n{"name": "John", "age": 3}\nDone.'
    turn = parse_react(text)
    assert turn.actions == () and turn.final_answer == text


def test_bare_json_that_is_an_action():
    # deepseekv3-826: a call written in content, with a leaked special token
    turn = parse_react('{"name":"get_weather","parameters":{"location":"Hangzhou"}}<|eot_id|>')
    assert [(a.name, a.input) for a in turn.actions] == [("get_weather", {"location": "Hangzhou"})]


def test_bare_fenced_json_action():
    turn = parse_react('Thought: go\n```json\n{"action": "search", "action_input": {"q": "x"}}\n```')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_code_fence_in_prose_is_text():
    text = "Use this:\n```python\nprint({'a': 1})\n```"
    assert parse_react(text).final_answer == text


# ---- envelopes ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "blob",
    [
        '{"name": "webSearch", "arguments": "{\\"query\\": \\"dify\\"}"}',
        '{"function": {"name": "webSearch", "arguments": {"query": "dify"}}}',
        '{"type": "function", "id": "c1", "function": {"name": "webSearch", "arguments": "{\\"query\\": \\"dify\\"}"}}',
        '{"tool_call": {"function": {"name": "webSearch", "arguments": "{\\"query\\": \\"dify\\"}"}}}',
        '{"tool_calls": [{"function": {"name": "webSearch", "arguments": {"query": "dify"}}}]}',
        '{"tool_name": "webSearch", "tool_arguments": {"query": "dify"}}',
        '{"action": "webSearch", "args": {"query": "dify"}}',
        '{"action": "webSearch", "query": "dify"}',
        '{"tool": "webSearch", "tool_input": {"query": "dify"}}',
        '{"action": "tool_call", "action_input": {"function": {"name": "webSearch", "arguments": {"query": "dify"}}}}',
        '[{"action": "webSearch", "action_input": {"query": "dify"}}]',
    ],
)
def test_envelopes_after_action_label(blob):
    # dop3705: OpenAI-style envelopes, optionally wrapped, arguments possibly a JSON string
    turn = parse_react(f"Thought: t\nAction: {blob}")
    assert [(a.name, a.input) for a in turn.actions] == [("webSearch", {"query": "dify"})]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Tokyo"}}\n</tool_call>',
        "<tool_call><function=get_weather><parameter=city>Tokyo</parameter></function></tool_call>",
        '<action>\n<tool_name>get_weather</tool_name>\n<arguments><arg key="city">Tokyo</arg></arguments>\n</action>',
        "Thought: t\nAction:\n<action><tool_name>get_weather</tool_name><arguments><city>Tokyo</city></arguments></action>",
    ],
)
def test_tagged_calls(text):
    # mlxswift529 (JSON and XML inside <tool_call>), dspygo167 (<action> XML)
    turn = parse_react(text)
    assert [(a.name, a.input) for a in turn.actions] == [("get_weather", {"city": "Tokyo"})]


def test_tool_calls_list_gives_several_actions_when_allowed():
    blob = '{"tool_calls": [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"x": 1}}]}'
    assert [a.name for a in parse_react(f"Action: {blob}").actions] == ["a"]
    assert [a.name for a in parse_react(f"Action: {blob}", allow_multiple_actions=True).actions] == ["a", "b"]


def test_tagged_call_emitted_when_json_closes_and_closer_skipped():
    text = (
        '<tool_call>{"name": "a", "arguments": {}}</tool_call>\n<tool_call>{"name": "b", "arguments": {}}</tool_call>'
    )
    turn = parse_react(text, allow_multiple_actions=True)
    assert [a.name for a in turn.actions] == ["a", "b"] and turn.thought == ""


def test_dspy_multi_cycle_keeps_first_xml_action():
    # dspygo167
    text = (
        "## thought:\nI need to find the main entry point...\n\n## action:\n<action>\n"
        '<tool_name>search_files</tool_name>\n<arguments><arg key="pattern">*.go</arg></arguments>\n</action>\n\n'
        "## observation:\ncmd/app/main.go\ncmd/cli/main.go\n\n## thought:\nI found several files.\n\n## action:\n"
        '<action>\n<tool_name>read_file</tool_name>\n<arguments><arg key="file_path">cmd/app/main.go</arg>'
        "</arguments>\n</action>"
    )
    for multi in (False, True):
        turn = parse_react(text, allow_multiple_actions=multi)
        assert [(a.name, a.input) for a in turn.actions] == [("search_files", {"pattern": "*.go"})]
        assert turn.thought == "I need to find the main entry point..."


# ---- reasoning blocks ------------------------------------------------------------------------------------


def test_think_block_split_across_chunks():
    events = all_events(["<th", "ink>plan ", "it</thi", "nk>\nThought: go\nFinal Answer: done"])
    assert texts(events, ReasoningDelta) == "plan it"
    assert texts(events, ThoughtDelta).strip() == "go"
    assert texts(events, AnswerDelta) == "done"


@pytest.mark.parametrize("tag", ["think", "thinking", "reasoning", "THINK"])
def test_reasoning_tags(tag):
    turn = parse_react(f"<{tag}>secret Final Answer: no</{tag}>Final Answer: yes")
    assert turn.reasoning == "secret Final Answer: no"
    assert turn.final_answer == "yes"


def test_think_inside_the_answer_is_reasoning():
    turn = parse_react("Final Answer: A<think>hidden</think>B")
    assert turn.final_answer == "AB" and turn.reasoning == "hidden"


def test_unclosed_think_block_is_reasoning():
    turn = parse_react("Thought: x\n<think>still going, Final Answer: nope")
    assert turn.reasoning == "still going, Final Answer: nope"
    assert turn.final_answer is None and turn.thought == "x"
    turn = parse_react("<think>still going")
    assert turn.reasoning == "still going" and turn.problem == PROBLEM_ONLY_REASONING


def test_turn_inside_think_block_is_recovered():
    # nat2227
    per_feed, tail, turn = run(['<think>Thought: need data\nAction: search\nAction Input: {"q": "x"}', "</think>\n"])
    assert not [e for feed in per_feed for e in feed if isinstance(e, ActionFound)]
    assert [e.name for e in tail if isinstance(e, ActionFound)] == ["search"]
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]
    answer = parse_react("<think>Thought: easy\nFinal Answer: 4")
    assert answer.final_answer == "4" and answer.thought == "easy"


def test_plain_reasoning_with_nothing_visible_is_a_problem():
    turn = parse_react("<think>hmm, let me think</think>")
    assert turn.final_answer is None and turn.problem == PROBLEM_ONLY_REASONING


def test_stray_closing_think_tag_is_dropped():
    assert parse_react("</think>\nFinal Answer: ok").final_answer == "ok"


DRAFTED = ["Okay. Draft -> Final Answer: ", "cold? No, let me check", ".</think>\n\nThought: ok\nFinal Answer: Sunny."]


def test_labels_before_a_bare_closing_tag_were_reasoning_and_the_reply_after_it_is_the_turn():
    """A template that opened the block in the prompt (dify#17660) and a model that drafts a
    "Final Answer:" in its reasoning: the turn is what follows the bare </think>."""
    turn = run(DRAFTED)[2]
    assert turn.final_answer == "Sunny." and turn.thought == "ok"
    assert "Draft -> Final Answer: cold?" in turn.reasoning
    assert texts(all_events(DRAFTED), AnswerDelta).endswith("Sunny.")  # the draft had streamed: it cannot be taken back


def test_a_reply_held_for_a_block_opened_in_the_prompt_streams_nothing_of_its_reasoning():
    turn = run(DRAFTED, reasoning_opened=True)[2]
    assert texts(all_events(DRAFTED, reasoning_opened=True), AnswerDelta) == "Sunny." and turn.final_answer == "Sunny."
    assert turn.reasoning.startswith("Okay. Draft")


def test_an_action_after_the_bare_closing_tag_runs_and_a_drafted_answer_before_it_does_not():
    text = 'I could say Final Answer: probably sunny.</think>\nThought: check\nAction: get_weather\nAction Input: {"city": "Paris"}'
    for opened in (False, True):
        turn = parse_react(text, reasoning_opened=opened)
        assert [(a.name, a.input) for a in turn.actions] == [("get_weather", {"city": "Paris"})]
        assert turn.final_answer is None


def test_a_bare_closing_tag_with_nothing_after_it_keeps_the_turn_as_read():
    for text in ("Thought: x\nFinal Answer: Sunny.</think>", "Thought: x\nFinal Answer: Sunny.</think>\n\n"):
        assert parse_react(text).final_answer == "Sunny." and texts(all_events([text]), AnswerDelta) == "Sunny."


def test_a_held_reply_that_never_closes_its_block_is_read_as_any_reply():
    assert parse_react("Thought: t\nFinal Answer: plain", reasoning_opened=True).final_answer == "plain"


def test_a_held_reply_cut_before_its_closing_tag_is_all_reasoning():
    parser = ReactStreamParser(reasoning_opened=True)
    events = parser.feed("Let me think. Final Answer: maybe") + parser.finish(cut=True)
    assert texts(events, AnswerDelta) == "" and parser.result().final_answer is None
    assert parser.open_reasoning.startswith("Let me think.")


def test_call_markup_inside_the_final_answer_makes_the_turn_that_call():
    """Qwen-style: "Final Answer: Let me look it up. <tool_call>...": the model announces a
    call; the call runs (the announcement had streamed) instead of markup reaching the user."""
    text = 'Thought: check.\nFinal Answer: Let me look it up. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    parser = ReactStreamParser()
    for piece in (text[:40], text[40:70], text[70:]):
        parser.feed(piece)
    parser.finish()
    turn = parser.result()
    assert turn.final_answer is None and [(a.name, a.input) for a in turn.actions] == [("get_weather", {"city": "Paris"})]
    assert parser.revised and "Let me look it up." in turn.thought


def test_call_markup_written_as_code_in_the_final_answer_is_its_text():
    assert parse_react("Thought: x\nFinal Answer: Use `<tool_call>` tags.").final_answer == "Use `<tool_call>` tags."


@pytest.mark.parametrize("answer", ["Qwen models wrap each call in <tool_call> tags; vLLM reads them.",
                                    "An <action> element holds the step.", "Say <tool_call>\n- then a list"])
def test_a_call_tag_named_in_prose_in_the_final_answer_is_its_text(answer):
    text = "Thought: x\nFinal Answer: " + answer
    parser = ReactStreamParser()
    events = [e for piece in (text[:30], text[30:45], text[45:]) for e in parser.feed(piece)] + parser.finish()
    assert parser.result().final_answer == answer and texts(events, AnswerDelta) == answer


def test_a_bare_closing_tag_inside_an_action_input_is_the_inputs_text_not_the_end_of_reasoning():
    turn = parse_react('Thought: ok\nAction: get_weather\nAction Input: {"city": "Par</think>is"}')
    assert [a.name for a in turn.actions] == ["get_weather"] and turn.final_answer is None


def test_a_streamed_draft_and_the_answer_after_a_bare_closing_tag_are_a_paragraph_apart():
    events = all_events(["Thought: hmm\nFinal Answer: DRAFT\n</think>\n\nFinal Answer: REAL answer."])
    assert texts(events, AnswerDelta) == "DRAFT\n\nREAL answer."


def test_angle_brackets_in_text_are_kept():
    assert parse_react("a < b and <b>bold</b> <thinker>").final_answer == "a < b and <b>bold</b> <thinker>"


# ---- stop words and quotes ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tail", ["\nObserv", "\nObs", "\nObservation", "\nObservation:", "\nObservation: x", "\n"])
def test_partial_stop_word_and_quotes_stripped(tail):
    # qwen197
    text = "我需要计算这个字符串的长度。\nAction: get_word_length\nAction Input: 'hwchasfffffe17'" + tail
    turn = parse_react(text)
    assert [(a.name, a.input) for a in turn.actions] == [("get_word_length", "hwchasfffffe17")]
    assert turn.thought == "我需要计算这个字符串的长度。"


def test_partial_stop_word_after_answer_is_dropped():
    assert parse_react("Final Answer: 42\nObserv").final_answer == "42"


def test_multiline_text_input_runs_to_the_next_label():
    turn = parse_react("Action: python\nAction Input: x = 1\nprint(x)\nObservation: 1")
    assert turn.actions[0].input == "x = 1\nprint(x)"


# ---- Action: None --------------------------------------------------------------------------------------------


def test_action_none_gives_the_visible_text_as_answer():
    # llamaindexts858
    text = (
        "I need to use a tool to help me answer the question.\n\nAction: None\nAction Input: None\n\n"
        "Please let me know how I can assist you with your task or question."
    )
    per_feed, tail, turn = run([text])
    assert turn.actions == ()
    assert "Please let me know how I can assist you" in turn.final_answer
    assert "Action" not in turn.final_answer and "None" not in turn.final_answer
    assert texts(tail, AnswerDelta) == turn.final_answer
    assert not [e for e in per_feed[0] if isinstance(e, AnswerDelta)]


def test_action_none_never_leaks_thought_label():
    # crewai4186
    turn = parse_react("Thought: [reasoning about why tool can't be used]\nAction: None (direct response required)")
    assert turn.final_answer == "[reasoning about why tool can't be used]"
    assert turn.problem is None


@pytest.mark.parametrize("none", ["None", "N/A", "n/a", "none (direct response required)", "No action needed", "null"])
def test_action_none_variants(none):
    turn = parse_react(f"Thought: Hi there!\nAction: {none}\nAction Input: {{}}")
    assert turn.actions == () and turn.final_answer == "Hi there!"


def test_action_none_with_nothing_else_is_a_problem():
    turn = parse_react("Action: None")
    assert turn.final_answer is None and turn.problem == PROBLEM_NONE_EMPTY


def test_action_none_then_final_answer():
    turn = parse_react("Thought: chat\nAction: N/A\nFinal Answer: Hello!")
    assert turn.final_answer == "Hello!"


# ---- prose and problems --------------------------------------------------------------------------------------


def test_plain_prose_is_the_answer_emitted_at_finish():
    per_feed, tail, turn = run(["Hello! How ", "can I help?"])
    assert [texts(feed, AnswerDelta) for feed in per_feed] == ["", ""]
    assert texts(tail, AnswerDelta) == "Hello! How can I help?"
    assert turn.final_answer == "Hello! How can I help?" and turn.problem is None


def test_thought_only_is_a_problem():
    # dify29026 / dop746: never turn this into an answer
    turn = parse_react("Thought: I am thinking about how to help you")
    assert turn.final_answer is None and turn.problem == PROBLEM_THOUGHT_ONLY


def test_empty_reply_is_a_problem():
    turn = parse_react("  \n ")
    assert turn.final_answer is None and turn.problem == PROBLEM_EMPTY


def test_action_input_without_action_is_a_problem():
    # dop3699
    turn = parse_react('Thought: I need to search\nAction_input: {"input": "x"}')
    assert turn.actions == () and turn.final_answer is None
    assert turn.problem == PROBLEM_ORPHAN_INPUT
    assert turn.thought == "I need to search"


def test_action_input_without_action_but_holding_an_envelope_is_used():
    turn = parse_react('Thought: t\nAction Input: {"action": "search", "action_input": {"q": 1}}')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": 1})]


@pytest.mark.parametrize(
    "text", ["Thought: x\nAction:", "Thought: x\nAction:\nAction Input: {}", "Action:   \n\nThought: y"]
)
def test_action_without_name_is_a_problem(text):
    turn = parse_react(text)
    assert turn.actions == () and turn.problem == PROBLEM_NO_NAME


def test_action_json_without_tool_is_a_problem():
    turn = parse_react('Action: {"query": "x"}')
    assert turn.actions == () and turn.problem.startswith("Action JSON names no tool")


def test_action_garbage_json_is_a_problem():
    turn = parse_react("Action: {{{{")
    assert turn.actions == () and turn.problem.startswith("Action is not valid JSON")


def test_unclosed_action_json_is_repaired_at_the_end():
    turn = parse_react('Action: {"action": "search", "action_input": {"q": "x"')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_unbalanced_fenced_json_ends_at_the_fence():
    text = 'Action:\n```json\n{"action": "search", "action_input": {"q": "x"}\n```\nThought: more'
    turn = parse_react(text, allow_multiple_actions=True)
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]
    assert turn.thought == "more"


# ---- almost-JSON --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        # nat1666
        (
            "{'query': 'What is the exchange rate between USD and EUR?', 'task_id': None, 'context_id': None}",
            {"query": "What is the exchange rate between USD and EUR?", "task_id": None, "context_id": None},
        ),
        ("{'a': True, 'b': False,}", {"a": True, "b": False}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ('{"path": "hello\\_world.sh"}', {"path": "hello_world.sh"}),
        ('{"a": "line\\nbreak"}', {"a": "line\nbreak"}),
    ],
)
def test_almost_json_action_input(written, expected):
    turn = parse_react(f"Action: tool\nAction Input: {written}")
    assert turn.actions[0].input == expected


def test_apostrophe_in_single_quoted_string_does_not_break_capture():
    parser = ReactStreamParser()
    parser.feed("Action: tool\nAction Input: {'q': 'what's {up'")
    events = parser.feed("}")
    assert [e.name for e in events if isinstance(e, ActionFound)] == ["tool"]


def test_invalid_escape_in_bare_blob():
    # openhands260
    text = (
        '{\n"action": "think",\n"args": {\n"thought": "I should check if the \'hello\\_world.sh\' script '
        "exists in this directory by running 'ls'.\"\n}\n}"
    )
    turn = parse_react(text)
    assert turn.actions[0].name == "think"
    assert turn.actions[0].input == {
        "thought": "I should check if the 'hello_world.sh' script exists in this directory by running 'ls'."
    }


def test_schema_echo_is_left_to_the_caller():
    # llamaindex12699: decoded as far as possible; the strategy recognises the schema shape
    text = (
        "Thought: I need a tool.\nAction: current_date\nAction Input: {'type': 'object', 'properties': AttributedDict()}\n"
        "Observation: Error"
    )
    action = parse_react(text).actions[0]
    assert action.name == "current_date" and action.input["type"] == "object"


def test_a_repair_that_drops_text_is_not_run():
    # SmolLM2 on the task suite: json_repair would turn this into {"expression": 37}
    action = parse_react('Action: calculator\nAction Input: {"expression": 37 * 91}').actions[0]
    assert action.input == '{"expression": 37 * 91}'
    # a repair that keeps every word is used: unquoted text, Python literals
    action = parse_react("Action: get_weather\nAction Input: {'city': Lima Peru, 'metric': True}").actions[0]
    assert action.input == {"city": "Lima Peru", "metric": True}


def test_non_dict_inputs_become_strings():
    turn = parse_react("Action: tool\nAction Input: [1, 2]")
    assert turn.actions[0].input == "[1, 2]"


# ---- API ------------------------------------------------------------------------------------------------------


def test_result_before_finish_raises_and_feed_after_finish_is_ignored():
    parser = ReactStreamParser()
    parser.feed("Final Answer: x")
    with pytest.raises(RuntimeError):
        parser.result()
    parser.finish()
    assert parser.feed("more") == [] and parser.finish() == []
    assert parser.result().final_answer == "x"
    assert parser.result().raw == "Final Answer: x"


def test_raw_is_the_full_text():
    text = "<think>r</think>Thought: t\nAction: a\nAction Input: {}\nObservation: x"
    assert parse_react(text).raw == text


def test_adjacent_deltas_of_one_feed_are_merged():
    parser = ReactStreamParser()
    events = parser.feed("line one\nline two\nline <b> three")
    assert events == [ThoughtDelta("line one\nline two\nline <b> three")]


def test_final_answer_inside_a_line():
    turn = parse_react("Thought: I know it now. Final Answer: 42")
    assert turn.thought == "I know it now." and turn.final_answer == "42"
    parser = ReactStreamParser()
    assert parser.feed("Thought: done. Final") == [ThoughtDelta("done. ")]
    assert parser.feed(" Answer: yes") == [AnswerDelta("yes")]
    # only the exact spelling counts inside a line
    assert parse_react("Thought: the final answer: unclear").problem == PROBLEM_THOUGHT_ONLY


def test_inline_fence_after_action():
    turn = parse_react('Action: ```json{"action": "search", "action_input": {"q": "x"}}```')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_bracketed_name_text_yields_to_a_following_input():
    turn = parse_react('Action: search (the web)\nAction Input: {"q": "x"}')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_action_none_keeps_its_text_input_as_answer():
    turn = parse_react("Thought: small talk\nAction: None\nAction Input: Hello! How can I help?")
    assert turn.final_answer == "small talk\nHello! How can I help?"


def test_unbalanced_json_in_tool_call_ends_at_the_closing_tag():
    text = '<tool_call>{"name": "a", "arguments": {"x": 1}</tool_call>\nThought: next'
    turn = parse_react(text, allow_multiple_actions=True)
    assert [(a.name, a.input) for a in turn.actions] == [("a", {"x": 1})]
    assert turn.thought == "next"


def test_trailing_special_tokens_leave_names_and_inputs():
    turn = parse_react("Action: get_time<|eot_id|>")
    assert [(a.name, a.input) for a in turn.actions] == [("get_time", None)]
    turn = parse_react("Action: search\nAction Input: cats<|im_end|>")
    assert turn.actions[0].input == "cats"


def test_call_form_keyword_arguments():
    turn = parse_react('Thought: go\nAction: search(query="Paris weather", limit=5)')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"query": "Paris weather", "limit": 5})]


def test_only_possible_marker_starts_are_held_back():
    parser = ReactStreamParser()
    assert parser.feed("Thought: abc") == [ThoughtDelta("abc")]
    assert parser.feed("\nAc") == [ThoughtDelta("\n")]
    assert parser.feed("me corp <thi") == [ThoughtDelta("Acme corp ")]
    assert parser.feed("s> is a tag-like word\n## Obs") == [ThoughtDelta("<this> is a tag-like word\n")]
    assert parser.feed("cure") == [ThoughtDelta("## Obscure")]


@pytest.mark.parametrize("opening", ['{"note": "unterminated', '{"a": 1', '[{"a": [1'])
def test_unclosed_bare_object_gives_way_to_a_label(opening):
    turn = parse_react(f"Thought: x\n{opening}\nFinal Answer: ok")
    assert turn.final_answer == "ok" and turn.thought == f"x\n{opening}"


@pytest.mark.parametrize(
    ("text", "thought", "actions", "answer"),
    [
        ('思考：我需要计算。\n行动：calculator\n行动输入：{"expression": "2+2"}', "我需要计算。",
         [("calculator", {"expression": "2+2"})], None),
        ('思考: 好的\n动作: calculator\n动作输入: {"expression": "1"}\n观察结果：2\n最终答案：2', "好的",
         [("calculator", {"expression": "1"})], None),  # the invented observation and what follows are cut
        ("思考：已经知道了\n最终回答：答案是 4。", "已经知道了", [], "答案是 4。"),
        ("思考是很重要的。答案是 4。", "", [], "思考是很重要的。答案是 4。"),  # words in prose are not labels
        ("思考：我知道了。\n答案：巴黎晴天。", "我知道了。", [], "巴黎晴天。"),  # "Answer:" alone, in Chinese
        ("Thought: 好\n回答: 巴黎晴天。", "好", [], "巴黎晴天。"),
        ("思考：好\n答案是巴黎晴天。", "", [], None),  # no colon: a sentence of the thought
    ],
)
def test_labels_written_in_chinese(text, thought, actions, answer):
    """Models prompted in Chinese may write 思考/行动/行动输入/观察/最终答案 for the labels."""
    turn = parse_react(text)
    assert [(action.name, action.input) for action in turn.actions] == actions
    assert turn.final_answer == answer
    if thought:
        assert turn.thought == thought


@pytest.mark.parametrize(
    ("text", "thought", "answer"),
    [
        ("Thought: The user greets me.\nAnswer: Hello! How can I help?", "The user greets me.", "Hello! How can I help?"),
        ("Thought: simple sum\n**Answer:** 4", "simple sum", "4"),
        ("Final Answer: Q: what is 2+2?\nAnswer: 4", "", "Q: what is 2+2?\nAnswer: 4"),  # inside an answer: text
        ("The answer: it depends on the day.", None, "The answer: it depends on the day."),  # not a label
    ],
)
def test_an_answer_label_without_final_is_the_final_answer(text, thought, answer):
    """Smaller models write ``Answer:`` for ``Final Answer:``; before, the turn was refused as a
    thought without an action and the model asked again."""
    turn = parse_react(text)
    assert turn.final_answer == answer and turn.actions == () and turn.problem is None
    if thought is not None:
        assert turn.thought == thought


@pytest.mark.parametrize("fence", ["```", "```text"])
def test_a_tool_name_alone_in_a_fence_is_the_action_name(fence):
    text = f'Thought: look it up\nAction:\n{fence}\nweb_search\n```\nAction Input:\n```json\n{{"q": "dify"}}\n```'
    turn = parse_react(text)
    assert [(a.name, a.input) for a in turn.actions] == [("web_search", {"q": "dify"})]
    assert turn.problem is None


def test_prose_in_an_action_fence_is_still_a_problem():
    turn = parse_react("Thought: t\nAction:\n```\nI will search the web now\n```")
    assert turn.actions == () and "could not be read" in turn.problem


@pytest.mark.parametrize(
    ("text", "thought", "answer"),
    [
        ('{"thought": "I know this", "final_answer": "Paris"}', "I know this", "Paris"),
        ('```json\n{"Thought": "t", "Final Answer": "It is **42**."}\n```', "t", "It is **42**."),
        ('{"finalAnswer": {"city": "Paris", "country": "France"}}', "", '{"city": "Paris", "country": "France"}'),
    ],
)
def test_thought_and_final_answer_written_as_one_json_object(text, thought, answer):
    turn = parse_react(text)
    assert turn.final_answer == answer and turn.actions == () and turn.problem is None
    assert turn.thought == thought


@pytest.mark.parametrize(
    "text",
    ['{"thought": "t", "answer": "Paris"}', '{"final_answer": "Paris", "sources": ["a"]}', '{"city": "Paris"}'],
)
def test_other_json_objects_stay_the_answer_as_written(text):
    """An object with any other key may be the JSON the user asked for: it is the answer, whole."""
    assert parse_react(text).final_answer == text


@pytest.mark.parametrize("label", ["Input:", "**Parameters:**", "Arguments:", "Args:", "Tool Input:", "params："])
def test_an_input_label_other_than_action_input_right_under_the_name(label):
    """Models write "Input:" or "Parameters:" for "Action Input:"; the input is not lost."""
    turn = parse_react(f'Thought: t\nAction: search\n{label} {{"q": "x"}}')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"q": "x"})]


def test_input_words_elsewhere_are_not_labels():
    turn = parse_react("Thought: Input: the user asked twice.\nFinal Answer: done")
    assert turn.final_answer == "done" and turn.thought == "Input: the user asked twice."
    turn = parse_react("Thought: t\nAction: search\nInputs are ready.")
    assert [(a.name, a.input) for a in turn.actions] == [("search", None)]


def test_phi4_minis_call_list_is_its_actions():
    # Phi-4-mini writes its calls as functools[...] (the form vLLM's phi4_mini_json parser reads)
    text = 'Thought: two lookups\nfunctools[{"name": "a", "arguments": {"x": 1}}, {"name": "b", "arguments": {}}]'
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks, allow_multiple_actions=True)
        assert [(a.name, a.input) for a in turn.actions] == [("a", {"x": 1}), ("b", {})]
    assert parse_react("functools is a module").final_answer == "functools is a module"


def test_the_format_inside_a_code_block_of_the_answer_is_the_answers_own():
    # "show me the ReAct format": the answer quotes it in a code block
    text = (
        "Thought: the user wants an example\nFinal Answer: Here is one:\n```\nQuestion: weather?\n"
        "Thought: I need the weather\nAction Input: {\"city\": \"Paris\"}\nObservation: sunny\n```\nThat is all."
    )
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert turn.final_answer == text[text.index("Here is one") :]


def test_markdown_escapes_in_an_action_name_are_not_part_of_it_nor_of_its_text_input():
    # MindsDB PR #9753 (Mistral): the whole action written as markdown
    text = "Do I need to use a tool? Yes\nAction: mindsdb\\_sql\\_tool\nAction Input: SELECT AVG(sales\\_price) FROM t;"
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert [(a.name, a.input) for a in turn.actions] == [("mindsdb_sql_tool", "SELECT AVG(sales_price) FROM t;")]
    inline = parse_react("Action: mindsdb\\_sql\\_tool Action Input: SELECT a\\_b FROM t;")
    assert [(a.name, a.input) for a in inline.actions] == [("mindsdb_sql_tool", "SELECT a_b FROM t;")]


def test_an_input_keeps_its_backslashes_when_its_name_has_no_markdown_escape():
    sql = "SELECT * FROM t WHERE a LIKE 'x\\_%' ESCAPE '\\';"
    turn = parse_react(f"Action: sql_tool\nAction Input: {sql}")
    assert [(a.name, a.input) for a in turn.actions] == [("sql_tool", sql)]


def test_a_tool_code_tag_is_read_as_a_tool_call_tag():
    turn = parse_react('<tool_code>get_weather(city="Paris")</tool_code>')
    assert [(a.name, a.input) for a in turn.actions] == [("get_weather", {"city": "Paris"})]
    broken = parse_react("<tool_code>\n/tool_code>")  # 1CatAI/1Cat-vLLM#26: asked again, not the answer
    assert broken.final_answer is None and broken.problem


def test_an_action_written_as_code_in_backticks_is_read_as_without_them():
    # datawhalechina/hello-agents#127 (Qwen3-8B)
    turn = parse_react("Thought: 用户想知道北京的天气。\nAction: `get_weather[北京]`")
    assert [(a.name, a.input) for a in turn.actions] == [("get_weather", "北京")]


@pytest.mark.parametrize(
    "text",
    [
        'Action:\n```\n$JSON_BLOB  \n{\n  "action": "search", \n  "action_input": "weather in Paris"\n}\n```',
        'Thought: check.\nAction:\n$JSON_BLOB\n```{"action": "search", "action_input": "weather in Paris"}```',
        'Action: $JSON_BLOB\n```json\n{"action": "search", "action_input": "weather in Paris"}\n```',
    ],
)
def test_a_placeholder_copied_above_the_action_json_is_not_part_of_the_call(text):
    # langchain-ai/langchainjs#1399: Claude copies the prompt's "$JSON_BLOB" into its block
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert [(a.name, a.input) for a in turn.actions] == [("search", "weather in Paris")]


def test_call_markup_in_a_final_answer_naming_no_tool_of_the_node_is_the_answers_text():
    answer = 'To call a tool, write <tool_call>{"name": "get_x", "arguments": {}}</tool_call> in your reply.'
    parser = ReactStreamParser(tool_names={"get_weather"})
    events = parser.feed("Thought: x\nFinal Answer: " + answer) + parser.finish()
    assert parser.result().final_answer.startswith("To call a tool, write <tool_call>")
    assert parser.result().actions == () and texts(events, AnswerDelta).endswith("in your reply.")
    announced = ReactStreamParser(tool_names={"get_weather"})
    announced.feed('Thought: x\nFinal Answer: Checking. <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call>')
    announced.finish()
    assert [a.name for a in announced.result().actions] == ["get_weather"]


@pytest.mark.parametrize(
    "answer",
    [
        "Qwen closes each turn with `<|im_end|>` and opens the next with `<|im_start|>`.",
        "The template:\n```\n<|im_start|>user\nhi<|im_end|>\n</tool_call>\n```\nThat is all.",
    ],
)
def test_special_tokens_a_final_answer_shows_as_code_are_kept(answer):
    """An answer about chat templates shows their tokens in code; they were dropped from it."""
    text = f"Thought: explain the template.\nFinal Answer: {answer}"
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert turn.final_answer == answer
    _, _, turn = run(["Thought: ok\nFinal Answer: Paris.<|im_end|>"])
    assert turn.final_answer == "Paris."  # outside code: dropped


@pytest.mark.parametrize("pieces", [["Thought: x </think>"], list("Thought: x </think>")])
def test_reasoning_closed_in_a_chunk_before_the_hold_is_released_stays_reasoning(pieces):
    """``reasoning_opened``: a chunk ends with the block's ``</think>`` (whole, or its last
    character), then reasoning comes apart (``note_reasoning_apart``): the text before the tag is
    reasoning, never thought, and none of the reply is streamed twice."""
    parser = ReactStreamParser(reasoning_opened=True)
    events = [event for piece in pieces for event in parser.feed(piece)]
    parser.note_reasoning_apart()
    events += parser.feed("y\nFinal Answer: ok") + parser.finish()
    turn = parser.result()
    assert texts(events, ReasoningDelta) == "Thought: x " and turn.reasoning == "Thought: x"
    assert texts(events, ThoughtDelta) == "y\n" and turn.final_answer == "ok"


@pytest.mark.parametrize(
    "answer",
    [
        "Kimi K2's section tokens:\n\n```\n<|tool_calls_section_begin|>functions.search:0<|tool_calls_section_end|>\n```",
        "Llama 3.1 writes:\n```\n<|python_tag|>brave_search.call(query=\"x\")<|eom_id|>\n```\nfor a built-in tool.",
    ],
)
def test_special_tokens_an_unlabelled_answer_shows_in_a_fence_are_kept(answer):
    """A reply with no label is its answer once read whole: tokens it shows in a fenced block were
    dropped from it while it was read as text."""
    for chunks in ([answer], list(answer), [answer[i : i + 7] for i in range(0, len(answer), 7)]):
        _, _, turn = run(chunks)
        assert turn.final_answer == answer and not turn.actions


def test_a_call_token_after_a_closed_fence_still_announces_a_call():
    text = 'See:\n```\nx\n```\n<|python_tag|>{"name": "search", "parameters": {"query": "x"}}'
    for chunks in ([text], list(text)):
        _, _, turn = run(chunks)
        assert [(a.name, a.input) for a in turn.actions] == [("search", {"query": "x"})]


def test_a_call_quoted_in_a_blockquote_is_text_and_a_call_after_it_runs():
    quoted = '> <tool_call>\n> {"name": "search", "arguments": {"query": "x"}}\n> </tool_call>\n\nThat is what it printed.'
    call = '<tool_call>\n{"name": "search", "arguments": {"query": "y"}}\n</tool_call>'
    for text in (quoted, f"Final Answer: {quoted}"):
        for chunks in ([text], list(text)):
            _, _, turn = run(chunks, tool_names=["search"])
            assert turn.final_answer == quoted and not turn.actions
    for chunks in ([f"{quoted}\n{call}"], list(f"{quoted}\n{call}")):
        _, _, turn = run(chunks, tool_names=["search"])
        assert [(a.name, a.input) for a in turn.actions] == [("search", {"query": "y"})]


def test_a_closing_tag_in_an_indented_block_of_the_answer_is_kept():
    answer = "The raw output was:\n\n    <tool_call>\n    {}\n    </tool_call>\n\nSo the parser was off."
    for chunks in ([f"Final Answer: {answer}"], list(f"Final Answer: {answer}")):
        _, _, turn = run(chunks)
        assert turn.final_answer == answer
