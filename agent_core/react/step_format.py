"""How ReAct steps are written: as labelled text, or as JSON objects decoded against a schema.

The node's ``step_format`` parameter: ``text`` (Thought / Action / Final Answer, read by
``react.parser``), ``json_schema`` (one JSON object per step through Dify's structured-output
invocation, ``react.json_step``), or ``auto`` (the default): ``json_schema`` when the model's
plugin constrains the decoding to a schema (``constrains_decoding``); ``text`` otherwise. Forcing ``json_schema`` on a model without the feature
still works: Dify then puts the schema in the system prompt and parses the reply.
"""

from __future__ import annotations

from typing import Literal

from pydantic import field_validator

from agent_core.params import StrategyParams

STEP_FORMATS = ("auto", "text", "json_schema")
STRUCTURED_OUTPUT_FEATURE = "structured-output"
"""``ModelFeature.STRUCTURED_OUTPUT`` of the SDK's model schema."""


class ReActParams(StrategyParams):
    """The ReAct strategy's parameters: the shared ones and ``step_format`` (``STEP_FORMATS``;
    empty or unknown values mean ``auto``)."""

    step_format: Literal["auto", "text", "json_schema"] = "auto"

    @field_validator("step_format", mode="before")
    @classmethod
    def _known_format(cls, value: object) -> str:
        text = str(value or "").strip().lower().replace("-", "_")
        return text if text in STEP_FORMATS else "auto"


def chosen_step_format(params: ReActParams) -> Literal["text", "json_schema"]:
    """The format this run starts with: ``params.step_format``, ``auto`` resolved from the
    model's declared features."""
    if params.step_format != "auto":
        return params.step_format
    return "json_schema" if constrains_decoding(params) else "text"


def constrains_decoding(params: StrategyParams) -> bool:
    """Whether the model's plugin constrains decoding to a JSON schema: the model declares the
    ``structured-output`` feature, or has a ``json_schema`` parameter rule (the one Dify's
    structured-output invocation fills).

    Dify's Agent node sends the model's features filtered to an older list that lacks
    ``structured-output`` (api/core/workflow/nodes/agent/agent_node.py,
    ``_remove_unsupported_model_features_for_old_version``), so in a real Dify only the rule
    tells; the parameter rules come whole."""
    if STRUCTURED_OUTPUT_FEATURE in params.model_features():
        return True
    entity = params.model.entity
    return entity is not None and any(rule.name == "json_schema" for rule in entity.parameter_rules)
