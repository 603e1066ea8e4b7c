"""Knowledge context, files in the query, conversation memory, reasoning and usage, through the
real plugin process, in both strategies.

What Dify's Agent node sends (docs/protocol-notes.md §5): ``context`` as knowledge-retrieval items
``{content, title, metadata}``, ``files`` as ``__dify__file__`` dicts, memory as
``model.history_prompt_messages``; what it renders from the reply: ``retriever_resources``
(citations) and ``execution_metadata`` (the node's usage). Real-world cases: dify16760
(tool calls and results kept together), dify27440 (no empty messages).
"""

import json

import pytest

from tests.e2e.helpers import STRATEGIES, assert_clean, text_of, weather_tool

# --- helpers ---------------------------------------------------------------------------------------




def call_turn(strategy: str, *, text: str = "", usage: dict | None = None, call_id: str = "c1") -> dict:
    """A round that calls get_weather(city=Paris), optionally after ``text``."""
    if strategy == "ReAct":
        action = json.dumps({"action": "get_weather", "action_input": {"city": "Paris"}})
        turn = {"text": f"{text}Thought: I need the weather.\nAction:\n```json\n{action}\n```"}
    else:
        turn = {"text": text, "tool_calls": [{"id": call_id, "name": "get_weather", "arguments": '{"city": "Paris"}'}]}
    if usage is not None:
        turn["usage"] = usage
    return turn


def answer_turn(
    strategy: str, answer: str, *, before: str = "", usage: dict | None = None, split: int | None = None
) -> dict:
    text = f"{before}Thought: I know it.\nFinal Answer: {answer}" if strategy == "ReAct" else before + answer
    turn: dict = {"text": text}
    if usage is not None:
        turn["usage"] = usage
    if split:
        turn["split"] = split
    return turn






def all_text(request: dict) -> str:
    """Every prompt message's text, one per line."""
    return "\n".join(text_of(m["content"]) for m in request["prompt_messages"])


def query_message(request: dict, query: str) -> dict:
    """The user message that carries this turn's query (the last one starting with it)."""
    return [m for m in request["prompt_messages"] if m["role"] == "user" and text_of(m["content"]).startswith(query)][
        -1
    ]


def assert_provider_valid(messages: list[dict]) -> None:
    """What strict providers check (Anthropic, Gemini, OpenAI): every message has content or
    tool calls (dify27440); every tool result answers a call of the assistant message right
    before it, and every call is answered there (dify16760)."""
    open_calls: set[str] = set()
    for message in messages:
        role = message["role"]
        if role == "tool":
            assert message["tool_call_id"] in open_calls, f"orphan tool result {message['tool_call_id']}"
            open_calls.discard(message["tool_call_id"])
            continue
        assert not open_calls, f"tool calls without results: {open_calls}"
        has_text = bool(text_of(message["content"]).strip()) or (
            isinstance(message["content"], list) and message["content"]
        )
        calls = message.get("tool_calls") or []
        assert has_text or calls, f"empty {role} message"
        open_calls = {call["id"] for call in calls}
    assert not open_calls, f"tool calls without results: {open_calls}"


# --- knowledge context ---------------------------------------------------------------------------------


def knowledge_item(n: int, content: str, title: str, score: float) -> dict:
    """An item as Dify's Knowledge Retrieval node outputs it."""
    return {
        "content": content,
        "title": title,
        "metadata": {
            "_source": "knowledge",
            "position": n,
            "dataset_id": f"ds-{n}",
            "dataset_name": "Product docs",
            "document_id": f"doc-{n}",
            "document_name": title,
            "data_source_type": "upload_file",
            "segment_id": f"seg-{n}",
            "retriever_from": "workflow",
            "score": score,
            "segment_hit_count": 3,
            "segment_word_count": 12,
            "segment_position": n,
            "segment_index_node_hash": f"hash-{n}",
            "doc_metadata": {"lang": "en"},
        },
    }


