"""Shared prompt pieces: history made safe, files described, knowledge grounded and cited."""

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    ImagePromptMessageContent,
    SystemPromptMessage,
    ToolPromptMessage,
    UserPromptMessage,
)
from dify_plugin.interfaces.agent import AgentModelConfig

from agent_core.knowledge import context_prompt, retriever_resources
from agent_core.messages import clean_history, query_message, system_text
from agent_core.params import StrategyParams

MODEL = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {}}


def call(call_id: str) -> AssistantPromptMessage.ToolCall:
    return AssistantPromptMessage.ToolCall(
        id=call_id, type="function", function=AssistantPromptMessage.ToolCall.ToolCallFunction(name="t", arguments="{}")
    )


def test_history_drops_orphans_and_empty_messages():
    history = [
        SystemPromptMessage(content="old system"),
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="", tool_calls=[call("a"), call("b")]),
        ToolPromptMessage(content="result a", tool_call_id="a", name="t"),
        ToolPromptMessage(content="stray", tool_call_id="zzz", name="t"),
        AssistantPromptMessage(content=""),
        AssistantPromptMessage(content="answer 1"),
    ]
    cleaned = clean_history(history)
    assert [type(m).__name__ for m in cleaned] == [
        "UserPromptMessage",
        "AssistantPromptMessage",
        "ToolPromptMessage",
        "AssistantPromptMessage",
    ]
    assert [c.id for c in cleaned[1].tool_calls] == ["a"]
    assert len(history[2].tool_calls) == 2  # input not mutated


def test_params_accept_empty_values_and_clamp():
    params = StrategyParams.model_validate(
        {"model": MODEL, "tools": None, "query": None, "context": None, "files": None, "maximum_iterations": "900"}
    )
    assert params.tools == [] and params.query == "" and params.context == [] and params.maximum_iterations == 500


def test_image_goes_to_vision_model_and_documents_are_mentioned():
    image = {"type": "image", "url": "https://example.com/cat.png", "filename": "cat.png", "mime_type": "image/png", "extension": ".png"}
    doc = {"type": "document", "url": "https://x/a.pdf", "filename": "a.pdf", "mime_type": "application/pdf"}
    params = StrategyParams(model=AgentModelConfig(**MODEL), query="what is this?", files=[image, doc])
    vision = query_message(params, images_as_content=True)
    assert isinstance(vision.content, list)
    assert any(isinstance(part, ImagePromptMessageContent) and part.url.endswith("cat.png") for part in vision.content)
    assert "a.pdf (application/pdf)" in vision.content[0].data
    text_only = query_message(params, images_as_content=False)
    assert isinstance(text_only.content, str) and "cat.png" in text_only.content and "a.pdf" in text_only.content


def test_knowledge_is_grounding_and_citations():
    items = [
        {"content": "Paris is the capital of France.", "title": "geo.txt",
         "metadata": {"position": 1, "dataset_id": "d1", "dataset_name": "Geo", "document_id": "doc1",
                      "document_name": "geo.txt", "segment_id": "s1", "score": 0.9}},
        {"content": ""},
    ]
    params = StrategyParams(model=AgentModelConfig(**MODEL), instruction="Be brief.", context=items)
    text = system_text(params)
    assert text.startswith("Be brief.") and "[1] geo.txt\nParis is the capital" in text
    (resource,) = retriever_resources(items)
    assert (resource.dataset_id, resource.segment_id, resource.score, resource.position) == ("d1", "s1", 0.9, 1)
    assert context_prompt([]) == ""


def test_a_citation_keeps_the_source_type_the_knowledge_retrieval_node_names_its_own_way():
    item = {"content": "c", "title": "t", "metadata": {"_source": "knowledge", "dataset_id": "d",
                                                       "document_data_source_type": "upload_file"}}
    (resource,) = retriever_resources([item])
    assert resource.data_source_type == "upload_file"


def test_run_time_limit_comes_from_the_node_else_the_daemon_environment(monkeypatch):
    from agent_core.params import default_run_timeout

    monkeypatch.delenv("AGENT_RUN_TIMEOUT", raising=False)
    monkeypatch.setenv("PLUGIN_MAX_EXECUTION_TIMEOUT", "600")
    assert default_run_timeout() == 600
    assert StrategyParams.model_validate({"model": MODEL, "run_timeout": None}).run_timeout == 600
    assert StrategyParams.model_validate({"model": MODEL, "run_timeout": "90"}).run_timeout == 90
    monkeypatch.delenv("PLUGIN_MAX_EXECUTION_TIMEOUT")
    assert default_run_timeout() == 240


