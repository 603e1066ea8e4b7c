"""Memory across runs, tested as a chatflow lives it: run N's answer (what the plugin streamed
as text, what an Answer node shows and Dify stores as the message's answer) comes back on run
N+1 as ``history_prompt_messages`` with the user's query (Dify's ``TokenBufferMemory``, protocol
notes §5), and the next run must send it to the model clean and in a shape its provider accepts.

Each case plays two or three runs in a row through the real plugin process: the first run ends
in an angle (a cut answer, the iteration limit, a model error, a ReAct answer, a JSON answer),
the next one uses the other strategy or another provider contract (``local_runner/contracts``)
that must accept the memory. Angles other files already cover (secrets, reasoning, files for a
model without vision, trimming to the window) are left to them.
"""

import json

import pytest

from local_runner import ModelSettings, Scenario, default_toolbox, run_scenario
from local_runner.backends import content_text
from local_runner.contracts import CONTRACTS
from local_runner.contracts.base import TaskBrain
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, assert_clean_end

OTHER = {"function_calling": "ReAct", "ReAct": "function_calling"}
IMAGE_PART = {"type": "image", "format": "png", "base64_data": "iVBORw0KGgo=", "url": "", "mime_type": "image/png",
              "detail": "low", "filename": "cat.png"}


def memory(*turns: tuple[str, str]) -> list[dict]:
    """``history_prompt_messages`` as Dify's memory builds it: per turn, the user's query and
    the answer the node output."""
    out: list[dict] = []
    for query, answer in turns:
        out += [{"role": "user", "content": query}, {"role": "assistant", "content": answer}]
    return out


def conversation(request: dict) -> list[dict]:
    """The request's prompt messages without the system message(s)."""
    return [m for m in request["prompt_messages"] if m["role"] != "system"]


def check_memory_shape(request: dict) -> None:
    """What every provider accepts: no empty assistant message, no tool result without its call
    just before, no tool call left without its result, and (apart from a tool round) user and
    assistant take turns, starting with the user."""
    messages = conversation(request)
    pending: set[str] = set()
    previous = None
    for message in messages:
        role = message["role"]
        if role == "assistant":
            assert content_text(message.get("content")).strip() or message.get("tool_calls"), messages
            assert not pending, messages
            pending = {call["id"] for call in message.get("tool_calls") or []}
        elif role == "tool":
            assert message.get("tool_call_id") in pending, messages
            pending.discard(message["tool_call_id"])
        else:
            assert not pending, messages
        if role in ("user", "assistant") and previous in ("user", "assistant"):
            assert role != previous, [m["role"] for m in messages]
        previous = role if role != "tool" else "user"
    assert messages and messages[0]["role"] == "user", messages


def history_texts(request: dict) -> str:
    """Every message of the request before the run's own query, as one string."""
    return json.dumps(conversation(request)[:-1], ensure_ascii=False)


def contract_run(plugin, contract: str, strategy: str, history: list[dict], query: str = "What is 37 * 91?"):
    """One run through provider ``contract`` with the calculator and ``history`` as memory."""
    backend = CONTRACTS[contract](shape="stream", brain=TaskBrain())
    model = ModelSettings(**CONTRACTS[contract].model_settings())
    scenario = Scenario(query=query, tools=["calculator"], strategy=strategy, model=model, history=list(history))
    result = run_scenario(scenario, backend, default_toolbox(), plugin=plugin, timeout=60)
    assert backend.rejections == [], [str(r) for r in backend.rejections]
    assert_clean_end(result)
    assert "3367" in result.text, result.text
    return backend, result


# -- a cut answer and its continuation -----------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_cut_answer_and_its_continuation_come_back_as_one_answer(run, strategy):
    """Run 1's answer stopped at the output limit and was continued; memory holds what the user
    read, and run 2 (the other strategy) sends it as one assistant message, whole."""
    first_part = "The capital of Australia is Canberra, chosen in 1908 as a compromise between"
    cut = {"text": first_part if strategy == "function_calling" else f"Thought: I know.\nFinal Answer: {first_part}",
           "finish_reason": "length"}
    rest = {"text": " Sydney and Melbourne."}
    first = run([cut, rest, rest], "What is the capital of Australia?", strategy=strategy)
    assert_clean_end(first)
    assert "Canberra" in first.text and "Melbourne" in first.text, first.text

    other = OTHER[strategy]
    second = run([answer_turn(other, "It has about 470,000 people.")], "How big is it?", strategy=other,
                 history=memory(("What is the capital of Australia?", first.text)))
    assert_clean(second, run)
    request = run.backend.requests[0]
    check_memory_shape(request)
    (assistant,) = [m for m in conversation(request) if m["role"] == "assistant"]
    assert "Canberra" in content_text(assistant["content"]) and "Melbourne" in content_text(assistant["content"])