CONTEXT = [
    knowledge_item(1, "The X1 battery lasts 14 hours on one charge.", "battery.md", 0.91),
    knowledge_item(2, "The X1 warranty covers two years from purchase.", "warranty.md", 0.77),
]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_knowledge_context_grounds_the_system_prompt_and_the_run_ends_with_citations(run, strategy):
    result = run(
        [answer_turn(strategy, "It lasts 14 hours [1].")],
        query="How long does the battery last?",
        strategy=strategy,
        context=CONTEXT,
        instruction="You are the X1 support bot.",
        tools=[weather_tool()],
    )
    assert_clean(result, run)
    assert result.text == "It lasts 14 hours [1]."
    system = result.llm_requests[0]["prompt_messages"][0]
    assert system["role"] == "system"
    content = system["content"]
    assert content.startswith("You are the X1 support bot.")
    for item in CONTEXT:
        assert item["content"] in content and item["title"] in content
    assert content.index("14 hours") < content.index("two years"), "sources in retrieval order"
    assert "[1] battery.md" in content and "[2] warranty.md" in content
    user_text = text_of(query_message(result.llm_requests[0], "How long")["content"])
    assert "14 hours" not in user_text, "grounding is in the system prompt, the query stays the user's"

    non_log = [m["type"] for m in result.messages if m["type"] != "log"]
    assert non_log[-2:] == ["retriever_resources", "json"], "citations, then usage, end the run"
    cited = result.retriever_resources
    assert [
        (
            r["position"],
            r["dataset_id"],
            r["dataset_name"],
            r["document_id"],
            r["document_name"],
            r["segment_id"],
            r["score"],
        )
        for r in cited
    ] == [
        (1, "ds-1", "Product docs", "doc-1", "battery.md", "seg-1", 0.91),
        (2, "ds-2", "Product docs", "doc-2", "warranty.md", "seg-2", 0.77),
    ]
    assert [r["content"] for r in cited] == [item["content"] for item in CONTEXT]
    assert cited[0]["hit_count"] == 3 and cited[0]["word_count"] == 12 and cited[0]["index_node_hash"] == "hash-1"
    assert cited[0]["data_source_type"] == "upload_file" and cited[0]["retriever_from"] == "workflow"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_knowledge_context_stays_in_every_round(run, strategy):
    result = run(
        [call_turn(strategy), answer_turn(strategy, "Sunny.")],
        query="Weather?",
        strategy=strategy,
        context=CONTEXT,
        tools=[weather_tool()],
    )
    assert_clean(result, run)
    assert all("14 hours" in text_of(r["prompt_messages"][0]["content"]) for r in result.llm_requests)
    assert len(result.retriever_resources) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("context_size", "chunk_chars"), [(8000, 20_000), (128_000, 1_200_000)])
def test_knowledge_context_larger_than_the_window_is_cut_with_a_note(run, strategy, context_size, chunk_chars):
    """Ten retrieved chunks far over an 8K model's window, or 12 MB for a 128K model (over the
    daemon's 5 MiB line): the prompt keeps the best-ranked sources, cut with a note for the
    model, within the window and the line (before, it was sent whole: the provider refused it,
    or the run ended saying the request was too large); the citations stay whole in number."""
    items = [knowledge_item(n, f"Fact {n}: " + "lorem ipsum dolor sit amet " * (chunk_chars // 27), f"doc{n}.md", 0.9)
             for n in range(1, 11)]
    result = run(
        [call_turn(strategy), answer_turn(strategy, "ok")],
        query="What?",
        strategy=strategy,
        context=items,
        tools=[weather_tool()],
        model={"context_size": context_size},
        timeout=120,
    )
    assert_clean(result, run)
    assert result.text == "ok" and len(result.retriever_resources) == 10
    for request in result.llm_requests:
        system = text_of(request["prompt_messages"][0]["content"])
        assert "Fact 1:" in system and "Fact 10:" not in system
        assert "of the knowledge" in system and "is left out: it does not fit the model's context window" in system
        assert len(json.dumps(request["prompt_messages"])) < 3 * 1024 * 1024
        if context_size == 8000:
            assert len(json.dumps(request["prompt_messages"])) < 8000 * 6  # chars: a few a token
    trims = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    assert trims and trims[0].data["knowledge_chars_left_out"] > 0
    assert trims[0].data["estimated_tokens_after"] <= trims[0].data["budget_tokens"]


def test_knowledge_context_is_cut_to_leave_room_for_model_settings_of_megabytes(run):
    """The request line carries the model's settings beside the prompt: a completion parameter
    of 1.8 MB leaves the knowledge context that much less room. The knowledge is cut by it too
    and the run answers (before, the cut ignored the settings and the run ended as too large)."""
    items = [knowledge_item(n, f"Fact {n}: " + "lorem ipsum dolor sit amet " * 12_000, f"doc{n}.md", 0.9)
             for n in range(1, 11)]
    result = run(
        [answer_turn("function_calling", "ok")],
        query="What?",
        context=items,
        model={"context_size": 4_000_000, "completion_params": {"user": "u" * 1_800_000}},
        timeout=120,
    )
    assert_clean(result, run)
    assert result.text == "ok"
    (request,) = result.llm_requests
    system = text_of(request["prompt_messages"][0]["content"])
    assert "Fact 1:" in system and "Fact 10:" not in system
    assert len(json.dumps(request["prompt_messages"])) + 1_800_000 < 3 * 1024 * 1024 + 64 * 1024


def test_knowledge_context_in_a_completion_prompt(run):
    result = run(
        [{"text": " I know.\nFinal Answer: 14 hours."}],
        query="Battery?",
        strategy="ReAct",
        context=CONTEXT,
        model={"mode": "completion"},
    )
    assert_clean(result, run)
    (message,) = result.llm_requests[0]["prompt_messages"]
    assert "14 hours on one charge" in message["content"] and "Question: Battery?" in message["content"]
    assert len(result.retriever_resources) == 2


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_context_that_is_not_from_knowledge_retrieval_grounds_but_is_not_cited(run, strategy):
    """Dify's LLM node cites only Knowledge Retrieval items (``metadata._source == "knowledge"``);
    plain text or another node's objects have no dataset or document to show."""
    context = [
        {"content": "Store hours: 9 to 5."},
        {"content": "Returns within 30 days.", "title": "policy", "metadata": {"_source": "http"}},
        CONTEXT[0],
    ]
    result = run([answer_turn(strategy, "9 to 5.")], query="Hours?", strategy=strategy, params={"context": context})
    assert_clean(result, run)
    system = text_of(result.llm_requests[0]["prompt_messages"][0]["content"])
    assert "Store hours: 9 to 5." in system and "Returns within 30 days." in system and "14 hours" in system
    assert [(r["document_name"], r["segment_id"]) for r in result.retriever_resources] == [("battery.md", "seg-1")]


def test_plain_text_context_grounds_without_citations(run):
    result = run([{"text": "9 to 5."}], query="Hours?", params={"context": "Store hours: 9 to 5."})
    assert_clean(result, run)
    assert "Store hours: 9 to 5." in text_of(result.llm_requests[0]["prompt_messages"][0]["content"])
    assert result.retriever_resources == []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_without_context_there_are_no_citations(run, strategy):
    result = run([answer_turn(strategy, "Hi.")], query="hi", strategy=strategy, context=None)
    assert_clean(result, run)
    assert result.retriever_resources == []
    assert not any(m["type"] == "retriever_resources" for m in result.messages)


# --- memory ------------------------------------------------------------------------------------------


HISTORY_WITH_TOOLS = [
    {"role": "user", "content": "Weather in Paris and Rome?"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "h1", "name": "get_weather", "arguments": {"city": "Paris"}},
            {"id": "h2", "name": "get_weather", "arguments": {"city": "Rome"}},
        ],
    },
    {"role": "tool", "content": "Paris: sunny", "tool_call_id": "h1", "name": "get_weather"},
    {"role": "tool", "content": "Rome: rainy", "tool_call_id": "h2", "name": "get_weather"},
    {"role": "assistant", "content": "Paris is sunny, Rome is rainy."},
    {"role": "user", "content": "Thanks! And my name is Ada."},
    {"role": "assistant", "content": "Nice to meet you, Ada."},
]