def test_a_malformed_agent_run_timeout_gives_way_to_the_daemon_s_limit(monkeypatch):
    """``AGENT_RUN_TIMEOUT`` that is no number is skipped: the daemon's 600 s holds, not the
    240 s default (which would end runs the daemon would have let finish)."""
    from agent_core.params import default_run_timeout

    monkeypatch.setenv("AGENT_RUN_TIMEOUT", "ten minutes")
    monkeypatch.setenv("PLUGIN_MAX_EXECUTION_TIMEOUT", "600")
    assert default_run_timeout() == 600
    monkeypatch.setenv("PLUGIN_MAX_EXECUTION_TIMEOUT", "120")
    assert default_run_timeout() == 120
    monkeypatch.delenv("PLUGIN_MAX_EXECUTION_TIMEOUT")
    assert default_run_timeout() == 240


def test_memory_starts_with_the_user_and_takes_turns():
    """TokenBufferMemory prunes one message at a time, so memory may start with an answer; a
    failed turn leaves a question with an empty answer. Bedrock and strict chat templates
    (Mistral, Gemma) refuse both shapes."""
    history = [
        AssistantPromptMessage(content="An answer whose question was pruned."),
        UserPromptMessage(content="A question whose answer failed."),
        AssistantPromptMessage(content=""),
        UserPromptMessage(content="Hi"),
        AssistantPromptMessage(content="Hello!"),
        UserPromptMessage(content="The last question, whose answer failed."),
    ]
    assert [(m.role.value, m.content) for m in clean_history(history)] == [("user", "Hi"), ("assistant", "Hello!")]


def test_reasoning_in_a_text_part_of_memory_is_dropped():
    from dify_plugin.entities.model.message import TextPromptMessageContent

    history = [
        UserPromptMessage(content="Hi"),
        AssistantPromptMessage(content=[TextPromptMessageContent(data="<think>secret reasoning</think>Here it is.")]),
    ]
    assert clean_history(history)[1].content == "Here it is."  # text parts only: one string


def test_the_instructions_context_placeholder_holds_the_knowledge_context():
    """As in Dify's LLM node: {{#context#}} in the instruction is where the context goes."""
    model = AgentModelConfig(provider="p", model="m", mode="chat", completion_params={})
    context = [{"content": "Paris is the capital of France.", "title": "atlas.md"}]
    params = StrategyParams(model=model, query="q", instruction="Answer only from:\n{{#context#}}\nIf unsure, say so.", context=context)
    text = system_text(params)
    assert "{{#context#}}" not in text
    assert text.index("Paris is the capital") < text.index("If unsure, say so.")
    assert text.count("Paris is the capital") == 1
    empty = StrategyParams(model=model, query="q", instruction="Answer from:\n{{#context#}}")
    assert system_text(empty) == "Answer from:"


def test_a_tool_result_in_memory_without_a_name_gets_its_calls_name():
    # Gemini's plugin sends the name as the function response's, and Gemini refuses an empty one
    history = [
        UserPromptMessage(content="weather in Rome?"),
        AssistantPromptMessage(content="", tool_calls=[call("a")]),
        ToolPromptMessage(content="Rainy", tool_call_id="a", name=""),
        AssistantPromptMessage(content="It is rainy in Rome."),
    ]
    cleaned = clean_history(history)
    assert cleaned[2].name == "t" and cleaned[2].content == "Rainy"
    assert history[2].name == ""  # input not mutated


def test_an_empty_query_is_never_an_empty_user_message():
    # Anthropic and Bedrock refuse an empty text block; the instruction may hold the task
    from agent_core.prompts import EMPTY_QUERY

    for query in ("", "   ", None):
        params = StrategyParams.model_validate({"model": MODEL, "query": query})
        assert query_message(params, images_as_content=False).content == EMPTY_QUERY


