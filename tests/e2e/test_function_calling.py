"""Function Calling through the real plugin process, with provider stream shapes
taken from real bug reports (cases of kind "fc stream" / "fc blocking" in docs/real-world-cases.md)."""

import json
import re

import pytest

from local_runner.tools import ScriptedTool, ToolParam, text_message
from tests.e2e.helpers import assert_clean_end, weather_tool


def tool_messages(request: dict) -> list[dict]:
    return [m for m in request["prompt_messages"] if m["role"] == "tool"]


def assistant_calls(request: dict) -> list[dict]:
    return [c for m in request["prompt_messages"] if m["role"] == "assistant" for c in m.get("tool_calls") or []]





def test_tool_call_round_trip_logs_usage_and_answer(run):
    result = run(
        [
            {"text": "Let me compute. ", "tool_calls": [{"id": "c1", "name": "calculator", "arguments": '{"expression": "2+3*4"}'}],
             "usage": {"prompt_tokens": 50, "completion_tokens": 10}},
            {"text": "The answer is 14.", "split": 4, "usage": {"prompt_tokens": 80, "completion_tokens": 5}},
        ],
        query="what is 2+3*4?",
        tools=["calculator"],
        instruction="You are precise.",
    )
    assert_clean_end(result)
    assert result.text == "Let me compute. \n\nThe answer is 14."
    first, second = result.llm_requests
    assert first["prompt_messages"][0] == {**first["prompt_messages"][0], "role": "system", "content": "You are precise."}
    assert [t["name"] for t in first["tools"]] == ["calculator"]
    (observation,) = tool_messages(second)
    assert observation["tool_call_id"] == "c1" and "14" in observation["content"]
    assert observation["name"] == "calculator"
    assert assistant_calls(second)[0]["function"]["name"] == "calculator"
    assert result.log_tree_snapshot() == [
        {"label": "ROUND 1", "status": "success", "children": [
            {"label": "gpt-4o-mini Thought", "status": "success", "children": []},
            {"label": "CALL calculator", "status": "success", "children": []}]},
        {"label": "ROUND 2", "status": "success", "children": [
            {"label": "gpt-4o-mini Thought", "status": "success", "children": []}]},
    ]
    metadata = result.execution_metadata
    assert len(metadata) == 12
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (130, 15, 145)
    assert metadata["total_price"] == pytest.approx(130 * 0.15e-6 + 15 * 0.6e-6)
    thought = next(n for n in result.logs.values() if n.label == "gpt-4o-mini Thought")
    assert thought.metadata["total_tokens"] == 60 and thought.metadata["provider"] == "langgenius/openai/openai"
    run.backend.assert_complete()


