"""Tool declarations whose display texts are missing, mended so the tool is not lost.

Tool bridges (MCP servers turned into Dify tools, workflows served as tools) declare tools whose
label, description or parameter texts are null or a bare string where the SDK's ``ToolEntity``
wants an ``I18nObject`` with an English text, or a string for the model's description. None of
these texts changes what the tool does or how it is called, so a declaration that fails only on
them is mended (``mended_texts``) rather than dropped: each missing text is taken from another
language of the same object, then from the text that says the same thing elsewhere in the
declaration (the model's description for the human one and back), then from the tool's or
parameter's name. A parameter's type, form or name is never guessed: a declaration wrong there
stays dropped.

Pure functions of the raw declaration (a dict as Dify sends it); nothing here raises.
"""

from typing import Any

_ENGLISH = ("en_US", "en_us")


def _text(value: Any) -> str | None:
    """The English text of an ``I18nObject``-like value, or its first text in another language;
    a plain string is its own text; ``None`` when there is none."""
    if isinstance(value, str):
        return value
    if not isinstance(value, dict):
        return None
    for key in _ENGLISH:
        if isinstance(value.get(key), str):
            return value[key]
    return next((text for text in value.values() if isinstance(text, str)), None)


def _i18n(value: Any, fallback: str) -> Any:
    """``value`` as an ``I18nObject`` with an English text (``value`` itself when it has one)."""
    if isinstance(value, dict) and any(isinstance(value.get(key), str) for key in _ENGLISH):
        return value
    english = _text(value)
    kept = {k: v for k, v in value.items() if k not in _ENGLISH and isinstance(v, str)} if isinstance(value, dict) else {}
    return {**kept, "en_US": english if english is not None else fallback}


def _words(name: Any) -> str:
    """A name as words (``get_table_list`` -> ``get table list``); ``""`` for a non-text name."""
    return name.replace("_", " ").replace("-", " ").strip() if isinstance(name, str) else ""


def _parameter(raw: Any) -> Any:
    if not isinstance(raw, dict):
        return raw
    name = _words(raw.get("name"))
    llm = raw.get("llm_description")
    mended = {**raw, "label": _i18n(raw.get("label"), name),
              "human_description": _i18n(raw.get("human_description"), llm if isinstance(llm, str) else "")}
    if llm is not None and not isinstance(llm, str):
        mended["llm_description"] = _text(llm)
    return mended


def mended_texts(raw: Any) -> dict[str, Any] | None:
    """``raw`` (a tool declaration) with its missing display texts filled in (see the module
    docstring), or ``None`` when ``raw`` is not a dict or nothing needed filling. The tool's
    label falls back to its name; its description for the model to its human description (and
    back), else ``""``; a parameter's label to its name, its human description to its
    description for the model, else ``""``."""
    if not isinstance(raw, dict):
        return None
    identity = raw.get("identity")
    mended = dict(raw)
    if isinstance(identity, dict):
        mended["identity"] = {**identity, "label": _i18n(identity.get("label"), _words(identity.get("name")))}
    description = raw.get("description")
    if isinstance(description, dict):
        llm = description.get("llm")
        human = description.get("human")
        llm_text = llm if isinstance(llm, str) else (_text(llm) or _text(human) or "")
        mended["description"] = {**description, "llm": llm_text, "human": _i18n(human, llm_text)}
    elif isinstance(description, str):
        mended["description"] = {"llm": description, "human": {"en_US": description}}
    parameters = raw.get("parameters")
    if isinstance(parameters, list):
        mended["parameters"] = [_parameter(parameter) for parameter in parameters]
    return None if mended == raw else mended