def test_thousands_of_citations_fit_one_line_the_best_ranked_first():
    from agent_core.knowledge import fitting_resources
    from agent_core.line_budget import encoded_size

    items = [{"content": f"chunk {n} " + "x" * 2_000, "metadata": {"_source": "knowledge", "dataset_id": "d", "position": n + 1}}
             for n in range(3_000)]
    resources = retriever_resources(items)
    kept = fitting_resources(resources, limit=1_000_000)
    assert 0 < len(kept) < len(resources) and kept[0].position == 1
    assert encoded_size([r.model_dump(mode="json") for r in kept]) <= 1_000_000
    assert fitting_resources(resources[:3]) == resources[:3]  # what fits goes as it is


def test_citations_are_redacted_in_every_text_and_those_without_a_secret_kept_as_they_are():
    from agent_core.knowledge import redacted_resources
    from agent_core.redaction import secret_forms

    items = [{"content": "key k3y9 here", "title": "doc k3y9", "metadata": {"_source": "knowledge", "dataset_id": "d"}},
             {"content": "nothing", "title": "plain", "metadata": {"_source": "knowledge", "dataset_id": "d"}}]
    resources = retriever_resources(items)
    out = redacted_resources(resources, secret_forms({"k3y9"}).redact)
    assert (out[0].content, out[0].document_name) == ("key [REDACTED] here", "doc [REDACTED]")
    assert out[1] is resources[1]


def test_a_pdf_the_plugin_fetched_goes_to_a_document_model_as_data_and_other_documents_are_mentioned():
    """A model declaring ``document`` is sent the query's PDF as Dify's LLM node sends it (base64
    data); a Word file, which Anthropic's plugin refuses in the last user message, stays a mention,
    and so does every document for a model that does not read them."""
    import base64

    from dify_plugin.entities.model.message import DocumentPromptMessageContent

    pdf = {"type": "document", "url": "http://api:5001/files/a/file-preview", "filename": "a.pdf",
           "mime_type": "application/pdf", "extension": ".pdf"}
    docx = {"type": "document", "url": "http://api:5001/files/b/file-preview", "filename": "b.docx",
            "mime_type": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}
    blobs = {pdf["url"]: b"%PDF-1.4 x", docx["url"]: b"PK"}
    params = StrategyParams(model=AgentModelConfig(**MODEL), query="Summarize", files=[pdf, docx])
    message = query_message(params, images_as_content=True, documents_as_content=True, blobs=blobs)
    (document,) = [part for part in message.content if isinstance(part, DocumentPromptMessageContent)]
    assert base64.b64decode(document.base64_data) == b"%PDF-1.4 x" and document.url == ""
    assert (document.mime_type, document.format, document.filename) == ("application/pdf", "pdf", "a.pdf")
    assert message.content[0].data == "Summarize\n[Attached document: b.docx (" + docx["mime_type"] + ")]"
    without = query_message(params, images_as_content=True, documents_as_content=False, blobs=blobs)
    assert isinstance(without.content, str) and "[Attached document: a.pdf (application/pdf)]" in without.content
    not_fetched = query_message(params, images_as_content=True, documents_as_content=True, blobs={})
    assert isinstance(not_fetched.content, str) and "a.pdf" in not_fetched.content
    trimmed = query_message(params, images_as_content=True, documents_as_content=True, files_as_text=1, blobs=blobs)
    assert isinstance(trimmed.content, str) and "a.pdf" in trimmed.content


def test_a_pdf_is_sent_with_the_exact_mime_type_anthropic_compares_to():
    # a remote file's type as its server wrote the header: accepted as a PDF, so it must be sent
    # as "application/pdf", which Anthropic's plugin compares exactly (it refuses the request else)
    from dify_plugin.entities.model.message import DocumentPromptMessageContent

    pdf = {"type": "document", "url": "https://example.com/a.pdf", "filename": "a.pdf",
           "mime_type": "Application/PDF; charset=binary", "extension": ".pdf"}
    params = StrategyParams(model=AgentModelConfig(**MODEL), query="Summarize", files=[pdf])
    message = query_message(params, images_as_content=True, documents_as_content=True, blobs={pdf["url"]: b"%PDF-1.4"})
    (document,) = [part for part in message.content if isinstance(part, DocumentPromptMessageContent)]
    assert document.mime_type == "application/pdf"