def fragments(call_id: str, name: str, arguments: str, *, index: int | None, size: int = 3) -> list[dict]:
    """An OpenAI-style tool call stream: id/name first with empty arguments, then fragments."""
    head = {"id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}
    parts = [arguments[i : i + size] for i in range(0, len(arguments), size)]
    deltas = [head, *({"function": {"arguments": p}} for p in parts)]
    if index is not None:
        deltas = [{"index": index, **d} for d in deltas]
    return [{"tool_calls": [d]} for d in deltas]


def test_openai_reference_stream_split_mid_token(run):
    """litellm5231: id/type/name only in the first delta, arguments split mid-token."""
    chunks = fragments("call_9oOU", "get_weather", '{"city": "Boston"}', index=0)
    result = run(
        [{"chunks": [{"content": "Checking. "}, *chunks], "finish_reason": "tool_calls"}, {"text": "Sunny in Boston."}],
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Boston"}]
    assert tool_messages(result.llm_requests[1])[0]["tool_call_id"] == "call_9oOU"


def test_parallel_calls_without_index_are_told_apart_by_id(run):
    """ollama7881: no index at all; ids start each call."""
    chunks = fragments("a", "get_weather", '{"city": "Paris"}', index=None) + fragments(
        "b", "get_weather", '{"city": "Tokyo"}', index=None
    )
    result = run([{"chunks": chunks, "finish_reason": "tool_calls"}, {"text": "Both sunny."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert sorted(r["tool_parameters"]["city"] for r in result.tool_requests) == ["Paris", "Tokyo"]
    assert [m["tool_call_id"] for m in tool_messages(result.llm_requests[1])] == ["a", "b"]


def test_sparse_indices_starting_at_one(run):
    """cliproxy5229 / litellm5025: Anthropic content-block indices 1, 2 after text."""
    time_tool = ScriptedTool(name="get_time", parameters=[ToolParam("city")], responses=[text_message("09:00")])
    chunks = [
        {"content": "Let me look."},
        {"tool_calls": [{"index": 1, "id": "toolu_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}]},
        {"tool_calls": [{"index": 2, "id": "toolu_2", "type": "function", "function": {"name": "get_time", "arguments": '{"city": "Tokyo"}'}}]},
    ]
    result = run([{"chunks": chunks}, {"text": "Done."}], tools=[weather_tool(), time_tool])
    assert_clean_end(result)
    assert sorted((r["tool"], r["tool_parameters"]["city"]) for r in result.tool_requests) == [
        ("get_time", "Tokyo"), ("get_weather", "Paris")]


def test_id_and_name_in_separate_deltas_and_repeated_names(run):
    """pipecat5023 (id and name apart) and llamacpp13800 (name on every delta, id in function)."""
    chunks = [
        {"tool_calls": [{"index": 0, "id": "call_x"}]},
        {"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": '{"ci'}}]},
        {"tool_calls": [{"index": 0, "function": {"name": "get_weather", "arguments": 'ty": "Oslo"}'}}]},
    ]
    result = run([{"chunks": chunks}, {"text": "Cold."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [(r["tool"], r["tool_parameters"]) for r in result.tool_requests] == [("get_weather", {"city": "Oslo"})]
    (call,) = assistant_calls(result.llm_requests[1])
    assert call["id"] == "call_x" and call["function"]["name"] == "get_weather"


def test_arguments_as_object_without_id(run):
    """ollama8337: one complete call, arguments already an object, no id: one is made up and kept consistent."""
    chunks = [{"content": "", "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Rome"}}}]}]
    result = run([{"chunks": chunks}, {"text": "Warm."}], tools=[weather_tool()])
    assert_clean_end(result)
    (call,) = assistant_calls(result.llm_requests[1])
    (observation,) = tool_messages(result.llm_requests[1])
    assert call["id"] and observation["tool_call_id"] == call["id"]
    assert json.loads(call["function"]["arguments"]) == {"city": "Rome"}


def test_concatenated_argument_objects_become_separate_calls(run):
    """hermes62937: Gemini's OpenAI layer glues parallel calls into one arguments buffer."""
    glued = '{"city": "Paris"}{"city": "Lima"}{"city": "Cairo"}'
    chunks = [{"tool_calls": [{"index": 0, "id": "g1", "type": "function", "function": {"name": "get_weather", "arguments": glued}}]}]
    result = run([{"chunks": chunks}, {"text": "All sunny."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert sorted(r["tool_parameters"]["city"] for r in result.tool_requests) == ["Cairo", "Lima", "Paris"]
    ids = [m["tool_call_id"] for m in tool_messages(result.llm_requests[1])]
    assert len(set(ids)) == 3


def test_malformed_arguments_are_told_to_the_model(run):
    """dify17270 / camel4338: bad JSON is an observation, not a failed node."""
    result = run(
        [
            {"tool_calls": [{"id": "bad", "name": "get_weather", "arguments": '{"city" "Paris"'}]},
            {"tool_calls": [{"id": "good", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
            {"text": "Sunny."},
        ],
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    first_observation = tool_messages(result.llm_requests[1])[0]
    assert first_observation["tool_call_id"] == "bad" and "not run" in first_observation["content"]
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    failed = [n for n in result.logs.values() if n.label == "CALL get_weather" and n.status == "error"]
    assert len(failed) == 1 and failed[0].error


def test_unknown_tool_is_refused_and_the_model_recovers(run):
    result = run(
        [{"tool_calls": [{"id": "u1", "name": "get_wether", "arguments": "{}"}]}, {"text": "Sorry."}],
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert result.tool_requests == []
    (observation,) = tool_messages(result.llm_requests[1])
    assert "get_wether" in observation["content"] and "get_weather" in observation["content"]


def test_tool_call_written_in_content_is_run_and_not_shown(run):
    """deepseekv3-826: the call as JSON text with a leaked special token, finish_reason stop."""
    content = '{"name":"get_weather","parameters":{"city":"Hangzhou"}}<|eot_id|>'
    result = run([{"text": content, "split": 5, "finish_reason": "stop"}, {"text": "Sunny in Hangzhou."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Hangzhou"}]
    assert result.text == "Sunny in Hangzhou."


def test_iteration_limit_asks_for_an_answer_with_tools_still_declared(run):
    call = {"tool_calls": [{"id": "c", "name": "get_weather", "arguments": '{"city": "Paris"}'}]}
    result = run([call, {"text": "It is sunny."}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == "It is sunny."
    final_request = result.llm_requests[1]
    assert final_request["tools"], "tools stay declared on the final round"
    assert "Do not call any more tools" in final_request["prompt_messages"][0]["content"]
    labels = [n.label for n in result.root_logs()]
    assert labels == ["ROUND 1", "ITERATION LIMIT", "FINAL ANSWER"]


@pytest.mark.parametrize(("limit", "rounds"), [(1, "1 round"), (2, "2 rounds")])
def test_iteration_limit_with_a_model_that_keeps_calling_ends_with_a_clear_message(run, limit, rounds):
    calls = [{"tool_calls": [{"id": f"c{n}", "name": "get_weather", "arguments": {"city": f"C{n}"}}]} for n in range(limit + 1)]
    result = run(calls, tools=[weather_tool()], maximum_iterations=limit)
    assert_clean_end(result)
    assert f"The agent stopped after {rounds} without a final answer" in result.text
    assert f"You have used the {rounds} of tool calls allowed" in result.llm_requests[-1]["prompt_messages"][0]["content"]


def test_iteration_limit_answer_left_inside_an_unclosed_reasoning_block_is_the_answer(run):
    """Told to answer now, a reasoning model writes its answer inside a <think> it never closes:
    it is shown, as it would be once the retries run out, not "stopped without a final answer"."""
    call = {"tool_calls": [{"id": "c", "name": "get_weather", "arguments": {"city": "Paris"}}]}
    result = run([call, {"text": "<think>Paris is sunny and 21 C."}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text == "Paris is sunny and 21 C."
    assert len(result.llm_requests) == 2


@pytest.mark.parametrize(
    "reply",
    ["<think>I should call get_weather for Rome next.", '<think>call <tool_call>{"name": "get_time", "arguments": {}}</tool_call>'],
    ids=["plans-a-call", "writes-a-call"],
)
def test_iteration_limit_reasoning_still_on_its_way_to_a_tool_result_is_not_the_answer(run, reply):
    """Reasoning that plans or writes a call is no answer: not shown as one (raw call markup
    least of all); the run says it stopped."""
    call = {"tool_calls": [{"id": "c", "name": "get_weather", "arguments": {"city": "Paris"}}]}
    result = run([call, {"text": reply}], tools=[weather_tool()], maximum_iterations=1)
    assert_clean_end(result)
    assert result.text.startswith("The agent stopped after 1 round without a final answer")


def test_no_tools_is_a_plain_streamed_chat(run):
    """dify15483: an agent without tools is valid."""
    result = run([{"text": "Hello there!", "split": 3}], query="hi")
    assert_clean_end(result)
    (request,) = result.llm_requests
    assert request["tools"] is None and request["stream"] is True
    assert result.text == "Hello there!"


def test_blocking_call_when_the_model_cannot_stream_tool_calls(run):
    """dop640: stream only when the model declares stream-tool-call."""
    result = run([{"text": "ok"}], tools=[weather_tool()], model={"features": ["tool-call", "multi-tool-call"]})
    assert_clean_end(result)
    assert result.llm_requests[0]["stream"] is False
    result = run([{"text": "ok"}], tools=[weather_tool()])
    assert result.llm_requests[0]["stream"] is True


def test_reasoning_stays_out_of_the_answer_and_goes_back_to_the_model_intact(run):
    """The user sees only the answer; within the run the model gets its own message back as
    its model plugin produced it (docs/model-round-trip.md)."""
    turns = [
        {"text": "<think>I should check the weather.</think>", "split": 7,
         "tool_calls": [{"id": "w", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
        {"text": "<think>It is sunny.</think>Sunny in Paris.", "split": 6},
    ]
    result = run(turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "Sunny in Paris."
    replayed = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"]
    assert [m["content"] for m in replayed] == ["<think>I should check the weather.</think>"]
    assert [c["id"] for c in replayed[0]["tool_calls"]] == ["w"]
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert thoughts[0].data["reasoning"] == "I should check the weather."


def text_messages(result) -> list[str]:
    return [m["message"]["text"] for m in result.messages if m.get("type") == "text"]


@pytest.mark.parametrize(
    "model", [{"model": "qwq-32b"}, {"completion_params": {"enable_thinking": True, "max_tokens": 1024}}], ids=["name", "switch"]
)
def test_a_reasoning_model_whose_template_opened_the_block_shows_only_its_answer(run, model):
    """QwQ served without a reasoning parser (known by its name, or by thinking turned on): the
    reply is its reasoning, a bare </think> and the answer (dify#17660); none of the reasoning
    reaches the chat, all of it goes to the log."""
    reply = "Okay, the user asks about Paris.\nI know this.\n</think>\n\nParis is the capital of France."
    result = run([{"text": reply, "split": 5}], query="capital of France?", model=model)
    assert_clean_end(result)
    assert result.text == "Paris is the capital of France."
    assert not any("Okay" in text for text in text_messages(result))
    thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
    assert "I know this." in thought.data["reasoning"]


def test_a_bare_closing_tag_in_one_reply_keeps_the_later_replies_reasoning_out_of_the_chat(run):
    """Any model: once a reply of the run closed a block it never opened, later replies are
    read as starting inside one."""
    turns = [
        {"text": "I need the weather.\n</think>\n\n", "split": 4,
         "tool_calls": [{"id": "w", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
        {"text": "It is sunny, so I can answer.\n</think>\n\nSunny in Paris.", "split": 4},
    ]
    result = run(turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text.endswith("Sunny in Paris.")
    assert "It is sunny, so I can answer." not in result.text
    replayed = [m for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"]
    assert replayed[0]["content"] == "I need the weather.\n</think>\n\n"  # back to the model as sent


def test_model_failure_is_a_clear_error_with_logs_closed_and_usage_kept(run):
    call = {"tool_calls": [{"id": "c", "name": "get_weather", "arguments": '{"city": "Paris"}'}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 2}}
    result = run([call, {"error": "upstream 503"}], tools=[weather_tool()])
    assert not result.ok
    assert "round 2" in result.error_text and "upstream 503" in result.error_text
    assert result.unfinished_logs() == []
    assert result.execution_metadata["total_tokens"] == 12


def test_history_is_replayed_in_order_before_the_query(run):
    history = [{"role": "user", "content": "my name is Ada"}, {"role": "assistant", "content": "Hi Ada!"}]
    result = run([{"text": "You are Ada."}], query="who am I?", history=history, instruction="Be kind.")
    assert_clean_end(result)
    roles = [(m["role"], m["content"]) for m in result.llm_requests[0]["prompt_messages"]]
    assert roles == [("system", "Be kind."), ("user", "my name is Ada"), ("assistant", "Hi Ada!"), ("user", "who am I?")]


def test_long_history_is_trimmed_oldest_first_to_fit_the_context(run):
    """Memory over the context window: whole old turns are dropped and the trimming is logged."""
    history = []
    for n in range(30):
        history += [{"role": "user", "content": f"question {n} " + "lorem ipsum " * 60},
                    {"role": "assistant", "content": f"answer {n} " + "dolor sit " * 60}]
    result = run([{"text": "ok"}], query="latest?", history=history,
                 model={"context_size": 4096, "completion_params": {"max_tokens": 512}})
    assert_clean_end(result)
    messages = result.llm_requests[0]["prompt_messages"]
    contents = [m["content"] for m in messages]
    assert contents[-1] == "latest?"
    assert "question 29" in contents[-3] and not any("question 0 " in c for c in contents)
    assert messages[0]["role"] == "user", "a dropped turn leaves no orphan assistant message first"
    trimmed = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    assert len(trimmed) == 1 and trimmed[0].data["history_turns_dropped"] > 0
    assert trimmed[0].data["estimated_tokens_after"] <= trimmed[0].data["budget_tokens"]


def test_model_without_tool_calling_falls_back_to_react(run):
    """fastagent91: a model that rejects tools gets the ReAct format instead of a 400."""
    action = 'Thought: check\nAction: {"action": "get_weather", "action_input": {"city": "Paris"}}'
    result = run([{"text": action}, {"text": "Final Answer: Sunny."}], tools=[weather_tool()],
                 model={"features": ["agent-thought"]})
    assert_clean_end(result)
    assert result.text == "Sunny."
    assert all(r["tools"] is None for r in result.llm_requests)
    assert result.root_logs()[0].label == "USING ReAct"


def test_a_max_tokens_as_large_as_the_window_keeps_the_memory_and_asks_for_a_reply_that_fits(run):
    """An 8K model with max_tokens 8192 (the slider's top): the memory stays, and the request
    asks for no more reply tokens than the window has left after the prompt (vLLM and
    Anthropic refuse a prompt plus max_tokens over the window)."""
    history = []
    for n in range(4):
        history += [{"role": "user", "content": f"question {n} " + "lorem ipsum " * 30},
                    {"role": "assistant", "content": f"answer {n} " + "dolor sit " * 30}]
    result = run([{"text": "ok"}], query="latest?", history=history,
                 model={"context_size": 8192, "completion_params": {"max_tokens": 8192, "temperature": 0.2}})
    assert_clean_end(result)
    request = result.llm_requests[0]
    assert len(request["prompt_messages"]) == 9  # every memory turn kept
    assert 1000 < request["completion_params"]["max_tokens"] < 8192
    assert request["completion_params"]["temperature"] == 0.2
    assert not any(n.label == "CONTEXT TRIMMED" for n in result.logs.values())
    thought = next(n for n in result.logs.values() if n.label.endswith("Thought"))
    assert thought.data["completion_params_lowered"] == {"max_tokens": request["completion_params"]["max_tokens"]}


STRICTEST_ID = r"[A-Za-z0-9]{9}"
"""Mistral's rule for the ids it is sent back (its API and mistral_common, which vLLM uses for
Mistral models: "Tool call id was call_1 but must be a-z, A-Z, 0-9, with a length of 9.")."""


def test_ids_the_strategy_makes_or_changes_are_nine_letters_and_digits(run):
    """A Mistral model on a server without its tool parser writes its call in the text; a server
    sends a call without an id; the model repeats its own id in a later round. Every id sent back
    is one Mistral takes, each tool message answering its call."""
    turns = [
        {"text": '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}'},
        {"chunks": [{"content": "", "tool_calls": [{"index": 0, "id": "", "type": "function",
                                                     "function": {"name": "get_weather", "arguments": '{"city": "Rome"}'}}]}]},
        {"tool_calls": [{"id": "a1B2c3D4e", "name": "get_weather", "arguments": '{"city": "Oslo"}'}]},
        {"tool_calls": [{"id": "a1B2c3D4e", "name": "get_weather", "arguments": '{"city": "Bern"}'}]},
        {"text": "All sunny."},
    ]
    result = run(turns, tools=[weather_tool()])
    assert_clean_end(result)
    assert result.text == "All sunny."
    call_ids = [call["id"] for call in assistant_calls(result.llm_requests[4])]
    assert len(call_ids) == len(set(call_ids)) == 4 and call_ids[2] == "a1B2c3D4e"
    assert all(re.fullmatch(STRICTEST_ID, call_id) for call_id in call_ids), call_ids
    assert [m["tool_call_id"] for m in tool_messages(result.llm_requests[4])] == call_ids


def test_ids_a_provider_repeats_across_rounds_are_unique_in_every_request(run):
    """Tongyi sends the tool's name as the call id: round 2 repeats round 1's id."""
    turns = [
        {"tool_calls": [{"id": "get_weather", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
        {"tool_calls": [{"id": "get_weather", "name": "get_weather", "arguments": '{"city": "Rome"}'}]},
        {"text": "Both sunny."},
    ]
    result = run(turns, tools=[weather_tool()])
    assert_clean_end(result)
    messages = result.llm_requests[2]["prompt_messages"]
    call_ids = [c["id"] for m in messages if m["role"] == "assistant" for c in m["tool_calls"]]
    assert call_ids == ["get_weather", "get_weather_2"]
    assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == call_ids


def test_a_react_style_action_after_a_thought_line_runs_and_is_not_shown(run):
    """A model offered native tools that writes LangChain's structured-chat format instead: the
    call runs, and its label and JSON never reach the chat (before, both happened)."""
    reply = 'Thought: I need the weather.\nAction:\n```json\n{"action": "get_weather", "action_input": {"city": "Paris"}}\n```'
    result = run([{"chunks": [{"content": reply[i : i + 4]} for i in range(0, len(reply), 4)]}, {"text": "Sunny in Paris."}], tools=[weather_tool()])
    assert_clean_end(result)
    assert [r["tool_parameters"] for r in result.tool_requests] == [{"city": "Paris"}]
    assert "Action" not in result.text and "get_weather" not in result.text
    assert result.text.endswith("Sunny in Paris.")


def test_an_answer_written_as_a_react_final_step_shows_the_answer_alone(run):
    """A model offered native tools answers in ReAct's words after a tool result: the user reads
    the text after ``Final Answer:`` alone; the round's log keeps the whole reply."""
    reply = "Thought: I have the weather now.\nFinal Answer: It is sunny in Paris."
    result = run(
        [
            {"tool_calls": [{"id": "c1", "name": "get_weather", "arguments": '{"city": "Paris"}'}]},
            {"text": reply, "split": 5},
        ],
        query="Weather in Paris?",
        tools=[weather_tool()],
    )
    assert_clean_end(result)
    assert result.text == "It is sunny in Paris."
    logged = json.dumps([n.data for n in result.logs.values() if n.label.startswith("ROUND")])
    assert "I have the weather now." in logged