def test_history_with_parallel_tool_calls_is_replayed_in_order_with_results_together(run):
    """dify16760: each assistant tool-call turn is followed by all of its results."""
    result = run(
        [{"text": "You are Ada."}],
        query="Who am I?",
        history=HISTORY_WITH_TOOLS,
        instruction="Be kind.",
        tools=[weather_tool()],
    )
    assert_clean(result, run)
    messages = result.llm_requests[0]["prompt_messages"]
    assert [(m["role"], text_of(m["content"])) for m in messages] == [
        ("system", "Be kind."),
        ("user", "Weather in Paris and Rome?"),
        ("assistant", ""),
        ("tool", "Paris: sunny"),
        ("tool", "Rome: rainy"),
        ("assistant", "Paris is sunny, Rome is rainy."),
        ("user", "Thanks! And my name is Ada."),
        ("assistant", "Nice to meet you, Ada."),
        ("user", "Who am I?"),
    ]
    assert [c["id"] for c in messages[2]["tool_calls"]] == ["h1", "h2"]
    assert [(m["tool_call_id"], m["name"]) for m in messages[3:5]] == [("h1", "get_weather"), ("h2", "get_weather")]
    assert_provider_valid(messages)


def test_react_history_keeps_the_conversation_text_in_order(run):
    """A ReAct prompt has no native tool turns: memory's tool calls and results are left out,
    the conversation's text stays, in order."""
    result = run(
        [{"text": "Final Answer: You are Ada."}],
        query="Who am I?",
        strategy="ReAct",
        history=HISTORY_WITH_TOOLS,
        tools=[weather_tool()],
    )
    assert_clean(result, run)
    messages = result.llm_requests[0]["prompt_messages"]
    assert [(m["role"], text_of(m["content"])) for m in messages[1:]] == [
        ("user", "Weather in Paris and Rome?"),
        ("assistant", "Paris is sunny, Rome is rainy."),
        ("user", "Thanks! And my name is Ada."),
        ("assistant", "Nice to meet you, Ada."),
        ("user", "Who am I?"),
    ]
    assert all(not m.get("tool_calls") for m in messages)


