"""MCP tools as Dify hands them to an agent strategy, through ``tool_schema``.

Dify turns an MCP tool's ``inputSchema`` into ``ToolParameter``s
(``ToolTransformService.convert_mcp_schema_to_parameter``): one per top-level property, typed by
the property's ``type`` (its first entry when a list; ``integer`` as ``number``; ``string`` when
none: an ``anyOf`` or a ``$ref``), with the property's schema as ``input_schema`` only for
``array`` and ``object``. The root's ``$defs`` and ``required`` of nested objects stay only inside
those ``input_schema``s. ``MCP_TOOLS`` are tool schemas of public MCP servers (their shapes as
the servers publish them), each with arguments a model writes for it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.tool_schema import ToolRegistry, to_prompt_tool

_LANGUAGES = ("en_US", "zh_Hans", "pt_BR", "ja_JP")


def _i18n(text: str) -> dict[str, str]:
    return dict.fromkeys(_LANGUAGES, text)


def dify_parameters(input_schema: dict[str, Any]) -> list[dict[str, Any]]:
    """The ``ToolParameter`` dumps Dify makes of an MCP ``inputSchema`` (see the module docstring)."""
    if input_schema.get("type") != "object" or "properties" not in input_schema:
        return []
    required = input_schema.get("required", [])
    parameters = []
    for name, prop in input_schema["properties"].items():
        kind = prop.get("type", "string")
        if isinstance(kind, list):
            kind = kind[0]
        kind = {"integer": "number", "float": "number"}.get(kind, kind)
        description = prop.get("description", "")
        parameters.append({
            "name": name, "label": _i18n(name), "human_description": _i18n(description), "placeholder": None,
            "type": kind, "form": "llm", "llm_description": description, "required": name in required,
            "default": None, "min": None, "max": None, "precision": None, "options": [], "scope": None,
            "auto_generate": None, "template": None, "multiple": False,
            "input_schema": prop if kind in ("array", "object") else None,
        })
    return parameters


def mcp_entity(name: str, description: str, input_schema: dict[str, Any], provider: str = "mcp-server-id") -> dict[str, Any]:
    """The element of the Agent node's ``tools`` Dify sends for one MCP tool."""
    return {
        "identity": {"author": "Anonymous", "name": name, "label": _i18n(name), "provider": provider, "icon": ""},
        "parameters": dify_parameters(input_schema),
        "description": {"human": _i18n(description), "llm": description},
        "output_schema": {},
        "has_runtime_parameters": len(input_schema) > 0,
        "runtime_parameters": {},
        "credential_id": None,
        "provider_type": "mcp",
    }


def _obj(properties: dict[str, Any], required: list[str] | None = None, **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, **({"required": required} if required is not None else {}), **more}


_S = {"type": "string"}
_ROOT = {"additionalProperties": False, "$schema": "http://json-schema.org/draft-07/schema#"}