def test_knowledge_cut_keeps_the_head_within_both_limits_and_says_how_much_is_left_out():
    from agent_core.knowledge import cut_context
    from agent_core.tokens import estimate_tokens

    block = "[1] best\n" + "alpha beta gamma " * 2000 + "\n\n[2] worst\nomega"
    assert cut_context(block) == (block, 0) and cut_context(block, 10**6, 10**6) == (block, 0)
    text, left_out = cut_context(block, 500, None)
    assert text.startswith("[1] best") and "worst" not in text and estimate_tokens(text) <= 500
    assert text.endswith(f"({left_out} characters) is left out: it does not fit the model's context window]")
    text, left_out = cut_context(block, None, 1000)
    assert len(text) <= 1000 and text.startswith("[1] best") and left_out == len(block) - len(text.split("\n[...")[0])
    assert cut_context(block, 3, None) == ("", len(block))  # not even the note fits


def test_two_answers_in_a_row_become_one_assistant_message():
    """A turn whose query was empty leaves its answer right after the answer before it (Dify
    keeps the pair, the empty query is dropped): one assistant message with both texts, in order,
    so user and assistant still take turns (Hunyuan refuses an assistant after an assistant)."""
    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="a1"),
        UserPromptMessage(content="  "),
        AssistantPromptMessage(content="<think>plan</think>a2"),
        UserPromptMessage(content="q3"),
        AssistantPromptMessage(content="a3"),
    ]
    cleaned = clean_history(history)
    assert [(m.role.value, m.content) for m in cleaned] == [("user", "q1"), ("assistant", "a1\n\na2"), ("user", "q3"), ("assistant", "a3")]
    assert history[1].content == "a1"  # the input is not mutated


def test_a_text_answer_then_a_tool_round_in_a_row_keep_the_calls():
    """An answer followed by an assistant tool round (its query gone): one assistant message with
    the answer's text and the round's calls, then the round's result."""
    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content="a1"),
        AssistantPromptMessage(content="checking", tool_calls=[call("x")]),
        ToolPromptMessage(content="r", tool_call_id="x", name="t"),
        AssistantPromptMessage(content="done"),
    ]
    cleaned = clean_history(history)
    assert [m.role.value for m in cleaned] == ["user", "assistant", "tool", "assistant"]
    assert cleaned[1].content == "a1\n\nchecking" and [c.id for c in cleaned[1].tool_calls] == ["x"]


def test_answers_in_a_row_with_a_file_keep_both_in_order():
    """An assistant message holding a file (described in text) after a text answer: one message,
    the text first."""
    image = ImagePromptMessageContent(format="png", base64_data="AAAA", mime_type="image/png", filename="cat.png")
    history = [UserPromptMessage(content="q"), AssistantPromptMessage(content="first"),
               AssistantPromptMessage(content=[image])]
    _user, answer = clean_history(history, ["vision"])
    text = answer.content if isinstance(answer.content, str) else " ".join(getattr(p, "data", "") for p in answer.content)
    assert text.startswith("first") and "cat.png" in text, answer.content


def test_blank_text_beside_memory_tool_calls_is_left_out():
    """A model's "\\n\\n" before its calls, kept in memory: Anthropic and Bedrock refuse a blank
    text block, so the calls go back with empty content."""
    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content=" \n\n", tool_calls=[call("x")]),
        ToolPromptMessage(content="r", tool_call_id="x", name="t"),
        AssistantPromptMessage(content="a1"),
    ]
    cleaned = clean_history(history)
    assert cleaned[1].content == "" and [c.id for c in cleaned[1].tool_calls] == ["x"]


def test_an_answer_of_text_parts_only_goes_back_as_one_string():
    """Ollama's API takes a message's content as a string and Bedrock's plugin an assistant's
    content as one text: an answer made of text parts (a blank one among them) is one string."""
    from dify_plugin.entities.model.message import TextPromptMessageContent

    history = [
        UserPromptMessage(content="q1"),
        AssistantPromptMessage(content=[TextPromptMessageContent(data="a1")]),
        UserPromptMessage(content="q2"),
        AssistantPromptMessage(content=[TextPromptMessageContent(data=""), TextPromptMessageContent(data="a2")]),
    ]
    assert [m.content for m in clean_history(history)] == ["q1", "a1", "q2", "a2"]