BROKEN_HISTORY = [
    {"role": "user", "content": "first question"},
    {
        "role": "assistant",
        "content": "",
        "tool_calls": [{"id": "orphan-call", "name": "get_weather", "arguments": {"city": "Oslo"}}],
    },
    {"role": "assistant", "content": "first answer"},
    {"role": "tool", "content": "ORPHAN RESULT", "tool_call_id": "ghost", "name": "get_weather"},
    {"role": "user", "content": "second question"},
    {
        "role": "assistant",
        "content": "Let me check.",
        "tool_calls": [
            {"id": "k1", "name": "get_weather", "arguments": {"city": "Lima"}},
            {"id": "lost", "name": "get_weather", "arguments": {"city": "Quito"}},
        ],
    },
    {"role": "tool", "content": "Lima: warm", "tool_call_id": "k1", "name": "get_weather"},
    {"role": "assistant", "content": ""},
    {"role": "assistant", "content": "   "},
    {"role": "system", "content": "OLD SYSTEM PROMPT"},
    {"role": "assistant", "content": "Lima is warm."},
]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_orphan_calls_orphan_results_and_empty_messages_are_dropped(run, strategy):
    """dify16760 (calls and results must pair up) and dify27440 (an empty message in memory
    makes every later turn fail)."""
    result = run(
        [answer_turn(strategy, "ok")],
        query="third question",
        strategy=strategy,
        history=BROKEN_HISTORY,
        tools=[weather_tool()],
        instruction="Be brief.",
    )
    assert_clean(result, run)
    messages = result.llm_requests[0]["prompt_messages"]
    dumped = json.dumps(messages)
    for gone in ("orphan-call", "ghost", "ORPHAN RESULT", "Quito", "OLD SYSTEM PROMPT"):
        assert gone not in dumped
    assert [m["role"] for m in messages].count("system") == 1
    texts = [text_of(m["content"]) for m in messages if m["role"] != "system"]
    order = ["first question", "first answer", "second question", "Let me check.", "Lima is warm.", "third question"]
    positions = [next(i for i, t in enumerate(texts) if expected in t) for expected in order]
    assert positions == sorted(positions)
    if strategy == "function_calling":
        assert_provider_valid(messages)
        (kept,) = [m for m in messages if m.get("tool_calls")]
        assert [c["id"] for c in kept["tool_calls"]] == ["k1"]
        assert [m["tool_call_id"] for m in messages if m["role"] == "tool"] == ["k1"]
    else:
        assert all(m["role"] != "tool" and not m.get("tool_calls") for m in messages)
        assert all(text_of(m["content"]).strip() for m in messages)
        # the tool round's text and the answer after it: one answer, user and assistant taking turns
        assert "Let me check.\n\nLima is warm." in texts


def test_empty_and_misplaced_tool_results_in_memory_never_break_the_pairing(run):
    """An empty tool result keeps its call answered (with a note, not empty content:
    dify27440); a result that does not directly follow its call is an orphan for every
    provider (dify16760) and is dropped with its call."""
    history = [
        {"role": "user", "content": "q1"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "e1", "name": "get_weather", "arguments": {"city": "Oslo"}}],
        },
        {"role": "tool", "content": "", "tool_call_id": "e1", "name": "get_weather"},
        {"role": "assistant", "content": "No data for Oslo."},
        {"role": "user", "content": "q2"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "m1", "name": "get_weather", "arguments": {"city": "Bern"}}],
        },
        {"role": "assistant", "content": "Still checking."},
        {"role": "tool", "content": "MISPLACED RESULT", "tool_call_id": "m1", "name": "get_weather"},
        {"role": "assistant", "content": "Bern is mild."},
    ]
    result = run([{"text": "ok"}], query="q3", history=history, tools=[weather_tool()])
    assert_clean(result, run)
    messages = result.llm_requests[0]["prompt_messages"]
    assert_provider_valid(messages)
    (empty,) = [m for m in messages if m["role"] == "tool"]
    assert empty["tool_call_id"] == "e1" and "no output" in empty["content"]
    dumped = json.dumps(messages)
    assert "MISPLACED RESULT" not in dumped and '"m1"' not in dumped
    assert [text_of(m["content"]) for m in messages if m["role"] == "user"] == ["q1", "q2", "q3"]