MCP_TOOLS: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    # (name, description, inputSchema, arguments a model writes)
    ("edit_file", "Make line-based edits to a text file.", _obj({
        "path": _S,
        "edits": {"type": "array", "items": _obj({"oldText": {"type": "string", "description": "Text to search for - must match exactly"},
                                                   "newText": {"type": "string", "description": "Text to replace with"}},
                                                  ["oldText", "newText"], additionalProperties=False)},
        "dryRun": {"type": "boolean", "default": False, "description": "Preview changes using git-style diff format"},
    }, ["path", "edits"], **_ROOT), {"path": "/a.py", "edits": [{"oldText": "x = 1", "newText": "x = 2"}], "dryRun": True}),
    ("read_multiple_files", "Read the contents of multiple files simultaneously.",
     _obj({"paths": {"type": "array", "items": _S}}, ["paths"], **_ROOT), {"paths": ["/a.py", "/b.py"]}),
    ("search_files", "Recursively search for files and directories matching a pattern.",
     _obj({"path": _S, "pattern": _S, "excludePatterns": {"type": "array", "items": _S, "default": []}}, ["path", "pattern"], **_ROOT),
     {"path": "/src", "pattern": "*.ts", "excludePatterns": ["node_modules"]}),
    ("read_text_file", "Read the complete contents of a file from the file system as text.",
     _obj({"path": _S, "tail": {"type": "number", "description": "If provided, returns only the last N lines of the file"},
           "head": {"type": "number", "description": "If provided, returns only the first N lines of the file"}}, ["path"], **_ROOT),
     {"path": "/a.log", "tail": 20}),
    ("create_entities", "Create multiple new entities in the knowledge graph", _obj({"entities": {"type": "array", "items": _obj({
        "name": {"type": "string", "description": "The name of the entity"},
        "entityType": {"type": "string", "description": "The type of the entity"},
        "observations": {"type": "array", "items": _S, "description": "An array of observation contents associated with the entity"},
    }, ["name", "entityType", "observations"])}}, ["entities"]),
     {"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]},
                   {"name": "Babbage", "entityType": "person", "observations": []}]}),
    ("create_relations", "Create multiple new relations between entities in the knowledge graph.",
     _obj({"relations": {"type": "array", "items": _obj({"from": _S, "to": _S, "relationType": _S}, ["from", "to", "relationType"])}}, ["relations"]),
     {"relations": [{"from": "Ada", "to": "Babbage", "relationType": "worked with"}]}),
    ("get_current_time", "Get current time in a specific timezones", _obj({"timezone": {
        "type": "string", "description": "IANA timezone name (e.g., 'America/New_York', 'Europe/London')."}}, ["timezone"]),
     {"timezone": "Europe/Paris"}),
    ("convert_time", "Convert time between timezones", _obj({
        "source_timezone": _S, "time": {"type": "string", "description": "Time to convert in 24-hour format (HH:MM)"}, "target_timezone": _S},
        ["source_timezone", "time", "target_timezone"]), {"source_timezone": "UTC", "time": "16:30", "target_timezone": "Asia/Tokyo"}),
    ("fetch", "Fetches a URL from the internet and optionally extracts its contents as markdown.", _obj({
        "url": {"description": "URL to fetch", "format": "uri", "minLength": 1, "title": "Url", "type": "string"},
        "max_length": {"default": 5000, "description": "Maximum number of characters to return.", "exclusiveMaximum": 1000000,
                       "exclusiveMinimum": 0, "title": "Max Length", "type": "integer"},
        "start_index": {"default": 0, "minimum": 0, "title": "Start Index", "type": "integer"},
        "raw": {"default": False, "title": "Raw", "type": "boolean"}}, ["url"], title="Fetch", description="Parameters for fetching a URL."),
     {"url": "https://example.com", "max_length": 2000, "start_index": 0, "raw": False}),
    ("git_add", "Adds file contents to the staging area", _obj({
        "repo_path": {"title": "Repo Path", "type": "string"}, "files": {"items": _S, "title": "Files", "type": "array"}},
        ["repo_path", "files"], title="GitAdd"), {"repo_path": "/repo", "files": ["a.py", "docs/b.md"]}),
    ("annotatedMessage", "Demonstrates how annotations can be used to provide metadata about content", _obj({
        "messageType": {"type": "string", "enum": ["error", "success", "debug"], "description": "Type of message to demonstrate different annotation patterns"},
        "includeImage": {"type": "boolean", "default": False}}, ["messageType"], **_ROOT), {"messageType": "success", "includeImage": True}),
    ("create_pull_request_review", "Create a review on a pull request", _obj({
        "owner": _S, "repo": _S, "pull_number": {"type": "number"}, "body": _S,
        "event": {"type": "string", "enum": ["APPROVE", "REQUEST_CHANGES", "COMMENT"]},
        "comments": {"type": "array", "items": {"anyOf": [
            _obj({"path": _S, "position": {"type": "number"}, "body": _S}, ["path", "position", "body"], additionalProperties=False),
            _obj({"path": _S, "line": {"type": "number"}, "body": _S}, ["path", "line", "body"], additionalProperties=False)]},
            "description": "Comments to post as part of the review"}}, ["owner", "repo", "pull_number", "body", "event"], **_ROOT),
     {"owner": "o", "repo": "r", "pull_number": 7, "body": "LGTM", "event": "COMMENT",
      "comments": [{"path": "a.py", "position": 3, "body": "nit"}, {"path": "b.py", "line": 10, "body": "why?"}]}),
    ("push_files", "Push multiple files to a GitHub repository in a single commit", _obj({
        "owner": _S, "repo": _S, "branch": _S, "message": _S,
        "files": {"type": "array", "items": _obj({"path": _S, "content": _S}, ["path", "content"], additionalProperties=False)}},
        ["owner", "repo", "branch", "files", "message"], **_ROOT),
     {"owner": "o", "repo": "r", "branch": "main", "message": "add", "files": [{"path": "a.md", "content": "# A\n\"quoted\"\n"}]}),
    ("browser_click", "Perform click on a web page", _obj({
        "element": {"type": "string", "description": "Human-readable element description used to obtain permission to interact with the element"},
        "ref": {"type": "string", "description": "Exact target element reference from the page snapshot"},
        "doubleClick": {"type": "boolean"}, "button": {"type": "string", "enum": ["left", "right", "middle"]},
        "modifiers": {"type": "array", "items": {"type": "string", "enum": ["Alt", "Control", "ControlOrMeta", "Meta", "Shift"]}}},
        ["element", "ref"], **_ROOT), {"element": "Submit button", "ref": "e12", "button": "left", "modifiers": ["Shift", "Alt"]}),
    ("browser_fill_form", "Fill multiple form fields", _obj({"fields": {"type": "array", "items": _obj({
        "name": {"type": "string", "description": "Human-readable field name"},
        "type": {"type": "string", "enum": ["textbox", "checkbox", "radio", "combobox", "slider"], "description": "Type of the field"},
        "ref": _S, "value": {"type": "string", "description": "Value to fill in the field."}},
        ["name", "type", "ref", "value"], additionalProperties=False), "description": "Fields to fill in"}}, ["fields"], **_ROOT),
     {"fields": [{"name": "Email", "type": "textbox", "ref": "e3", "value": "a@b.c"}, {"name": "Agree", "type": "checkbox", "ref": "e4", "value": "true"}]}),
    ("API-post-search", "Notion | Search by title", _obj({
        "query": {"type": "string", "description": "The text that the API compares page and database titles against."},
        "sort": _obj({"direction": {"type": "string", "enum": ["ascending", "descending"]}, "timestamp": {"type": "string", "enum": ["last_edited_time"]}},
                     description="A set of criteria, `direction` and `timestamp` keys, that orders the results."),
        "filter": _obj({"value": {"type": "string", "enum": ["page", "database"]}, "property": {"type": "string", "enum": ["object"]}},
                       description="A set of criteria, `value` and `property` keys, that limits the results to either only pages or only databases."),
        "start_cursor": _S, "page_size": {"type": "integer", "default": 100}}),
     {"query": "Roadmap", "filter": {"value": "page", "property": "object"}, "sort": {"direction": "descending", "timestamp": "last_edited_time"}, "page_size": 10}),
    ("slack_get_channel_history", "Get recent messages from a channel", _obj({
        "channel_id": {"type": "string", "description": "The ID of the channel"},
        "limit": {"type": "number", "default": 10, "description": "Number of messages to retrieve (default 10)"}}, ["channel_id"]),
     {"channel_id": "C0123", "limit": 5}),
    ("brave_web_search", "Performs a web search using the Brave Search API. " + "Use this for broad information gathering. " * 40, _obj({
        "query": {"type": "string", "description": "Search query (max 400 chars, 50 words)"},
        "count": {"type": "number", "description": "Number of results (1-20, default 10)", "default": 10},
        "offset": {"type": "number", "description": "Pagination offset (max 9, default 0)", "default": 0}}, ["query"]),
     {"query": "MCP spec 2025-06-18", "count": 5}),
    ("firecrawl_scrape", "Scrape content from a single URL with advanced options.", _obj({
        "url": {"type": "string", "format": "uri"},
        "formats": {"type": "array", "items": {"oneOf": [
            {"type": "string", "enum": ["markdown", "html", "rawHtml", "screenshot", "links", "summary"]},
            _obj({"type": {"type": "string", "const": "json"}, "prompt": _S, "schema": {"type": "object", "additionalProperties": {}}}, ["type"])]},
            "default": ["markdown"]},
        "onlyMainContent": {"type": "boolean", "default": True},
        "waitFor": {"type": "number"},
        "actions": {"type": "array", "items": _obj({
            "type": {"type": "string", "enum": ["wait", "click", "screenshot", "write", "press", "scroll", "scrape", "executeJavascript"]},
            "selector": _S, "milliseconds": {"type": "number"}, "text": _S, "key": _S,
            "direction": {"type": "string", "enum": ["up", "down"]}}, ["type"])},
        "location": _obj({"country": _S, "languages": {"type": "array", "items": _S}})}, ["url"]),
     {"url": "https://example.com", "formats": ["markdown", {"type": "json", "prompt": "prices", "schema": {"type": "object", "properties": {"price": {"type": "number"}}}}],
      "actions": [{"type": "wait", "milliseconds": 500}, {"type": "click", "selector": "#more"}], "location": {"country": "DE", "languages": ["de-DE"]}}),
    ("web_search_exa", "Search the web using Exa AI", _obj({
        "query": {"type": "string", "description": "Search query"},
        "numResults": {"type": "number", "description": "Number of search results to return (default: 5)"}}, ["query"], **_ROOT),
     {"query": "vector databases", "numResults": 3}),
    ("execute_sql", "Executes raw SQL in the Postgres database.", _obj({"project_id": _S, "query": {"type": "string", "description": "The SQL query to execute"}},
                                                                       ["project_id", "query"], **_ROOT),
     {"project_id": "abcd", "query": "select * from \"users\" where name = 'O''Brien' and data->>'k' = '{}';"}),
    ("create_price", "This tool will create a price in Stripe.", _obj({
        "product": {"type": "string", "description": "The ID of the product to create the price for."},
        "unit_amount": {"type": "integer", "description": "The unit amount of the price in cents."},
        "currency": {"type": "string", "description": "The currency of the price."}}, ["product", "unit_amount", "currency"], **_ROOT),
     {"product": "prod_1", "unit_amount": 1999, "currency": "usd"}),
    ("get-library-docs", "Fetches up-to-date documentation for a library.", _obj({
        "context7CompatibleLibraryID": {"type": "string", "description": "Exact Context7-compatible library ID (e.g., '/mongodb/docs')"},
        "topic": {"type": "string", "description": "Topic to focus documentation on (e.g., 'hooks', 'routing')."},
        "tokens": {"type": "number", "description": "Maximum number of tokens of documentation to retrieve (default: 10000)."}},
        ["context7CompatibleLibraryID"], **_ROOT), {"context7CompatibleLibraryID": "/vercel/next.js", "topic": "routing", "tokens": 5000}),
    # zod's .nullable() and a map (z.record) as the TypeScript SDK publishes them
    ("update_issue", "Update an issue's labels, assignees and milestone", _obj({
        "issue_number": {"type": "number"}, "title": {"type": ["string", "null"]},
        "labels": {"type": ["array", "null"], "items": _S}, "milestone": {"type": ["number", "null"]},
        "metadata": {"type": "object", "additionalProperties": {"type": "string"}, "description": "Free key/value pairs"}},
        ["issue_number"], **_ROOT), {"issue_number": 3, "title": None, "labels": None, "milestone": 2, "metadata": {"team": "core", "prio": "p1"}}),
    # enums of numbers, nested: a depth list and page sizes
    ("set_levels", "Set the log levels of several components", _obj({
        "levels": {"type": "array", "items": _obj({"component": _S, "level": {"type": "integer", "enum": [0, 10, 20, 30, 40, 50]}}, ["component", "level"])},
        "sample_rate": {"type": "object", "properties": {"ratio": {"type": "number", "enum": [0.1, 0.5, 1]}}}}, ["levels"]),
     {"levels": [{"component": "db", "level": 10}, {"component": "api", "level": 40}], "sample_rate": {"ratio": 0.5}}),
]
"""20+ tool schemas of public MCP servers: modelcontextprotocol/servers (filesystem, memory, time,
fetch, git, everything, github), microsoft/playwright-mcp, Notion, Slack, Brave Search,
Firecrawl, Exa, Supabase, Stripe, Context7; the last two are shapes of the TypeScript SDK's
nullable types and maps, and of number enums nested in arrays and objects."""