# -- the iteration limit ---------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_iteration_limit_answer_in_memory_is_replayed_as_plain_text(run, strategy):
    """Run 1 hit the iteration limit: its answer (whatever the user read) is memory; run 2 with
    the other strategy sends it as an assistant text, no tool-call scaffolding, and answers."""
    if strategy == "function_calling":
        calling = {"text": "", "tool_calls": [{"id": "c1", "name": "calculator", "arguments": {"expression": "1+1"}}]}
    else:
        calling = {"text": 'Thought: compute.\nAction: calculator\nAction Input: {"expression": "1+1"}'}
    first = run([calling, answer_turn(strategy, "So far: 2."), answer_turn(strategy, "So far: 2.")],
                "Add one and one", ["calculator"], strategy=strategy, maximum_iterations=1)
    assert_clean_end(first)
    assert first.text.strip(), "the user must read something at the iteration limit"

    other = OTHER[strategy]
    second = run([answer_turn(other, "It was 2.")], "What was it again?", ["calculator"], strategy=other,
                 history=memory(("Add one and one", first.text)))
    assert_clean(second, run)
    request = run.backend.requests[0]
    check_memory_shape(request)
    replay = history_texts(request)
    assert "Action Input" not in replay and "Final Answer:" not in replay, replay


# -- a run that ended with an error ---------------------------------------------------------