def long_history(turns: int = 30, *, with_tools: bool = False) -> list[dict]:
    history = []
    for n in range(turns):
        history.append({"role": "user", "content": f"question {n} " + "lorem ipsum " * 60})
        if with_tools:
            history.append(
                {
                    "role": "assistant",
                    "content": "",
                    "tool_calls": [{"id": f"t{n}", "name": "get_weather", "arguments": {"city": f"City{n}"}}],
                }
            )
            history.append(
                {
                    "role": "tool",
                    "content": f"result {n} " + "sunny " * 40,
                    "tool_call_id": f"t{n}",
                    "name": "get_weather",
                }
            )
        history.append({"role": "assistant", "content": f"answer {n} " + "dolor sit " * 60})
    return history


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("with_tools", [False, True], ids=["text", "tool-turns"])
def test_long_history_is_trimmed_oldest_turns_first_and_the_trimming_logged(run, strategy, with_tools):
    result = run(
        [answer_turn(strategy, "ok")],
        query="latest?",
        strategy=strategy,
        tools=[weather_tool()],
        history=long_history(with_tools=with_tools),
        instruction="Be brief.",
        model={"context_size": 4096, "completion_params": {"max_tokens": 512}},
    )
    assert_clean(result, run)
    assert result.text == "ok"
    messages = result.llm_requests[0]["prompt_messages"]
    assert messages[0]["role"] == "system" and messages[0]["content"].startswith("Be brief.")
    assert text_of(messages[-1]["content"]) == "latest?"
    texts = [text_of(m["content"]) for m in messages]
    assert any(t.startswith("question 29 ") for t in texts), "the newest turn is kept"
    assert not any(t.startswith("question 0 ") for t in texts), "the oldest turn is dropped"
    kept = sorted(int(t.split()[1]) for t in texts if t.startswith("question "))
    assert kept == list(range(kept[0], 30)), "a contiguous run of the newest turns"
    assert messages[1]["role"] == "user", "no turn is cut in half"
    if strategy == "function_calling":
        assert_provider_valid(messages)
    (trimmed,) = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    assert trimmed.status == "success"
    assert trimmed.data["history_turns_dropped"] == 30 - len(kept)
    assert (
        trimmed.data["estimated_tokens_after"]
        <= trimmed.data["budget_tokens"]
        < trimmed.data["estimated_tokens_before"]
    )
    (round_1,) = [n for n in result.root_logs() if n.label == "ROUND 1"]
    assert trimmed.id in round_1.children


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_history_that_fits_is_not_trimmed(run, strategy):
    result = run([answer_turn(strategy, "ok")], query="latest?", strategy=strategy, history=long_history(3))
    assert_clean(result, run)
    assert not any(n.label == "CONTEXT TRIMMED" for n in result.logs.values())
    assert (
        sum(1 for m in result.llm_requests[0]["prompt_messages"] if text_of(m["content"]).startswith("question ")) == 3
    )


# --- reasoning (<think>) ----------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_think_blocks_never_reach_the_answer_and_go_back_to_the_model_only_with_tool_calls(run, strategy):
    """Function Calling replays the model's message intact (its reasoning with its tool calls:
    DeepSeek refuses a tool-call turn without it); ReAct's scratchpad is text turns, which no
    provider needs reasoning for, so it carries none (docs/model-round-trip.md)."""
    turns = [
        call_turn(strategy, text="<think>PLAN-7: the user wants Paris weather.</think>"),
        answer_turn(strategy, "Sunny in Paris.", before="<think>CHECK-9: the tool said sunny.</think>", split=3),
    ]
    turns[0]["split"] = 5
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Sunny in Paris."
    second_prompt = json.dumps(result.llm_requests[1]["prompt_messages"])
    if strategy == "ReAct":
        assert "PLAN-7" not in second_prompt and "<think>" not in second_prompt and "</think>" not in second_prompt
    else:
        replayed = [m["content"] for m in result.llm_requests[1]["prompt_messages"] if m["role"] == "assistant"]
        assert replayed == ["<think>PLAN-7: the user wants Paris weather.</think>"]
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert len(thoughts) == 2
    assert "PLAN-7: the user wants Paris weather." in thoughts[0].data["reasoning"]
    assert "CHECK-9: the tool said sunny." in thoughts[1].data["reasoning"]
    assert all("<think>" not in json.dumps(n.data.get("output")) for n in thoughts)
    for node in result.logs.values():
        if node.label.startswith("ROUND"):
            assert "PLAN-7" not in json.dumps(node.data) and "CHECK-9" not in json.dumps(node.data)




@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_reply_that_is_only_an_unclosed_think_block_is_never_shown(run, strategy):
    """A reasoning model cut off inside its reasoning: nothing of it reaches the user or the
    next prompt; the model is asked again."""
    answer = "Final Answer: Hello." if strategy == "ReAct" else "Hello."
    result = run([{"text": "<think>DRAFT-3 never closed", "split": 4}, {"text": answer}], query="hi", strategy=strategy)
    assert_clean(result, run)
    assert result.text == "Hello."
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert "DRAFT-3 never closed" in thoughts[0].data["reasoning"]
    assert "DRAFT-3" not in json.dumps(result.llm_requests[-1]["prompt_messages"])


@pytest.mark.parametrize("strategy", ["function_calling", "ReAct"])
def test_think_block_of_an_unreadable_reply_stays_out_of_the_retry_prompt(run, strategy):
    """dop3699 with Gemini include_thoughts: reasoning, then a reply the strategy cannot use."""
    if strategy == "ReAct":
        bad, good = '<think>PLAN-5 private</think>Thought: search\nAction_input: {"input": "x"}', "Final Answer: Hi."
    else:
        bad, good = "<think>PLAN-5 private</think>", "Hi."
    result = run([{"text": bad}, {"text": good}], query="hi", strategy=strategy, tools=[weather_tool()])
    assert_clean(result, run)
    assert result.text == "Hi."
    retry = json.dumps(result.llm_requests[1]["prompt_messages"])
    assert "PLAN-5" not in retry and "<think>" not in retry