def entity_of(name: str) -> ToolEntity:
    tool = next(t for t in MCP_TOOLS if t[0] == name)
    return ToolEntity.model_validate(mcp_entity(tool[0], tool[1], tool[2]))


def _walk(value: Any):
    if isinstance(value, dict):
        yield value
        for item in value.values():
            yield from _walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item)


def _refs(value: Any) -> list[str]:
    return [node["$ref"] for node in _walk(value) if isinstance(node.get("$ref"), str)]


def _registry(*entities: ToolEntity, provider_names: bool = True) -> ToolRegistry:
    return ToolRegistry(list(entities), provider_names=provider_names)


# --- what the model reads -------------------------------------------------------------------------


@pytest.mark.parametrize("provider_names", [True, False], ids=["function_calling", "ReAct"])
def test_every_mcp_tool_s_object_and_array_parameters_reach_the_model_whole(provider_names):
    """Nested properties, enum values (numbers among them), nested ``required``, item shapes,
    ``anyOf`` / ``oneOf`` branches and ``additionalProperties`` of each object or array parameter
    are in the declaration as the server wrote them; the tool's ``required`` list too. (A scalar
    parameter's ``enum``, ``default`` and ``format`` Dify drops before the strategy sees it.)"""
    entities = [ToolEntity.model_validate(mcp_entity(name, text, schema)) for name, text, schema, _ in MCP_TOOLS]
    declared = _registry(*entities, provider_names=provider_names).prompt_tools_by_name()
    assert len(declared) == len(MCP_TOOLS) >= 20
    for name, _, schema, _ in MCP_TOOLS:
        parameters = declared[name].parameters
        assert sorted(parameters["required"]) == sorted(schema.get("required", [])), name
        assert set(parameters["properties"]) == set(schema["properties"]), name
        for key, given in schema["properties"].items():
            if given.get("type") in ("array", "object") or (isinstance(given.get("type"), list) and given["type"][0] in ("array", "object")):
                assert parameters["properties"][key] == given, (name, key)


