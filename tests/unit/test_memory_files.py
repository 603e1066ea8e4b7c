"""Files in conversation memory, for a model that cannot take them (dify#20334: "If open agent
memory and not use VLM, memory will submit image causing error").

Dify's memory replays a user turn's files as content parts (image, document, video, audio);
the model-selector's ``entity.features`` say which the node's model takes (protocol §5). A part
the model cannot take becomes the same one-line mention as the current query's files.
"""

from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    AudioPromptMessageContent,
    DocumentPromptMessageContent,
    ImagePromptMessageContent,
    TextPromptMessageContent,
    UserPromptMessage,
    VideoPromptMessageContent,
)
from dify_plugin.interfaces.agent import AgentModelConfig

from agent_core.messages import clean_history, describe_file, memory_messages, query_message, takes_as_content
from agent_core.params import StrategyParams

SIGNED = "http://api:5001/files/tools/9f1c.png?timestamp=1&nonce=n&sign=s"


def image(url: str = SIGNED, filename: str = "cat.png") -> ImagePromptMessageContent:
    return ImagePromptMessageContent(url=url, format="png", mime_type="image/png", filename=filename)


def document() -> DocumentPromptMessageContent:
    return DocumentPromptMessageContent(url="https://x/a.pdf", format="pdf", mime_type="application/pdf", filename="a.pdf")


def turn_with(*parts) -> list:
    return [
        UserPromptMessage(content=[TextPromptMessageContent(data="What is this?"), *parts]),
        AssistantPromptMessage(content="A cat."),
    ]


def entity(features: list[str]) -> dict:
    return {
        "model": "m",
        "label": {"en_US": "m"},
        "model_type": "llm",
        "features": features,
        "fetch_from": "predefined-model",
        "model_properties": {"mode": "chat", "context_size": 8192},
        "parameter_rules": [],
    }


def params_with(history: list, features: list[str] | None) -> StrategyParams:
    model = {"provider": "p", "model": "m", "mode": "chat", "completion_params": {},
             "history_prompt_messages": history, "entity": entity(features) if features is not None else None}
    return StrategyParams(model=AgentModelConfig(**model), query="And now?")


def test_dify20334_memory_image_becomes_a_mention_for_a_model_without_vision():
    (user, _) = clean_history(turn_with(image()), {"tool-call"})
    assert user.content == "What is this?\n[Attached image: cat.png (image/png)]"


def test_memory_image_stays_an_image_for_a_vision_model():
    history = turn_with(image())
    (user, _) = clean_history(history, {"tool-call", "vision"})
    assert user.content == history[0].content


def test_each_kind_needs_its_own_feature():
    audio = AudioPromptMessageContent(url="https://x/a.mp3", format="mp3", mime_type="audio/mpeg", filename="a.mp3")
    video = VideoPromptMessageContent(url="https://x/v.mp4", format="mp4", mime_type="video/mp4", filename="v.mp4")
    (user, _) = clean_history(turn_with(image(), document(), audio, video), {"vision", "audio"})
    kinds = [part.type.value for part in user.content]
    assert kinds == ["text", "image", "text", "audio", "text"]
    assert [p.data for p in user.content if p.type.value == "text"][1:] == [
        "[Attached document: a.pdf (application/pdf)]",
        "[Attached video: v.mp4 (video/mp4)]",
    ]


def test_a_mention_of_an_unnamed_memory_file_never_holds_its_signed_address():
    (user, _) = clean_history(turn_with(image(filename="")), set())
    assert user.content == "What is this?\n[Attached image: 9f1c.png (image/png)]"
    assert "sign=" not in user.content


def test_features_unknown_keeps_every_part_as_before():
    history = turn_with(image(), document())
    assert clean_history(history) == clean_history(history, None)
    assert clean_history(history, None)[0].content == history[0].content


def test_history_is_not_mutated():
    history = turn_with(image())
    clean_history(history, set())
    assert isinstance(history[0].content, list) and history[0].content[1].type.value == "image"


def test_memory_messages_reads_the_features_of_the_model_entity():
    history = [m.model_dump(mode="json") for m in turn_with(image())]
    without_vision = memory_messages(params_with(history, ["tool-call"]))
    assert without_vision[0].content == "What is this?\n[Attached image: cat.png (image/png)]"
    with_vision = memory_messages(params_with(history, ["vision"]))
    assert [p.type.value for p in with_vision[0].content] == ["text", "image"]
    no_entity = memory_messages(params_with(history, None))
    assert [p.type.value for p in no_entity[0].content] == ["text", "image"], "features unknown: kept"


def test_one_mention_for_query_files_and_memory_parts():
    file = {"type": "image", "url": SIGNED, "filename": "cat.png", "mime_type": "image/png"}
    params = StrategyParams(model=AgentModelConfig(provider="p", model="m", mode="chat", completion_params={}),
                            query="q", files=[file])
    assert query_message(params, images_as_content=False).content == "q\n" + describe_file(image())
    assert takes_as_content("image", {"vision"}) and not takes_as_content("image", {"document"})
    assert takes_as_content("text", set()) and takes_as_content("video", None)


def test_query_file_without_filename_is_named_by_its_path_not_its_address():
    file = {"type": "document", "url": "http://api:5001/files/abc/report.pdf?sign=s", "mime_type": "application/pdf"}
    assert describe_file(file) == "[Attached document: report.pdf (application/pdf)]"


def test_a_file_in_an_assistant_message_is_always_a_mention():
    """An answer that showed an image is stored with it (TokenBufferMemory); OpenAI refuses an
    image in an assistant message ("assistant messages only support text content") even for a
    vision model, so only user messages carry files."""
    from dify_plugin.entities.model.message import (
        AssistantPromptMessage,
        ImagePromptMessageContent,
        TextPromptMessageContent,
        UserPromptMessage,
    )

    from agent_core.messages import clean_history

    image = ImagePromptMessageContent(url="https://example.com/cat.png", format="png", mime_type="image/png", filename="cat.png")
    answer = AssistantPromptMessage(content=[image, TextPromptMessageContent(data="Here is your cat.")])
    question = UserPromptMessage(content="Draw a cat.")
    (_, cleaned) = clean_history([question, answer], {"vision", "tool-call"})
    assert cleaned.content == "[Attached image: cat.png (image/png)]\nHere is your cat."


def test_a_blank_text_part_beside_a_file_in_memory_is_left_out():
    """A turn that sent only an image is stored with an empty text part; Anthropic refuses
    "text content blocks must be non-empty"."""
    from dify_plugin.entities.model.message import (
        ImagePromptMessageContent,
        TextPromptMessageContent,
        UserPromptMessage,
    )

    from agent_core.messages import clean_history

    image = ImagePromptMessageContent(url="https://example.com/cat.png", format="png", mime_type="image/png", filename="cat.png")
    turn = [UserPromptMessage(content=[TextPromptMessageContent(data=" "), image]), AssistantPromptMessage(content="A cat.")]
    (question, _) = clean_history(turn, {"vision"})
    assert [part.type.value for part in question.content] == ["image"]
