"""agent_core.react.turn: a ReAct reply read into what the round does."""

import time

from agent_core.model_call import ModelChunk
from agent_core.react import turn as turn_module
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ToolCalls
from tests.unit.helpers import drain, failing, shown_before_failure


def test_a_reply_of_thousands_of_actions_is_turned_into_calls_giving_way_between_two(monkeypatch):
    """A 5 MB reply of 50,000 Action blocks was turned into calls in 0.75 s without letting another
    session of the process run."""
    ways = []
    monkeypatch.setattr(turn_module, "give_way", lambda: ways.append(1))
    reply = "".join(
        f'Thought: step {n}\nAction:\n```json\n{{"action": "lookup", "action_input": {{"q": "{n}"}}}}\n```\n'
        for n in range(400)
    )
    _, turn = drain(read_react_turn(iter([ModelChunk(text=reply), ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))
    assert isinstance(turn.decision, ToolCalls) and len(turn.decision.calls) == 400
    assert len(ways) >= 400


def _reading_time(reply):
    """Best of three: CPU seconds to read ``reply``, sent as one chunk, into a turn (other
    processes on the machine do not count)."""
    best = float("inf")
    for _ in range(3):
        chunks = iter([ModelChunk(text=reply), ModelChunk(finish_reason="stop")])
        start = time.process_time()
        drain(read_react_turn(chunks, ToolRegistry(None), 1))
        best = min(best, time.process_time() - start)
    return best


def test_a_reply_of_nested_brackets_is_read_about_as_fast_as_prose_of_its_size():
    """200 KB of ``[{(`` never closed took 14 s (1 MB 162 s, past the run's deadline, which is
    only checked between chunks): its repair at the end rescanned the rest of the text at each
    level. ``Action Input: {{{...`` took 400 µs a character. Both are now read within a small
    multiple of the same length of prose (measured 60 to 80 times: prose takes 10 ns a
    character; these about 2 µs, the cost of reading brackets at all)."""
    size = 200_000
    line = "Some reasoning about the weather in Paris, and what the user asked for next.\n"
    prose = _reading_time((line * (size // len(line) + 1))[:size])
    for reply in ("[{(" * (size // 3), "Thought: x\nAction: search\nAction Input: " + "{" * size):
        took = _reading_time(reply)
        assert took < 600 * max(prose, 2e-4), (reply[:40], took, prose)


def test_a_labelled_final_answer_ending_in_a_call_list_stays_the_answer_it_was_shown_as():
    """After ``Final Answer:`` the answer streams to the user as it comes; a Llama-style call list
    at its end (``[get_weather(city="Paris")]``) was then run as well, so the user saw an answer
    that the run went on past. Unlabelled, the same list after a sentence is held and run."""
    from tests.unit.test_real_world_2026 import Case, read, tool

    weather = (tool("get_weather", "city"),)
    answer = 'To check it yourself, call [get_weather(city="Paris")]'
    for size in (None, 1, 7):
        streamed, turn = read("react", Case(weather, f"Thought: done\nFinal Answer: {answer}"), size)
        assert turn.decision == FinalAnswer(answer) and streamed.strip() == answer
        streamed, turn = read("react", Case(weather, 'Here is the call: [get_weather(city="Paris")]'), size)
        assert isinstance(turn.decision, ToolCalls) and streamed == ""
        assert [(c.name, c.arguments) for c in turn.decision.calls] == [("get_weather", {"city": "Paris"})]


def test_an_unlabelled_reply_is_shown_when_the_stream_fails():
    """Unlabelled text is held to the reply's end (it may still become a Thought): a stream
    failing mid-reply lost it."""
    reader = read_react_turn(failing(["The warranty ", "covers two years of"]), ToolRegistry(None), 1)
    assert shown_before_failure(reader) == "The warranty covers two years of"


def test_a_thought_an_action_or_unclosed_reasoning_is_not_shown_when_the_stream_fails():
    registry = ToolRegistry(None)
    for pieces, opened in ((["Thought: I should look this up."], False),
                           (["Thought: look.\nAction: lookup\nAction Input: {\"q\": \"pa"], False),
                           (['Thought: look.\nAction:\n```json\n{"action": "lookup", "action_input": {"q": "x"}}\n```\n'], False),
                           (["Okay, the user wants the weather."], True)):
        reader = read_react_turn(failing(pieces), registry, 1, reasoning_opened=opened)
        assert shown_before_failure(reader) == "", pieces


def test_a_cut_reply_with_no_action_and_no_answer_is_asked_again_as_cut():
    """A reply the limit cut inside its closed reasoning block, in a Thought, or before anything:
    the model must hear it was cut (write less), not only that a step is missing."""
    from agent_core import prompts
    from agent_core.turn import ParseFailure

    for text in ("<think>\nI should look up the numbers\n</think>\n\n", "Thought: I should look up", ""):
        chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason="length")])
        streamed, turn = drain(read_react_turn(chunks, ToolRegistry(None), 1))
        assert streamed == "" and turn.decision == ParseFailure(prompts.REPLY_CUT), text


def _cut_turn(text):
    chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason="length")])
    return drain(read_react_turn(chunks, ToolRegistry(None), 1))


def test_an_answer_that_ended_before_the_limit_cut_the_reply_is_whole():
    """The model wrote on past its answer into an invented observation, and the limit cut that:
    the answer is complete (the run used to ask for its "rest" and show the model's continuation
    of the dropped observation as the answer's end)."""
    for tail in ("\nObservation: The user se", "\nObservation: ok.\nThought: I sho", "\nThought: Now I sh"):
        shown, turn = _cut_turn("Thought: I know it.\nFinal Answer: Paris is the capital of France." + tail)
        assert isinstance(turn.decision, FinalAnswer), tail
        assert turn.decision.text.strip() == "Paris is the capital of France."
        assert turn.at_limit and not turn.cut and turn.answer_whole, tail
        assert "".join(shown).strip() == "Paris is the capital of France."


def test_a_json_final_answer_closed_before_the_cut_is_whole():
    reply = ('Thought: done.\nAction:\n```json\n{"action": "Final Answer", "action_input": "Paris."}\n```\n'
             "Observation: the us")
    _, turn = _cut_turn(reply)
    assert isinstance(turn.decision, FinalAnswer) and turn.decision.text.strip() == "Paris."
    assert not turn.cut


def test_an_answer_the_limit_cut_is_still_cut():
    for reply in ("Thought: I know it.\nFinal Answer: Paris is the capital of", "Final Answer: The list:\n- one\n- tw",
                  "Final Answer: It holds:\n```\nObservation: x"):  # a label inside code is the answer's
        _, turn = _cut_turn(reply)
        assert isinstance(turn.decision, FinalAnswer), reply
        assert turn.cut and not turn.answer_whole, reply


def test_an_answer_followed_by_a_step_the_limit_cut_stays_cut():
    """An action the model began after its answer may be what it needed: the reply stays cut (the
    loop ends a continuation cut so with its notice)."""
    for tail in ('\nAction: search\nAction Input: {"q": "x', '\nAction Input: {"q": "x'):
        _, turn = _cut_turn("Final Answer: Paris is the capital of France." + tail)
        assert turn.cut and not turn.answer_whole, tail


def _read(text, pieces=1):
    size = -(-len(text) // pieces)
    chunks = [ModelChunk(text=text[at : at + size]) for at in range(0, len(text), size)]
    return drain(read_react_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ToolRegistry(None), 1))


def test_an_action_written_after_the_final_answer_is_kept_for_the_log_not_run():
    """A Final Answer followed by an Action: the answer is shown and the action not run (right),
    but the action was dropped without a trace, so the log could not tell why nothing ran. The turn
    keeps what came after the answer and names the action's tool."""
    reply = 'Thought: I know it.\nFinal Answer: Paris.\nAction: search\nAction Input: {"q": "Lyon"}'
    for pieces in (1, 7, len(reply)):
        shown, turn = _read(reply, pieces)
        assert shown.strip() == "Paris." and turn.decision == FinalAnswer("Paris.")
        assert turn.after_answer == 'Action: search\nAction Input: {"q": "Lyon"}', pieces
        assert turn.calls_after_answer == ("search",)


def test_what_a_reply_wrote_on_after_its_answer_is_kept_and_an_answer_alone_keeps_nothing():
    _, observed = _read("Final Answer: 42\nObservation: the user said thanks")
    assert (observed.after_answer, observed.calls_after_answer) == ("Observation: the user said thanks", ())
    _, stepped = _read("Final Answer: 42\nThought: check it\nAction: calc\nAction Input: 6*7")
    assert stepped.calls_after_answer == ("calc",) and stepped.after_answer.startswith("Thought: check it")
    _, json_answer = _read('```json\n{"action": "Final Answer", "action_input": "42"}\n```\nAction: calc\nAction Input: 6*7')
    assert json_answer.decision == FinalAnswer("42") and json_answer.after_answer == "Action: calc\nAction Input: 6*7"
    for alone in ("Final Answer: 42", "Thought: x\nFinal Answer: Steps:\nAction: call the supplier\nThen wait."):
        _, turn = _read(alone)
        assert isinstance(turn.decision, FinalAnswer) and (turn.after_answer, turn.calls_after_answer) == ("", ()), alone