@pytest.mark.parametrize("provider_names", [True, False], ids=["function_calling", "ReAct"])
def test_arguments_a_model_writes_for_each_mcp_tool_run_and_reach_the_tool_intact(provider_names):
    """Arrays of objects, nested objects, ``null`` for a nullable, numbers from a number enum,
    quotes and JSON in a string: no valid call is refused, and the tool gets what the model wrote."""
    entities = [ToolEntity.model_validate(mcp_entity(name, text, schema)) for name, text, schema, _ in MCP_TOOLS]
    registry = _registry(*entities, provider_names=provider_names)
    for entity, (name, _, _, arguments) in zip(entities, MCP_TOOLS, strict=True):
        assert registry.validate_arguments(entity, arguments) is None, name
        assert registry.invocation_parameters(entity, arguments) == arguments, name


NOTION_BLOCKS = {
    "type": "object",
    "$defs": {"richTextRequest": _obj({"text": _obj({"content": _S}, ["content"])}, ["text"])},
    "properties": {
        "block_id": {"type": "string", "description": "Identifier for a block"},
        "children": {"type": "array", "items": {"$ref": "#/$defs/richTextRequest"}, "description": "Child content to append"},
    },
    "required": ["block_id", "children"],
}
"""An OpenAPI-made MCP tool (Notion's, Pydantic's models alike): items referring to the root's
``$defs``, which Dify's conversion leaves behind (each parameter keeps only its own schema)."""