@pytest.mark.parametrize("contract", ["anthropic", "bedrock", "gemini", "mistralai", "hunyuan"])
def test_failed_run_with_empty_answer_in_memory_is_accepted_by_strict_providers(plugin, contract):
    """A run that failed before any answer leaves Dify's memory with its query and an empty
    answer; the next run must not send an empty assistant message nor two user messages in a
    row to a provider that refuses them."""
    history = memory(("What is 2 + 2?", ""), ("And 3 + 3?", "6"))
    backend, _ = contract_run(plugin, contract, "function_calling", history)
    check_memory_shape(backend.requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_model_error_then_next_run_replays_only_what_the_user_read(run, strategy):
    """Run 1 streams a partial answer, then the model fails: the run ends with an error. The
    partial text the user read is memory for run 2 (the other strategy), which answers; the
    error's wording is not replayed as the model's own words."""
    first = run([{"chunks": [{"content": "Partial: the first step is "}], "error": "upstream 502"}],
                "Explain step by step", strategy=strategy)
    assert not first.ok
    assert first.unfinished_logs() == []
    other = OTHER[strategy]
    second = run([answer_turn(other, "Here it is again.")], "Try again", strategy=other,
                 history=memory(("Explain step by step", first.text)))
    assert_clean(second, run)
    check_memory_shape(run.backend.requests[0])
    replay = history_texts(run.backend.requests[0])
    assert "Partial: the first step is" in replay and "upstream 502" not in replay, replay


# -- ReAct answer clean in memory ------------------------------------------------------------


def test_react_answer_is_clean_and_function_calling_reads_it_as_is(run):
    """Run 1 (ReAct) answers after a tool; the user read only the final answer. Run 2 (Function
    Calling) replays it verbatim: no Thought/Action/Observation words."""
    first = run([{"text": 'Thought: compute.\nAction: calculator\nAction Input: {"expression": "6*7"}'},
                 {"text": "Thought: done.\nFinal Answer: It is **42**.\n\n- checked once"}],
                "What is 6*7?", ["calculator"], strategy="ReAct")
    assert_clean(first, run)
    assert first.text.strip() == "It is **42**.\n\n- checked once", first.text
    second = run([{"text": "Yes."}], "Sure?", ["calculator"], history=memory(("What is 6*7?", first.text)))
    assert_clean(second, run)
    (assistant,) = [m for m in conversation(run.backend.requests[0]) if m["role"] == "assistant"]
    assert content_text(assistant["content"]).strip() == first.text.strip()


def test_function_calling_answer_with_react_words_is_memory_for_react(run):
    """Run 1 (Function Calling) answered with text that looks like ReAct markup (it explains the
    format); run 2 (ReAct) gets it as memory, not as its own scratchpad, and finishes."""
    answer = "A ReAct step looks like:\nThought: ...\nAction: search\nAction Input: {\"q\": \"x\"}"
    first = run([{"text": answer}], "Show me a ReAct step")
    assert_clean(first, run)
    second = run([answer_turn("ReAct", "Done explaining.")], "Thanks", ["calculator"], strategy="ReAct",
                 history=memory(("Show me a ReAct step", first.text)))
    assert_clean(second, run)
    assert second.text == "Done explaining."
    assert second.tool_requests == []


# -- a JSON structured answer ----------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_json_answer_in_memory_is_replayed_intact(run, strategy):
    """Run 1 answered to a JSON schema; the JSON text is memory and run 2 (the other strategy,
    no schema) sends it back byte for byte."""
    schema = {"type": "object", "properties": {"city": {"type": "string"}, "pop": {"type": "integer"}},
              "required": ["city", "pop"]}
    params = {"temperature": 0.2, "max_tokens": 1024, "json_schema": json.dumps(schema)}
    body = '{"city": "Oslo", "pop": 709000}'
    first = run([answer_turn(strategy, body), answer_turn(strategy, body)], "Biggest Norwegian city?", strategy=strategy,
                model={"completion_params": params})
    assert_clean_end(first)
    assert json.loads(first.text) == {"city": "Oslo", "pop": 709000}, first.text
    other = OTHER[strategy]
    second = run([answer_turn(other, "Oslo.")], "Name only", strategy=other,
                 history=memory(("Biggest Norwegian city?", first.text)))
    assert_clean(second, run)
    (assistant,) = [m for m in conversation(run.backend.requests[0]) if m["role"] == "assistant"]
    assert json.loads(content_text(assistant["content"])) == {"city": "Oslo", "pop": 709000}


# -- run 2 on another provider contract ------------------------------------------------------


@pytest.mark.parametrize("contract", ["anthropic", "gemini", "bedrock", "hunyuan", "mistralai", "ollama", "tongyi"])
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_three_runs_then_another_provider_accepts_the_memory(plugin, contract, strategy):
    """Three runs in a row, each answered through the provider contract with the memory of the
    ones before; the provider accepts every request and the turns come back in order."""
    history: list[dict] = []
    for query in ["What is 37 * 91?", "Again, 37 * 91?", "Once more: 37 * 91?"]:
        backend, result = contract_run(plugin, contract, strategy, history, query=query)
        sent = json.dumps(backend.provider_requests[0], ensure_ascii=False)
        positions = [sent.find(message["content"]) for message in history[::2]]
        assert -1 not in positions and positions == sorted(positions), (positions, sent)
        history += memory((query, result.text))


@pytest.mark.parametrize("contract", ["anthropic", "gemini", "bedrock", "mistralai"])
def test_memory_with_tool_entries_and_a_cut_window_is_accepted(plugin, contract):
    """Dify's memory window (``window.size``) can start right after an assistant's tool call, so
    the first entry is a tool result with no call; and a tool call whose result is missing. The
    provider still accepts the request."""
    history = [
        {"role": "tool", "content": "14:00", "tool_call_id": "old_1", "name": "current_time"},
        {"role": "assistant", "content": "It is 14:00."},
        {"role": "user", "content": "And in Tokyo?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "t2", "name": "current_time", "arguments": {}}]},
        {"role": "assistant", "content": "It is 23:00 in Tokyo."},
    ]
    backend, _ = contract_run(plugin, contract, "function_calling", history)
    check_memory_shape(backend.requests[0])


# -- blank, file-only and oversized turns -------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["anthropic", "bedrock", "gemini"])
def test_blank_turns_in_memory_are_accepted(plugin, contract, strategy):
    """A turn whose query was empty (the user sent only a file Dify did not keep) and one whose
    answer was only whitespace (a model that wrote a newline): strict providers refuse empty or
    blank text, so the next run must not send them so."""
    history = memory(("", "I got no question."), ("Hello?", " \n "), ("Still there?", "Yes."))
    backend, _ = contract_run(plugin, contract, strategy, history)
    check_memory_shape(backend.requests[0])


@pytest.mark.parametrize("contract", ["anthropic", "bedrock"])
def test_image_only_query_in_memory_for_a_model_without_vision(plugin, contract):
    """Run 1's user sent only a picture; run 2's model (no vision) gets that turn without an
    empty user message."""
    history = [{"role": "user", "content": [IMAGE_PART]}, {"role": "assistant", "content": "A cat."}]
    backend, _ = contract_run(plugin, contract, "function_calling", history)
    check_memory_shape(backend.requests[0])


def test_newest_memory_turn_too_large_is_dropped_alone(run):
    """The newest memory turn cannot fit even shortened: it goes, the older small turns stay,
    and the run answers."""
    turns = [("Q1 small", "A1 small"), ("Q2 small", "A2 small"), ("Paste", "Y" * 80_000)]
    result = run([{"text": "ok"}], "Now?", history=memory(*turns),
                 model={"context_size": 8192, "completion_params": {"max_tokens": 512}})
    assert_clean(result, run)
    sent = json.dumps(run.backend.requests[0]["prompt_messages"])
    for text in ("Q1 small", "A1 small", "Q2 small", "A2 small"):
        assert text in sent, text
    check_memory_shape(run.backend.requests[0])


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["hunyuan", "mistralai", "bedrock"])
def test_answer_to_an_empty_query_in_memory_keeps_turns_alternating(plugin, contract, strategy):
    """A chatflow turn run with an empty query (only a file input, not kept in memory) leaves its
    answer right after the answer before it; Hunyuan refuses an assistant message after an
    assistant message, so the next run sends the two answers as one, in order."""
    history = memory(("Hi", "Hello! How can I help?"), ("", "I received your file."), ("Thanks", "You're welcome."))
    backend, _ = contract_run(plugin, contract, strategy, history)
    request = backend.requests[0]
    check_memory_shape(request)
    replay = history_texts(request)
    assert replay.index("Hello! How can I help?") < replay.index("I received your file.") < replay.index("welcome"), replay


AGENT_APP_MEMORY = [
    {"role": "user", "content": "What time is it?"},
    {"role": "assistant", "content": "Let me check.", "tool_calls": [{"id": "callAbc12", "name": "calculator",
                                                                       "arguments": {"expression": "1+1"}}]},
    {"role": "tool", "content": "2", "tool_call_id": "callAbc12", "name": "calculator"},
    {"role": "assistant", "content": "It is 14:00."},
    {"role": "user", "content": "Thanks"},
    {"role": "assistant", "content": "\n\n", "tool_calls": [{"id": "callAbc34", "name": "calculator",
                                                            "arguments": {"expression": "2+2"}}]},
    {"role": "tool", "content": "4", "tool_call_id": "callAbc34", "name": "calculator"},
    {"role": "assistant", "content": "You're welcome."},
]
"""Memory with tool rounds (as Dify's agent apps keep them): a round's text before its calls,
and a model's bare newlines before its calls."""


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["hunyuan", "anthropic", "bedrock", "mistralai"])
def test_memory_tool_rounds_with_text_and_blank_text_are_accepted(plugin, contract, strategy):
    """ReAct flattens memory's tool rounds to text, so a round's "Let me check." and the answer
    would be two assistant messages in a row; Function Calling sends the round as it is, and the
    blank text before the calls would be a blank text block: every provider accepts both."""
    backend, _ = contract_run(plugin, contract, strategy, AGENT_APP_MEMORY)
    request = backend.requests[0]
    check_memory_shape(request)
    replay = history_texts(request)
    assert replay.index("Let me check.") < replay.index("It is 14:00.") < replay.index("You're welcome."), replay


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("contract", ["ollama", "bedrock"])
def test_an_answer_of_text_parts_in_memory_is_accepted(plugin, contract, strategy):
    """An answer Dify stored as content parts (text only, a blank one among them): Ollama's API
    and Bedrock's plugin take an assistant's content as a string."""
    history = [{"role": "user", "content": "q1"},
               {"role": "assistant", "content": [{"type": "text", "data": ""}, {"type": "text", "data": "Answer one."}]}]
    backend, _ = contract_run(plugin, contract, strategy, history)
    assert "Answer one." in history_texts(backend.requests[0])


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_memory_tool_call_ids_of_another_provider_reach_mistral_in_its_form(plugin, strategy):
    """Memory written while the node used OpenAI (ids ``call_...``), replayed after the user
    switched the node's model to Mistral: Mistral refuses any id that is not nine letters and
    digits, so memory's ids are renamed to that shape, each call still paired with its result."""
    history = [
        {"role": "user", "content": "What is 1+1?"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "call_Xy12ab34cd56", "name": "calculator",
                                                             "arguments": {"expression": "1+1"}}]},
        {"role": "tool", "content": "2", "tool_call_id": "call_Xy12ab34cd56", "name": "calculator"},
        {"role": "assistant", "content": "It is 2."},
    ]
    backend, _ = contract_run(plugin, "mistralai", strategy, history)
    sent = conversation(backend.requests[0])
    assert "call_Xy12ab34cd56" not in json.dumps(sent)
    assert "It is 2." in history_texts(backend.requests[0])
    check_memory_shape(backend.requests[0])