# --- files in the query -----------------------------------------------------------------------------------


IMAGE = {"url": "https://example.com/uploads/cat.png", "mime_type": "image/png", "filename": "cat.png", "size": 2048}
DOCUMENT = {
    "url": "https://example.com/uploads/report.pdf",
    "mime_type": "application/pdf",
    "filename": "report.pdf",
    "size": 40960,
}
VISION = ["tool-call", "multi-tool-call", "stream-tool-call", "agent-thought", "vision"]


def image_parts(message: dict) -> list[dict]:
    content = message["content"]
    return [p for p in content if p.get("type") == "image"] if isinstance(content, list) else []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_image_stays_visible_to_a_vision_model_in_every_round(run, strategy):
    """A question about a picture that needs a tool first: round 2 still shows the picture."""
    result = run(
        [call_turn(strategy), answer_turn(strategy, "A cat in the sun.")],
        query="What is in this picture?",
        strategy=strategy,
        files=[IMAGE],
        tools=[weather_tool()],
        model={"features": VISION},
    )
    assert_clean(result, run)
    for request in result.llm_requests:
        message = query_message(request, "What is in this picture?")
        (part,) = image_parts(message)
        assert part["url"] == IMAGE["url"] and part["mime_type"] == "image/png"
        assert text_of(message["content"]) == "What is in this picture?"


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_oldest_images_become_mentions_when_the_window_is_tight(run, strategy):
    names = ["cat", "dog", "owl"]
    images = [{**IMAGE, "url": f"https://example.com/uploads/{n}.png", "filename": f"{n}.png"} for n in names]
    result = run(
        [answer_turn(strategy, "Three animals.")],
        query="Compare the pictures.",
        strategy=strategy,
        files=images,
        tools=[weather_tool()],
        # a prompt budget of about 2,000 tokens: room for one or two images (765 tokens each), not three
        model={"features": VISION, "context_size": 3300, "completion_params": {"max_tokens": 1024}},
    )
    assert_clean(result, run)
    message = query_message(result.llm_requests[0], "Compare the pictures.")
    shown = [p["url"] for p in image_parts(message)]
    urls = [image["url"] for image in images]
    assert 0 < len(shown) < 3 and shown == urls[3 - len(shown) :], "the newest images stay images"
    assert "[Attached image: cat.png (image/png)]" in text_of(message["content"])
    (trimmed,) = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    assert trimmed.data["images_shown_as_text"] == 3 - len(shown)


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_image_is_a_short_mention_for_a_model_without_vision(run, strategy):
    result = run(
        [answer_turn(strategy, "I cannot see images.")],
        query="What is in this picture?",
        strategy=strategy,
        files=[IMAGE],
    )
    assert_clean(result, run)
    message = query_message(result.llm_requests[0], "What is in this picture?")
    assert isinstance(message["content"], str)
    assert message["content"] == "What is in this picture?\n[Attached image: cat.png (image/png)]"
    assert "example.com" not in json.dumps(result.llm_requests[0]["prompt_messages"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_document_is_described_by_name_and_type(run, strategy):
    result = run(
        [answer_turn(strategy, "It is a report.")],
        query="Summarize the file.",
        strategy=strategy,
        files=[DOCUMENT, IMAGE],
        model={"features": VISION},
    )
    assert_clean(result, run)
    message = query_message(result.llm_requests[0], "Summarize the file.")
    text = text_of(message["content"])
    assert "[Attached document: report.pdf (application/pdf)]" in text
    assert [p["url"] for p in image_parts(message)] == [IMAGE["url"]]
    assert not any(p.get("type") == "document" for p in message["content"])


DOCUMENTS = [*VISION, "document"]
PDF_BYTES = b"%PDF-1.4\n1 0 obj<</Type /Pages /Count 1>>endobj 2 0 obj<</Type /Page>>endobj\n%%EOF"


def document_parts(message: dict) -> list[dict]:
    content = message["content"]
    return [p for p in content if p.get("type") == "document"] if isinstance(content, list) else []


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pdf_reaches_a_model_that_reads_documents_as_data_in_every_round(run, strategy, tmp_path):
    """A PDF uploaded this turn goes to a model declaring ``document`` (Claude, Gemini) as
    document content with its bytes, as Dify's LLM node sends it; a Word file, which Anthropic's
    plugin refuses, stays a mention. (Before, the PDF was only named: the model could not read
    the file it was asked about, though the next turn's memory would carry it.)"""
    import base64

    from local_runner.files import FileServer

    (tmp_path / "report.pdf").write_bytes(PDF_BYTES)
    (tmp_path / "notes.docx").write_bytes(b"PK\x03\x04" + b"\x00" * 16)
    with FileServer() as server:
        files = [server.add(tmp_path / "report.pdf"), server.add(tmp_path / "notes.docx")]
        result = run(
            [call_turn(strategy), answer_turn(strategy, "A one-page report.")],
            query="Summarize the file.",
            strategy=strategy,
            files=files,
            tools=[weather_tool()],
            model={"features": DOCUMENTS},
        )
    assert_clean(result, run)
    for request in result.llm_requests:
        message = query_message(request, "Summarize the file.")
        (part,) = document_parts(message)
        assert base64.b64decode(part["base64_data"]) == PDF_BYTES and part["mime_type"] == "application/pdf"
        assert part["url"] == "" and part["filename"] == "report.pdf"
        assert "[Attached document: notes.docx (" in text_of(message["content"])
        assert "report.pdf" not in text_of(message["content"])


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_pdf_too_long_for_the_window_is_a_mention_and_the_trimming_says_so(run, strategy, tmp_path):
    """A 30-page PDF (about 3,000 tokens a page) for a 16K model: sent, the provider would refuse
    the request as too long; it is named instead, and CONTEXT TRIMMED counts it."""
    from local_runner.files import FileServer

    pages = b"".join(b"<</Type /Page>>" for _ in range(30))
    (tmp_path / "long.pdf").write_bytes(b"%PDF-1.4\n" + pages + b"\n%%EOF")
    with FileServer() as server:
        result = run(
            [answer_turn(strategy, "It is long.")],
            query="Summarize the file.",
            strategy=strategy,
            files=[server.add(tmp_path / "long.pdf")],
            model={"features": DOCUMENTS, "context_size": 16000},
        )
    assert_clean(result, run)
    message = query_message(result.llm_requests[0], "Summarize the file.")
    assert document_parts(message) == []
    assert "[Attached document: long.pdf (application/pdf)]" in text_of(message["content"])
    (trimmed,) = [n for n in result.logs.values() if n.label == "CONTEXT TRIMMED"]
    assert trimmed.data["documents_shown_as_text"] == 1 and trimmed.data["images_shown_as_text"] == 0


def test_files_in_a_completion_prompt_are_mentioned(run):
    result = run(
        [{"text": " ok\nFinal Answer: A cat."}],
        query="What is this?",
        strategy="ReAct",
        files=[IMAGE],
        model={"mode": "completion", "features": VISION},
    )
    assert_clean(result, run)
    (message,) = result.llm_requests[0]["prompt_messages"]
    assert isinstance(message["content"], str) and "cat.png (image/png)" in message["content"]


# --- usage ---------------------------------------------------------------------------------------------------


PRICING = {"input": "2", "output": "8", "unit": "0.000001", "currency": "USD"}
ROUND_USAGE = [(120, 30), (260, 12), (400, 45)]


def price(prompt: int, completion: int) -> float:
    return prompt * 2e-6 + completion * 8e-6


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_of_several_rounds_is_summed_and_each_round_carries_its_own(run, strategy):
    usages = [{"prompt_tokens": p, "completion_tokens": c} for p, c in ROUND_USAGE]
    turns = [
        call_turn(strategy, usage=usages[0], call_id="a"),
        call_turn(strategy, usage=usages[1], call_id="b"),
        answer_turn(strategy, "Sunny.", usage=usages[2]),
    ]
    turns[1] = dict(turns[1])
    if strategy == "ReAct":
        turns[1]["text"] = turns[1]["text"].replace("Paris", "Rome")
    else:
        turns[1]["tool_calls"] = [{"id": "b", "name": "get_weather", "arguments": '{"city": "Rome"}'}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather_tool()], model={"pricing": PRICING})
    assert_clean(result, run)

    metadata = result.execution_metadata
    assert set(metadata) == {
        "prompt_tokens",
        "prompt_unit_price",
        "prompt_price_unit",
        "prompt_price",
        "completion_tokens",
        "completion_unit_price",
        "completion_price_unit",
        "completion_price",
        "total_tokens",
        "total_price",
        "currency",
        "latency",
    }
    prompt, completion = sum(p for p, _ in ROUND_USAGE), sum(c for _, c in ROUND_USAGE)
    assert (metadata["prompt_tokens"], metadata["completion_tokens"], metadata["total_tokens"]) == (
        prompt,
        completion,
        prompt + completion,
    )
    assert metadata["prompt_price"] == pytest.approx(prompt * 2e-6)
    assert metadata["completion_price"] == pytest.approx(completion * 8e-6)
    assert metadata["total_price"] == pytest.approx(sum(price(p, c) for p, c in ROUND_USAGE))
    assert metadata["prompt_unit_price"] == pytest.approx(2) and metadata["completion_unit_price"] == pytest.approx(8)
    assert metadata["prompt_price_unit"] == pytest.approx(1e-6) and metadata["currency"] == "USD"
    assert metadata["latency"] >= 0
    assert result.json_messages[-1] == {"execution_metadata": metadata}, "exactly one summary, last"

    rounds = [n for n in result.root_logs() if n.label.startswith("ROUND")]
    thoughts = [n for n in result.logs.values() if n.label.endswith("Thought")]
    assert [n.label for n in rounds] == ["ROUND 1", "ROUND 2", "ROUND 3"]
    for nodes in (rounds, thoughts):
        assert [n.metadata["total_tokens"] for n in nodes] == [p + c for p, c in ROUND_USAGE]
        assert [n.metadata["total_price"] for n in nodes] == pytest.approx([price(p, c) for p, c in ROUND_USAGE])
        assert all(n.metadata["currency"] == "USD" for n in nodes)
    assert all(n.metadata.get("provider") == "langgenius/openai/openai" for n in thoughts)
    assert all(thought.parent_id == round_.id for thought, round_ in zip(thoughts, rounds, strict=True))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_usage_reported_as_a_running_total_on_every_chunk_is_not_double_counted(run, strategy):
    """OpenAI-style ``include_usage`` repeated per chunk: the last report is the call's usage."""
    from local_runner.backends import Pricing, make_usage

    pricing = Pricing.from_dict(PRICING)
    text = "Final Answer: Hello there." if strategy == "ReAct" else "Hello there."
    chunks = [
        {"content": text[:6], "usage": make_usage(50, 2, pricing)},
        {"content": text[6:], "usage": make_usage(50, 5, pricing)},
        {"content": "", "usage": make_usage(50, 9, pricing), "finish_reason": "stop"},
    ]
    result = run([{"chunks": chunks}], query="hi", strategy=strategy, model={"pricing": PRICING})
    assert_clean(result, run)
    assert result.text == "Hello there."
    assert result.execution_metadata["total_tokens"] == 59
    assert result.execution_metadata["total_price"] == pytest.approx(price(50, 9))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_failed_run_still_reports_the_usage_so_far(run, strategy):
    turns = [call_turn(strategy, usage={"prompt_tokens": 70, "completion_tokens": 7}), {"error": "upstream 503"}]
    result = run(turns, query="Weather?", strategy=strategy, tools=[weather_tool()], model={"pricing": PRICING})
    assert not result.ok and "upstream 503" in result.error_text
    assert result.unfinished_logs() == []
    assert result.execution_metadata["total_tokens"] == 77
    assert result.execution_metadata["total_price"] == pytest.approx(price(70, 7))


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_an_image_at_an_internal_address_reaches_the_vision_model_as_data(run, strategy, tmp_path):
    """dify#40731: a self-hosted Dify gives the plugin its internal address (``http://api:5001``),
    which no provider can fetch; the plugin fetches the image and sends its bytes, as Dify's LLM
    node does. An address nobody can fetch becomes a mention instead of a refused request."""
    import base64

    from local_runner.files import FileServer

    picture = tmp_path / "cat.png"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x01" * 32)
    with FileServer() as server:
        internal = server.add(picture)  # http://127.0.0.1:<port>/...: reachable by the plugin only
        relative = {**IMAGE, "url": "/files/abc/file-preview", "filename": "dog.png"}
        result = run(
            [answer_turn(strategy, "A cat.")],
            query="What is this?",
            strategy=strategy,
            files=[internal, relative],
            model={"features": VISION},
        )
    assert_clean(result, run)
    message = query_message(result.llm_requests[0], "What is this?")
    (part,) = image_parts(message)
    assert part["url"] == "" and base64.b64decode(part["base64_data"]) == picture.read_bytes()
    assert part["detail"] == "high"
    assert "[Attached image: dog.png (image/png)]" in text_of(message["content"])


def test_an_image_too_large_to_fetch_is_a_mention_and_the_log_says_why(run, tmp_path):
    """A 3 MB phone photo at Dify's internal address: over the plugin's fetch limit, the model
    is told of it as text, and an IMAGE AS TEXT log node says why (not a silent 'I see no image')."""
    from agent_core.file_fetch import IMAGE_MAX_BYTES
    from local_runner.files import FileServer

    picture = tmp_path / "photo.jpg"
    picture.write_bytes(b"\xff\xd8" + b"\x00" * (IMAGE_MAX_BYTES + 10))
    with FileServer() as server:
        photo = {**server.add(picture), "type": "image", "mime_type": "image/jpeg", "filename": "photo.jpg"}
        result = run([{"text": "I cannot see it."}], query="What is this?", files=[photo], model={"features": VISION})
    assert_clean(result, run)
    assert "[Attached image: photo.jpg (image/jpeg)]" in text_of(query_message(result.llm_requests[0], "What is this?")["content"])
    (note,) = [n for n in result.logs.values() if n.label == "IMAGE AS TEXT"]
    assert note.error.startswith("photo.jpg (")