def test_a_reference_to_the_root_s_defs_dify_left_behind_is_no_dangling_ref_in_the_declaration():
    """It was sent as is: the model read an item shape of nothing, and a provider that checks
    references (OpenAI) refuses the whole request. Now the items take any value, described."""
    entity = ToolEntity.model_validate(mcp_entity("API-patch-block-children", "Append block children", NOTION_BLOCKS))
    parameters = to_prompt_tool(entity).parameters
    assert _refs(parameters) == []
    assert parameters["properties"]["children"] == {"type": "array", "items": {}, "description": "Child content to append"}


def test_a_reference_into_another_parameter_is_replaced_by_the_schema_it_names():
    """zod-to-json-schema writes a reused subschema as ``{"$ref": "#/properties/<name>/..."}``:
    it resolves in the tool's own parameters, so the model reads the item shape in place (and
    ReAct's step schema, which nests each tool's parameters, has no reference that would point
    elsewhere there)."""
    schema = _obj({
        "add": {"type": "array", "items": _obj({"path": _S, "mode": {"type": "integer", "enum": [644, 755]}}, ["path"])},
        "remove": {"type": "array", "items": {"$ref": "#/properties/add/items", "description": "a file"}},
    })
    parameters = to_prompt_tool(ToolEntity.model_validate(mcp_entity("files", "d", schema))).parameters
    assert _refs(parameters) == []
    assert parameters["properties"]["remove"]["items"] == {**schema["properties"]["add"]["items"], "description": "a file"}


