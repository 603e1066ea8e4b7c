"""SDK models built without pydantic's validation, for values already of their fields' types.

The plugin builds a few SDK models for every line it writes (a log line's ``LogMessage`` and
``AgentInvokeMessage``, a text line's (``text_message``), the ``SessionMessage`` around every
message): validating values it made
itself costs several µs a model. ``built`` makes the instance pydantic's own
``model_construct`` makes (the same ``__dict__`` and fields set), without its per-field loop;
``checks_nothing`` says whether a model is one for which that is the validated instance: its
fields as expected and nothing of its own that runs when it is built. Callers check once, at
import, and validate as before otherwise (an SDK upgrade that adds a validator)."""

from typing import Any

from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from pydantic import BaseModel

_set = object.__setattr__


def checks_nothing(model: type[BaseModel], fields: tuple[str, ...], allowed_validators: frozenset[str] = frozenset()) -> bool:
    """Whether ``model`` has exactly ``fields`` (in order) and nothing that runs when it is built
    beside the field validators named in ``allowed_validators``: no model validators, no
    ``model_post_init``, no private attributes, no extra fields kept, not a root model."""
    decorators = model.__pydantic_decorators__
    return (
        tuple(model.model_fields) == fields
        and not decorators.model_validators
        and not decorators.root_validators
        and not decorators.validators
        and set(decorators.field_validators) <= allowed_validators
        and not model.__pydantic_post_init__
        and not model.__private_attributes__
        and model.model_config.get("extra") != "allow"
        and not model.__pydantic_root_model__
    )


def built[M: BaseModel](model: type[M], values: dict[str, Any], given: set[str]) -> M:
    """``model(**{name: values[name] for name in given})`` without validation, for ``values``
    already of the fields' types and holding every field (the defaults of those not ``given``),
    for a ``model`` that ``checks_nothing``. ``values`` becomes the instance's ``__dict__``."""
    instance = model.__new__(model)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", given)
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance


_TextMessage = InvokeMessage.TextMessage
_TEXT = InvokeMessage.MessageType.TEXT
_new = object.__new__

_TEXT_UNVALIDATED = checks_nothing(_TextMessage, ("text",)) and checks_nothing(
    AgentInvokeMessage, ("type", "message", "meta"), frozenset({"decode_blob_message"})  # it reads only a blob's dict
)
"""Whether text lines are built without validation (dify_plugin 0.10.2's models); else validated."""


def text_message(text: str) -> AgentInvokeMessage:
    """``AgentStrategy.create_text_message(text)`` (a piece of the answer for the chat): the same
    instance, built as ``built`` builds one, both models in one pass (a streamed reply writes one
    a chunk), when ``_TEXT_UNVALIDATED`` and ``text`` is a ``str``; else validated."""
    if not _TEXT_UNVALIDATED or type(text) is not str:
        return AgentInvokeMessage(type=_TEXT, message=_TextMessage(text=text))
    message = _new(_TextMessage)
    _set(message, "__dict__", {"text": text})
    _set(message, "__pydantic_fields_set__", {"text"})
    _set(message, "__pydantic_extra__", None)
    _set(message, "__pydantic_private__", None)
    line = _new(AgentInvokeMessage)
    _set(line, "__dict__", {"type": _TEXT, "message": message, "meta": None})
    _set(line, "__pydantic_fields_set__", {"type", "message"})
    _set(line, "__pydantic_extra__", None)
    _set(line, "__pydantic_private__", None)
    return line