def test_a_parameter_s_own_defs_are_expanded_in_place_and_a_schema_that_refers_to_itself_stays_bounded():
    """Refs into the parameter's own ``$defs`` (a ``~1``-escaped name among them) are expanded; a
    recursive one is cut where it comes back (any value there); ``$defs`` no longer needed go."""
    own = {
        "type": "object",
        "$defs": {"a/b": {"type": "string", "enum": ["x", "y"]},
                  "node": _obj({"label": {"$ref": "#/$defs/a~1b"}, "child": {"$ref": "#/$defs/node"}})},
        "properties": {"root": {"$ref": "#/$defs/node"}},
    }
    schema = to_prompt_tool(ToolEntity.model_validate(mcp_entity("tree", "d", _obj({"tree": own})))).parameters["properties"]["tree"]
    assert _refs(schema) == [] and "$defs" not in schema
    root = schema["properties"]["root"]
    assert root["properties"]["label"] == {"type": "string", "enum": ["x", "y"]}
    assert root["properties"]["child"] == {}


def test_references_that_grow_without_end_stay_within_the_declaration_limit():
    """Definitions that each refer to the next two twice over would expand to 2**40 nodes: the
    expansion stops at ``REF_NODES_MAX`` nodes and the tool is still offered."""
    defs = {f"d{n}": _obj({"l": {"$ref": f"#/$defs/d{n + 1}"}, "r": {"$ref": f"#/$defs/d{n + 1}"}}) for n in range(40)}
    wide = {"type": "object", "$defs": defs, "properties": {"v": {"$ref": "#/$defs/d0"}}}
    registry = _registry(ToolEntity.model_validate(mcp_entity("wide", "d", _obj({"wide": wide}))))
    assert registry.names() == ["wide"] and registry.oversized == []
    assert _refs(registry.prompt_tools()[0].parameters) == []


def test_ref_text_that_is_data_or_a_property_name_is_left_as_it_is():
    """A property named ``$ref`` is a property, one named ``default`` a schema whose reference is
    expanded; an ``enum`` or ``default`` value holding a ``$ref`` key is data the tool takes."""
    schema = _obj({"doc": _obj({"$ref": {"type": "string"}, "default": {"$ref": "#/properties/link/items"}}, default={"$ref": "#/x"}),
                   "link": {"type": "array", "items": {"enum": [{"$ref": "#/a"}]}}})
    parameters = to_prompt_tool(ToolEntity.model_validate(mcp_entity("refs", "d", schema))).parameters
    assert parameters["properties"]["doc"]["properties"] == {"$ref": {"type": "string"}, "default": {"enum": [{"$ref": "#/a"}]}}
    assert parameters["properties"]["doc"]["default"] == {"$ref": "#/x"}
    assert parameters["properties"]["link"]["items"] == {"enum": [{"$ref": "#/a"}]}


def test_a_schema_without_references_is_sent_as_given():
    schema = entity_of("firecrawl_scrape").parameters[1].input_schema
    declared = to_prompt_tool(entity_of("firecrawl_scrape")).parameters["properties"]["formats"]
    assert declared == schema and declared is not schema


# --- what the tool receives ------------------------------------------------------------------------


def test_an_array_parameter_given_text_that_is_no_array_is_refused_with_the_kind_it_needs():
    """It ran: the MCP server got ``"hello"`` for an array (or one object for a list of them)."""
    entity = entity_of("browser_fill_form")
    registry = _registry(entity)
    problem = registry.validate_arguments(entity, {"fields": "Email=a@b.c"})
    assert problem == "parameter 'fields' must be a JSON array (got 'Email=a@b.c')."
    one = {"name": "Email", "type": "textbox", "ref": "e3", "value": "a@b.c"}
    assert "must be a JSON array" in registry.validate_arguments(entity, {"fields": one})
    assert registry.validate_arguments(entity, {"fields": json.dumps([one])}) is None  # JSON text of an array runs
    assert registry.invocation_parameters(entity, {"fields": json.dumps([one])}) == {"fields": [one]}


def test_an_object_parameter_given_a_list_is_refused_and_a_nullable_or_union_type_takes_what_it_names():
    search = entity_of("API-post-search")
    registry = _registry(search)
    assert registry.validate_arguments(search, {"filter": ["page"]}) == "parameter 'filter' must be a JSON object (got ['page'])."
    union = ToolEntity.model_validate(mcp_entity("u", "d", _obj({
        "ids": {"type": ["array", "string"], "items": _S}, "any": {"type": "object"}, "free": {"anyOf": [{"type": "array"}, _S]}})))
    assert _registry(union).validate_arguments(union, {"ids": "a,b"}) is None
    update = entity_of("update_issue")
    assert _registry(update).validate_arguments(update, {"issue_number": 1, "labels": None, "metadata": "x"}) == (
        "parameter 'metadata' must be a JSON object (got 'x')."
    )


def test_a_required_nullable_parameter_given_null_is_not_missing():
    """zod's ``.nullable()`` keeps a parameter required and takes null; ``"nullable": true`` and an
    ``anyOf`` with a null branch too. A required parameter whose schema takes no null still is."""
    entity = ToolEntity.model_validate(mcp_entity("n", "d", _obj({
        "labels": {"type": ["array", "null"], "items": _S},
        "meta": {"type": "object", "nullable": True},
        "tags": {"type": "array", "anyOf": [{"type": "array"}, {"type": "null"}]},
        "ids": {"type": "array", "items": _S}}, ["labels", "meta", "tags", "ids"])))
    registry = _registry(entity)
    assert registry.validate_arguments(entity, {"labels": None, "meta": None, "tags": None, "ids": ["1"]}) is None
    assert registry.validate_arguments(entity, {"labels": None, "meta": None, "tags": None, "ids": None}) == "missing required parameter 'ids'."
    assert registry.validate_arguments(entity, {"meta": None, "tags": None, "ids": ["1"]}) == "missing required parameter 'labels'."


def test_a_pydantic_model_parameter_dify_typed_as_text_reaches_the_tool_as_json_text():
    """FastMCP's ``event: Event`` is a ``$ref`` and ``filters: list[F] | None`` an ``anyOf``: Dify
    types both ``string``. The object or list the model writes goes on as its JSON text, which
    FastMCP decodes for a parameter that is no string; an integer ``Literal`` arrives as a number."""
    schema = {"type": "object", "$defs": {"Event": _obj({"title": _S})}, "properties": {
        "event": {"$ref": "#/$defs/Event"},
        "filters": {"anyOf": [{"type": "array", "items": _S}, {"type": "null"}], "default": None},
        "level": {"enum": [1, 2, 3], "type": "integer"}}, "required": ["event"]}
    entity = ToolEntity.model_validate(mcp_entity("create_event", "d", schema))
    registry = _registry(entity)
    arguments = {"event": {"title": "Standup", "type": "meeting"}, "filters": ["a", "b"], "level": 2}
    assert registry.validate_arguments(entity, arguments) is None
    sent = registry.invocation_parameters(entity, arguments)
    assert json.loads(sent["event"]) == arguments["event"] and json.loads(sent["filters"]) == ["a", "b"]
    assert sent["level"] == 2


@pytest.mark.parametrize("value", [
    {"title": "Standup", "type": "meeting"},
    {"title": "Buy milk", "description": "2 liters"},
    {"title": "Launch", "description": "v2", "default": False},
])
def test_an_object_with_schema_words_for_a_parameter_dify_typed_as_text_is_a_value(value):
    """It was refused as the parameter's schema repeated: the model, right, sent it again."""
    entity = ToolEntity.model_validate(mcp_entity("create_task", "d", {
        "type": "object", "properties": {"task": {"$ref": "#/$defs/Task"}}, "required": ["task"]}))
    registry = _registry(entity)
    assert registry.validate_arguments(entity, {"task": value}) is None
    assert json.loads(registry.invocation_parameters(entity, {"task": value})["task"]) == value


@pytest.mark.parametrize("echo", [
    {"type": "string", "description": "the task"}, {"type": ["string", "null"], "title": "Task"},
    {"description": "the task"}, {"description": "the task", "enum": ["a", "b"]}, {"type": "cat"},
    {"description": "the task", "examples": ["a"]},
])
def test_a_parameter_s_own_schema_in_its_place_is_still_refused(echo):
    entity = ToolEntity.model_validate(mcp_entity("create_task", "d", {
        "type": "object", "properties": {"task": {"type": "string"}}, "required": ["task"]}))
    assert "repeat the tool's parameter schema" in _registry(entity).validate_arguments(entity, {"task": echo})


def test_react_s_step_schema_of_mcp_tools_holds_no_reference():
    """ReAct's constrained steps nest each tool's parameters under ``anyOf``: a ``#/properties/...``
    reference there would point into the step, not the tool."""
    from agent_core.react.json_step import step_schema

    zod = _obj({"add": {"type": "array", "items": _obj({"path": _S})}, "remove": {"type": "array", "items": {"$ref": "#/properties/add/items"}}})
    entities = [ToolEntity.model_validate(mcp_entity("API-patch-block-children", "d", NOTION_BLOCKS)),
                ToolEntity.model_validate(mcp_entity("files", "d", zod)), entity_of("create_pull_request_review")]
    schema = step_schema(_registry(*entities, provider_names=False).prompt_tools())
    assert _refs(schema) == []
    files = next(b for b in schema["anyOf"] if b["properties"]["action"].get("const") == "files" or b["properties"]["action"].get("enum") == ["files"])
    assert files["properties"]["action_input"]["properties"]["remove"]["items"] == _obj({"path": _S})
