"""Other agent frameworks' ReAct output-parser test fixtures, through this plugin's ReAct reader.

Each case is a model reply another framework's parser tests quote (LangChain, LlamaIndex, Dify's
official cot_agent and Dify's own CoT parser, CrewAI), with the tools it names, and what a user
expects of it: the same action with the same input, the same final answer shown clean, or, where
the framework raises an error, no wrong call and no answer showing ReAct markup (the reply is
re-prompted, or the call is refused with the reason before anything runs). Where this plugin does
better than the framework on purpose (every action of a reply runs; an action wins over an answer
the model invented after it), the case says so in ``differs``. Every text is also fed in pieces of
1 and 7 characters: the outcome must not depend on how the stream was cut.

Texts are quoted exactly from the file named in ``source`` (``repo path::test``);
docs/real-world-cases.md lists the sources and what failed before.
"""

from dataclasses import dataclass

import pytest
from dify_plugin.interfaces.agent import ToolEntity

from agent_core.model_call import ModelChunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from tests.unit.helpers import drain

LANGCHAIN = "langchain-ai/langchain libs/langchain/tests/unit_tests/agents/"
LLAMAINDEX = "run-llama/llama_index llama-index-core/tests/agent/react/test_react_output_parser.py"
DOP = "langgenius/dify-official-plugins agent-strategies/cot_agent/tests/"
DIFY = "langgenius/dify api/tests/unit_tests/core/agent/output_parser/test_cot_output_parser.py"
CREWAI = "crewAIInc/crewAI tests/agents/test_crew_agent_parser.py"
CREWAI_LIB = "crewAIInc/crewAI lib/crewai/tests/agents/test_crew_agent_parser.py"


def tool(name: str, *params: str) -> ToolEntity:
    """A node tool with parameters ``params``: ``"a:number"`` a number (else a string), ``"a?"``
    optional (else required)."""
    specs = [(*(p.rstrip("?").split(":") if ":" in p else (p.rstrip("?"), "string")), not p.endswith("?")) for p in params]
    return ToolEntity.model_validate(
        {
            "identity": {"author": "t", "name": name, "label": {"en_US": name}, "provider": "t"},
            "parameters": [
                {
                    "name": p, "label": {"en_US": p}, "human_description": {"en_US": p}, "type": kind,
                    "form": "llm", "llm_description": p, "required": required,
                }
                for p, kind, required in specs
            ],
            "description": {"human": {"en_US": name}, "llm": f"The {name} tool"},
        }
    )


@dataclass(frozen=True)
class Case:
    source: str  # "<repo> <path>::<test>" the text is quoted from
    tools: tuple[ToolEntity, ...]
    text: str
    calls: list | None = None  # (name, arguments) that must run, in order
    answer: str | None = None  # else the answer the user must see
    refused: bool = False  # else: nothing runs; the model is re-prompted or told why its call cannot run
    differs: str = ""  # where the framework expects otherwise and this plugin does better on purpose


SEARCH = tool("search", "query")
FOO = tool("foo", "input")
ADD = tool("add", "a:number", "b:number")
WEB = tool("webSearch", "q")

CASES = {
    # ---- LangChain: ReActSingleInputOutputParser -------------------------------------------------
    "langchain-react-single-action": Case(
        LANGCHAIN + "output_parsers/test_react_single_input.py::test_action",
        (SEARCH,),
        """Thought: agent thought here
Action: search
Action Input: what is the temperature in SF?""",
        calls=[("search", {"query": "what is the temperature in SF?"})],
    ),
    "langchain-react-single-finish": Case(
        LANGCHAIN + "output_parsers/test_react_single_input.py::test_finish",
        (SEARCH,),
        """Thought: agent thought here
Final Answer: The temperature is 100""",
        answer="The temperature is 100",
    ),
    "langchain-react-single-action-with-finish": Case(
        LANGCHAIN + "output_parsers/test_react_single_input.py::test_action_with_finish",
        (SEARCH,),
        """Thought: agent thought here
Action: search Final Answer:
Action Input: what is the temperature in SF?""",
        refused=True,
    ),
    # ---- LangChain: ReActJsonSingleInputOutputParser ---------------------------------------------
    "langchain-react-json-action": Case(
        LANGCHAIN + "output_parsers/test_react_json_single_input.py::test_action",
        (SEARCH,),
        """Thought: agent thought here
```
{
    "action": "search",
    "action_input": "what is the temperature in SF?"
}
```
""",
        calls=[("search", {"query": "what is the temperature in SF?"})],
    ),
    "langchain-react-json-finish": Case(
        LANGCHAIN + "output_parsers/test_react_json_single_input.py::test_finish",
        (SEARCH,),
        """Thought: agent thought here
Final Answer: The temperature is 100""",
        answer="The temperature is 100",
    ),
    # ---- LangChain: JSONAgentOutputParser ----------------------------------------------------------
    "langchain-json-tool-usage": Case(
        LANGCHAIN + "output_parsers/test_json.py::test_tool_usage",
        (SEARCH,),
        """    ```
{
  "action": "search",
  "action_input": "2+2"
}
```""",
        calls=[("search", {"query": "2+2"})],
    ),
    "langchain-json-finish": Case(
        LANGCHAIN + "output_parsers/test_json.py::test_finish",
        (SEARCH,),
        """```
{
  "action": "Final Answer",
  "action_input": "4"
}
```""",
        answer="4",
    ),
    # ---- LangChain: ConvoOutputParser --------------------------------------------------------------
    "langchain-convo-normal": Case(
        LANGCHAIN + "output_parsers/test_convo_output_parser.py::test_normal_output_parsing",
        (tool("my_action", "input"),),
        """
Action: my_action
Action Input: my action input
""",
        calls=[("my_action", {"input": "my action input"})],
    ),
    "langchain-convo-multiline-input": Case(
        LANGCHAIN + "output_parsers/test_convo_output_parser.py::test_multiline_output_parsing",
        (tool("evaluate_code", "code"),),
        """
Thought: Do I need to use a tool? Yes
Action: evaluate_code
Action Input: Evaluate Code with the following Python content:
```python
print("Hello fifty shades of gray mans!"[::-1])
```
""",
        calls=[
            (
                "evaluate_code",
                {"code": 'Evaluate Code with the following Python content:\n```python\n'
                 'print("Hello fifty shades of gray mans!"[::-1])\n```'},
            )
        ],
    ),
    "langchain-convo-observation": Case(
        LANGCHAIN + "output_parsers/test_convo_output_parser.py::test_output_parsing_with_observation",
        (tool("my_tool", "input"),),
        """
Thought: Do I need to use a tool? Yes
Action: my_tool
Action Input: the input to the action
Observation: the result of the action
""",
        calls=[("my_tool", {"input": "the input to the action"})],
    ),
    "langchain-convo-partial-observation": Case(
        LANGCHAIN + "output_parsers/test_convo_output_parser.py::test_output_parsing_with_partial_observation",
        (tool("my_tool", "input"),),
        """
Thought: Do I need to use a tool? Yes
Action: my_tool
Action Input: the input to the action
Obs""",
        calls=[("my_tool", {"input": "the input to the action"})],
    ),
    # ---- LangChain: MRKLOutputParser ---------------------------------------------------------------
    "langchain-mrkl-indented-action": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_valid_action_and_action_input_parse",
        (FOO,),
        """I can use the `foo` tool to achieve the goal.
    Action: foo
    Action Input: bar""",
        calls=[("foo", {"input": "bar"})],
    ),
    "langchain-mrkl-final-answer-trailing-space": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_valid_final_answer_parse",
        (FOO,),
        """Final Answer: The best pizza to eat is margaritta """,
        answer="The best pizza to eat is margaritta",
    ),
    "langchain-mrkl-missing-action": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_missing_action",
        (FOO,),
        """I can use the `foo` tool to achieve the goal.""",
        answer="I can use the `foo` tool to achieve the goal.",
        differs="LangChain raises (no Action); text with no ReAct label at all is the answer here, as in "
        "Dify's official strategy",
    ),
    "langchain-mrkl-missing-action-input": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_missing_action_input",
        (FOO,),
        """I can use the `foo` tool to achieve the goal.
    Action: foo""",
        refused=True,
        differs="LangChain raises (no Action Input); the call is made without arguments here, so a tool with no "
        "required parameter runs and one with a required parameter is refused naming it",
    ),
    "langchain-mrkl-final-answer-before-action": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_final_answer_before_parsable_action",
        (FOO,),
        """Final Answer: The best pizza to eat is margaritta

        Action: foo
        Action Input: bar
        """,
        answer="The best pizza to eat is margaritta",
    ),
    "langchain-mrkl-final-answer-after-action": Case(
        LANGCHAIN + "test_mrkl_output_parser.py::test_final_answer_after_parsable_action",
        (FOO,),
        "\n        Observation: I can use the `foo` tool to achieve the goal.\n        Action: foo\n"
        "        Action Input: bar\n        Final Answer: The best pizza to eat is margaritta \n        ",
        refused=True,
    ),
    "langchain-mrkl-get-action-and-input": Case(
        LANGCHAIN + "test_mrkl.py::test_get_action_and_input",
        (tool("Search", "query"),),
        "Thought: I need to search for NBA\n" "Action: Search\n" "Action Input: NBA",
        calls=[("Search", {"query": "NBA"})],
    ),
    "langchain-mrkl-action-name-trailing-space": Case(
        LANGCHAIN + "test_mrkl.py::test_get_action_and_input_whitespace",
        (tool("Search", "query"),),
        "Thought: I need to search for NBA\nAction: Search \nAction Input: NBA",
        calls=[("Search", {"query": "NBA"})],
    ),
    "langchain-mrkl-input-code-block": Case(
        LANGCHAIN + "test_mrkl.py::test_get_action_and_input_newline",
        (tool("Python", "code"),),
        "Now I need to write a unittest for the function.\n\n"
        "Action: Python\nAction Input:\n```\nimport unittest\n\nunittest.main()\n```",
        calls=[("Python", {"code": "import unittest\n\nunittest.main()"})],
        differs="LangChain passes the fence on (```...```); the code inside it is the input here",
    ),
    "langchain-mrkl-newline-after-labels": Case(
        LANGCHAIN + "test_mrkl.py::test_get_action_and_input_newline_after_keyword",
        (tool("Terminal", "commands"),),
        """
    I can use the `ls` command to list the contents of the directory \
    and `grep` to search for the specific file.

    Action:
    Terminal

    Action Input:
    ls -l ~/.bashrc.d/
    """,
        calls=[("Terminal", {"commands": "ls -l ~/.bashrc.d/"})],
    ),
    "langchain-mrkl-sql-input": Case(
        LANGCHAIN + "test_mrkl.py::test_get_action_and_input_sql_query",
        (tool("query_sql_db", "query"),),
        """
    I should query for the largest single shift payment for every unique user.
    Action: query_sql_db
    Action Input: \
    SELECT "UserName", MAX(totalpayment) FROM user_shifts GROUP BY "UserName" """,
        calls=[("query_sql_db", {"query": 'SELECT "UserName", MAX(totalpayment) FROM user_shifts GROUP BY "UserName"'})],
    ),
    "langchain-mrkl-final-answer": Case(
        LANGCHAIN + "test_mrkl.py::test_get_final_answer",
        (tool("Search", "query"),),
        "Thought: I can now answer the question\n" "Final Answer: 1994",
        answer="1994",
    ),
    "langchain-mrkl-final-answer-next-line": Case(
        LANGCHAIN + "test_mrkl.py::test_get_final_answer_new_line",
        (tool("Search", "query"),),
        "Thought: I can now answer the question\n" "Final Answer:\n1994",
        answer="1994",
    ),
    "langchain-mrkl-final-answer-multiline": Case(
        LANGCHAIN + "test_mrkl.py::test_get_final_answer_multiline",
        (tool("Search", "query"),),
        "Thought: I can now answer the question\n" "Final Answer: 1994\n1993",
        answer="1994\n1993",
    ),
    "langchain-mrkl-bad-action-input-line": Case(
        LANGCHAIN + "test_mrkl.py::test_bad_action_input_line",
        (tool("Search", "query"),),
        "Thought: I need to search for NBA\n" "Action: Search\n" "Thought: NBA",
        refused=True,
        differs="LangChain raises (no Action Input); the call is made without arguments here, so a tool with no "
        "required parameter runs and one with a required parameter is refused naming it",
    ),
    "langchain-mrkl-bad-action-line": Case(
        LANGCHAIN + "test_mrkl.py::test_bad_action_line",
        (tool("Search", "query"),),
        "Thought: I need to search for NBA\n" "Thought: Search\n" "Action Input: NBA",
        refused=True,
    ),
    "langchain-mrkl-action-and-answer": Case(
        LANGCHAIN + "test_mrkl.py::test_valid_action_and_answer_raises_exception",
        (tool("Search", "query"),),
        "Thought: I need to search for NBA\n"
        "Action: Search\n"
        "Action Input: NBA\n"
        "Observation: founded in 1994\n"
        "Thought: I can now answer the question\n"
        "Final Answer: 1994",
        calls=[("Search", {"query": "NBA"})],
        differs="LangChain raises; the action runs here, the invented observation and answer are cut",
    ),
    # ---- LangChain: StructuredChatOutputParser (ChatOutputParser's tests quote the same texts) -----
    "langchain-structured-chat-fence-with-language": Case(
        LANGCHAIN + "test_structured_chat.py::test_parse_with_language",
        (FOO,),
        """I can use the `foo` tool to achieve the goal.

    Action:
    ```json
    {
      "action": "foo",
      "action_input": "bar"
    }
    ```
    """,
        calls=[("foo", {"input": "bar"})],
    ),
    "langchain-structured-chat-fence-without-language": Case(
        LANGCHAIN + "test_structured_chat.py::test_parse_without_language",
        (FOO,),
        """I can use the `foo` tool to achieve the goal.

    Action:
    ```
    {
      "action": "foo",
      "action_input": "bar"
    }
    ```
    """,
        calls=[("foo", {"input": "bar"})],
    ),
    # ---- LlamaIndex: ReActOutputParser -------------------------------------------------------------
    "llamaindex-python-dict-with-comment": Case(
        LLAMAINDEX + "::test_parse_action_reasoning_step",
        (tool("tool", "pages:array", "load_kwargs:object", "query_str?"),),
        """\
Thought: Gotta use a tool.
Action: tool
Action Input: {'pages': ['coffee'] /* comment */, 'load_kwargs': {}, 'query_str': ''}, along those lines.
""",
        refused=True,
        differs="LlamaIndex drops the comment; the one trust rule for repaired JSON refuses a repair that "
        "loses a word the model wrote, a comment's too (test_json_args.py word-lost-comment), and says why",
    ),
    "llamaindex-extract-tool-use": Case(
        LLAMAINDEX + "::test_extract_tool_use",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.
Action: add
Action Input: {"a": 1, "b": 1}
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-blank-lines-between-labels": Case(
        LLAMAINDEX + "::test_extract_tool_use_multiline",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.

Action: add



Action Input: {"a": 1, "b": 1}
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-nested-dicts": Case(
        LLAMAINDEX + "::test_extract_tool_use_with_nested_dicts",
        (tool("tool", "a:number", "b:object"),),
        """\
Thought: Gotta use a tool.
Action: tool
Action Input: {"a": 1, "b": {}}
""",
        calls=[("tool", {"a": 1, "b": {}})],
    ),
    "llamaindex-input-wrapped-in-constructor": Case(
        LLAMAINDEX + "::test_extract_tool_use_",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.
Action: add
Action Input: QueryEngineTool({"a": 1, "b": 1})
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-action-name-with-description": Case(
        LLAMAINDEX + "::test_extract_tool_use_extra_action_output",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.
Action: add (add two numbers)
Action Input: {"a": 1, "b": 1}
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-tool-name-with-digit": Case(
        LLAMAINDEX + "::test_extract_tool_number",
        (tool("add2", "a:number", "b:number"),),
        """\
Thought: I need to use a tool to help me answer the question.
Action: add2
Action Input: {"a": 1, "b": 1}
""",
        calls=[("add2", {"a": 1, "b": 1})],
    ),
    "llamaindex-multiline-json-input": Case(
        LLAMAINDEX + "::test_extract_tool_use_multiline_action_input",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.
Action: add
Action Input: {
    "a": 1,
    "b": 1
}
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-spurious-newlines": Case(
        LLAMAINDEX + "::test_extract_tool_use_spurious_newlines",
        (ADD,),
        """\
Thought: I need to use a tool to help me answer the question.

Action: add

Action Input: {"a": 1, "b": 1}
""",
        calls=[("add", {"a": 1, "b": 1})],
    ),
    "llamaindex-chinese-tool-name": Case(
        LLAMAINDEX + "::test_extract_tool_use_with_Chinese_characters",
        (tool("加法", "a:number", "b:number"),),
        """\
Thought: I need to use a tool to help me answer the question.

Action: 加法

Action Input: {"a": 1, "b": 1}
""",
        calls=[("加法", {"a": 1, "b": 1})],
    ),
    "llamaindex-answer-label": Case(
        LLAMAINDEX + "::test_extract_final_response",
        (ADD,),
        """\
Thought: I have enough information to answer the question without using any more tools.
Answer: 2
""",
        answer="2",
    ),
    "llamaindex-answer-label-multiline": Case(
        LLAMAINDEX + "::test_extract_final_response_multiline_answer",
        (ADD,),
        """\
Thought: I have enough information to answer the question without using any more tools.
Answer: Here is the answer:

This is the second line.
""",
        answer="Here is the answer:\n\nThis is the second line.",
    ),
    # ---- Dify official cot_agent: CotAgentOutputParser ---------------------------------------------
    "dop-action-label-with-json": Case(
        DOP + "test_cot_output_parser.py::test_action_prefix_yields_action",
        (WEB,),
        'Thought: let me search\nAction: {"action": "webSearch", "action_input": {"q": 1}}',
        calls=[("webSearch", {"q": 1})],
    ),
    "dop-tool-call-wrapper": Case(
        DOP + "test_cot_output_parser.py::test_tool_call_wrapper_yields_action",
        (tool("webSearch", "input"),),
        '{"tool_call": {"thought": "获取。", "action": "webSearch", "action_input": {"input": "x"}}}',
        calls=[("webSearch", {"input": "x"})],
    ),
    "dop-bare-action-json": Case(
        DOP + "test_cot_output_parser.py::test_flat_action_json_without_prefix_still_works",
        (WEB,),
        '{"action": "webSearch", "action_input": {"q": 1}}',
        calls=[("webSearch", {"q": 1})],
    ),
    "dop-action-input-without-action": Case(
        DOP + "test_cot_output_parser.py::test_action_input_free_text_flags_parse_failure",
        (tool("webSearch", "input"),),
        'Thought: I need to search\nAction_input: {"input": "x"}',
        refused=True,
    ),
    "dop-example-json-in-thought-then-action": Case(
        DOP + "test_cot_output_parser.py::test_action_like_json_inside_thought_is_not_an_action",
        (tool("fake_tool", "q"), tool("real_search", "q")),
        'Thought: For example {"action": "fake_tool", "action_input": {"q": "x"}} '
        'before deciding.\nAction: {"action": "real_search", "action_input": {"q": "actual"}}',
        calls=[("real_search", {"q": "actual"})],
    ),
    "dop-example-json-in-thought-only": Case(
        DOP + "test_cot_output_parser.py::test_action_like_json_inside_thought_without_action_line",
        (tool("fake_tool", "q"),),
        'Thought: Example call {"action": "fake_tool", "action_input": {"q": "x"}} end.',
        refused=True,
    ),
    "dop-later-thought-json-after-action": Case(
        DOP + "test_cot_output_parser.py::test_real_action_not_overwritten_by_later_thought_json",
        (tool("fake_tool", "q"), tool("real_search", "q")),
        'Thought: planning\nAction: {"action": "real_search", "action_input": {"q": "actual"}}\n'
        'Thought: follow-up {"action": "fake_tool", "action_input": {}}',
        calls=[("real_search", {"q": "actual"})],
    ),
    "dop-json-line-after-thought": Case(
        DOP + "test_cot_output_parser.py::test_canonical_json_on_new_line_after_thought_still_works",
        (tool("search", "q"),),
        'Thought: Let me look that up.\n' '{"action": "search", "action_input": {"q": "x"}}',
        calls=[("search", {"q": "x"})],
    ),
    "dop-json-after-final-answer": Case(
        DOP + "test_cot_output_parser.py::test_json_after_final_answer_is_not_an_action",
        (WEB,),
        'FinalAnswer: {"action": "webSearch", "action_input": {"q": 1}}',
        answer='{"action": "webSearch", "action_input": {"q": 1}}',
    ),
    "dop-thought-after-final-answer": Case(
        DOP + "test_cot_output_parser.py::test_thought_after_final_answer_cannot_trigger_action",
        (WEB,),
        'FinalAnswer: done\nThought: {"action": "webSearch", "action_input": {"q": 1}}',
        answer="done",
        differs="Dify shows the whole text as the answer; here the answer ends where the model wrote on "
        "into the format (a next Thought:), and the JSON after it is not run either",
    ),
    "dop-truncated-json": Case(
        DOP + "test_cot_output_parser.py::test_truncated_json_at_stream_end_flags_parse_failure",
        (WEB,),
        'Action: {"action": "webSearch", "action_input": {"q": 1',
        calls=[("webSearch", {"q": 1})],
        differs="Dify flags a parse failure; the reply stopped (not cut by the output limit) with only closing "
        "brackets missing, so the call runs with them added, nothing the model wrote lost, as CrewAI repairs",
    ),
    "dop-adjacent-json-roots": Case(
        DOP + "test_cot_output_parser.py::test_adjacent_json_roots_in_same_chunk",
        (tool("first"), tool("second")),
        '{"action": "first", "action_input": {}}{"action": "second", "action_input": {}}',
        calls=[("first", {}), ("second", {})],
    ),
    "dop-adjacent-json-arrays": Case(
        DOP + "test_cot_stream_edge_cases.py::test_adjacent_arrays_also_processed",
        (tool("x"), tool("y")),
        '[{"action": "x", "action_input": {}}]' '[{"action": "y", "action_input": {}}]',
        calls=[("x", {}), ("y", {})],
    ),
    "dop-think-then-action": Case(
        DOP + "test_cot_output_parser.py::test_think_tags_are_stripped",
        (tool("t"),),
        "<think>" + "inner" + "</think>" + 'Action: {"action": "t", "action_input": {}}',
        calls=[("t", {})],
    ),
    "dop-openai-envelope-in-tool-call": Case(
        DOP + "test_cot_stream_edge_cases.py::test_single_tool_call_envelope",
        (tool("webSearch", "query"),),
        '{"tool_call": {"function": {"name": "webSearch", "arguments": {"query": "x"}}}}',
        calls=[("webSearch", {"query": "x"})],
    ),
    "dop-openai-envelope-list": Case(
        DOP + "test_cot_stream_edge_cases.py::test_single_tool_calls_list_envelope",
        (tool("lookup", "k"),),
        '{"tool_calls": [{"function": {"name": "lookup", "arguments": {"k": "v"}}}]}',
        calls=[("lookup", {"k": "v"})],
    ),
    "dop-tool-call-not-a-dict": Case(
        DOP + "test_cot_stream_edge_cases.py::test_envelope_does_not_trigger_when_tool_call_value_is_not_dict",
        (SEARCH,),
        '{"tool_call": "not-a-dict"}',
        answer='{"tool_call": "not-a-dict"}',
    ),
    "dop-incomplete-json": Case(
        DOP + "test_cot_stream_edge_cases.py::test_incomplete_json_does_not_yield_action",
        (SEARCH,),
        '{"action": "search", "action_input":',
        refused=True,
    ),
    # ---- Dify: core/agent/output_parser/cot_output_parser.py ---------------------------------------
    "dify-plain-text": Case(
        DIFY + "::test_stream_plain_text",
        (SEARCH,),
        "hello world",
        answer="hello world",
    ),
    "dify-action-input-key": Case(
        DIFY + "::test_single_json_action_valid",
        (SEARCH,),
        '{"action": "search", "input": "query"}',
        calls=[("search", {"query": "query"})],
    ),
    "dify-json-list": Case(
        DIFY + "::test_json_list_unwrap",
        (tool("lookup", "key"),),
        '[{"action": "lookup", "input": "abc"}]',
        calls=[("lookup", {"key": "abc"})],
    ),
    "dify-json-without-action-keys": Case(
        DIFY + "::test_json_missing_fields_returns_string",
        (SEARCH,),
        '{"foo": "bar"}',
        answer='{"foo": "bar"}',
    ),
    "dify-fenced-json": Case(
        DIFY + "::test_code_block_json_valid",
        (tool("lookup", "key"),),
        """```json
{"action": "lookup", "input": "abc"}
```""",
        calls=[("lookup", {"key": "abc"})],
    ),
    "dify-two-objects-in-one-fence": Case(
        DIFY + "::test_code_block_multiple_json",
        (tool("a1", "v"), tool("a2", "v")),
        """```json
{"action": "a1", "input": "x"}
{"action": "a2", "input": "y"}
```""",
        calls=[("a1", {"v": "x"}), ("a2", {"v": "y"})],
        differs="Dify runs neither (the block is not one JSON value); both run here, in order",
    ),
    "dify-two-fences": Case(
        DIFY + "::test_multiple_code_blocks_in_stream",
        (tool("a1", "v"), tool("a2", "v")),
        '```json\n{"action":"a1","input":"x"}\n```middle```json\n{"action":"a2","input":"y"}\n```',
        calls=[("a1", {"v": "x"}), ("a2", {"v": "y"})],
    ),
    "dify-json-inside-a-sentence": Case(
        DIFY + "::test_text_json_text_mix",
        (tool("mix", "v"),),
        'start {"action": "mix", "input": "1"} end',
        answer='start {"action": "mix", "input": "1"} end',
        differs="Dify runs the object; JSON inside a line of prose is never run here (an answer may quote a "
        "call as an example), and unlabelled text is the answer",
    ),
    # ---- CrewAI: CrewAgentParser -------------------------------------------------------------------
    "crewai-apostrophe-in-input": Case(
        CREWAI + "::test_valid_action_parsing_special_characters",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: what's the temperature in SF?",
        calls=[("search", {"query": "what's the temperature in SF?"})],
    ),
    "crewai-bold-marker-before-json": Case(
        CREWAI + "::test_valid_action_parsing_with_json_tool_input",
        (tool("query", "task", "context", "coworker"),),
        """
    Thought: Let's find the information
    Action: query
    Action Input: ** {"task": "What are some common challenges or barriers that you have observed or experienced when implementing AI-powered solutions in healthcare settings?", "context": "As we've discussed recent advancements in AI applications in healthcare, it's crucial to acknowledge the potential hurdles. Some possible obstacles include...", "coworker": "Senior Researcher"}
    """,
        calls=[
            (
                "query",
                {
                    "task": "What are some common challenges or barriers that you have observed or experienced when "
                    "implementing AI-powered solutions in healthcare settings?",
                    "context": "As we've discussed recent advancements in AI applications in healthcare, it's crucial to "
                    "acknowledge the potential hurdles. Some possible obstacles include...",
                    "coworker": "Senior Researcher",
                },
            )
        ],
    ),
    "crewai-quoted-input": Case(
        CREWAI + "::test_valid_action_parsing_with_quotes",
        (SEARCH,),
        'Thought: Let\'s find the temperature\nAction: search\nAction Input: "temperature in SF"',
        calls=[("search", {"query": "temperature in SF"})],
    ),
    "crewai-braces-around-text": Case(
        CREWAI + "::test_valid_action_parsing_with_curly_braces",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: {temperature in SF}",
        refused=True,
        differs="CrewAI passes the text on; here an input that opens a JSON object but is none is refused "
        "with the reason (it may be arguments the model got wrong: {\"expression\": 37 * 91})",
    ),
    "crewai-angle-brackets": Case(
        CREWAI + "::test_valid_action_parsing_with_angle_brackets",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: <temperature in SF>",
        calls=[("search", {"query": "<temperature in SF>"})],
    ),
    "crewai-parentheses": Case(
        CREWAI + "::test_valid_action_parsing_with_parentheses",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: (temperature in SF)",
        calls=[("search", {"query": "(temperature in SF)"})],
    ),
    "crewai-mixed-brackets": Case(
        CREWAI + "::test_valid_action_parsing_with_mixed_brackets",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: [temperature in {SF}]",
        calls=[("search", {"query": "[temperature in {SF}]"})],
    ),
    "crewai-nested-quotes": Case(
        CREWAI + "::test_valid_action_parsing_with_nested_quotes",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: \"what's the temperature in 'SF'?\"",
        calls=[("search", {"query": "what's the temperature in 'SF'?"})],
    ),
    "crewai-unclosed-json": Case(
        CREWAI + "::test_valid_action_parsing_with_incomplete_json",
        (SEARCH,),
        'Thought: Let\'s find the temperature\nAction: search\nAction Input: {"query": "temperature in SF"',
        calls=[("search", {"query": "temperature in SF"})],
    ),
    "crewai-symbols": Case(
        CREWAI + "::test_valid_action_parsing_with_special_characters",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: what is the temperature in SF? @$%^&*",
        calls=[("search", {"query": "what is the temperature in SF? @$%^&*"})],
    ),
    "crewai-quoted-brackets": Case(
        CREWAI + "::test_valid_action_parsing_with_combination",
        (SEARCH,),
        'Thought: Let\'s find the temperature\nAction: search\nAction Input: "[what is the temperature in SF?]"',
        calls=[("search", {"query": "[what is the temperature in SF?]"})],
    ),
    "crewai-multiline-text-input": Case(
        CREWAI + "::test_valid_action_parsing_with_newlines",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: what is\nthe temperature in SF?",
        calls=[("search", {"query": "what is\nthe temperature in SF?"})],
    ),
    "crewai-backslash-n-kept": Case(
        CREWAI + "::test_valid_action_parsing_with_escaped_characters",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: what is the temperature in SF? \\n",
        calls=[("search", {"query": "what is the temperature in SF? \\n"})],
    ),
    "crewai-json-input": Case(
        CREWAI + "::test_valid_action_parsing_with_json_string",
        (SEARCH,),
        'Thought: Let\'s find the temperature\nAction: search\nAction Input: {"query": "temperature in SF"}',
        calls=[("search", {"query": "temperature in SF"})],
    ),
    "crewai-unbalanced-quote": Case(
        CREWAI + "::test_valid_action_parsing_with_unbalanced_quotes",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search\nAction Input: \"what is the temperature in SF?",
        calls=[("search", {"query": "what is the temperature in SF?"})],
    ),
    "crewai-final-answer": Case(
        CREWAI + "::test_valid_final_answer_parsing",
        (SEARCH,),
        "Thought: I found the information\nFinal Answer: The temperature is 100 degrees",
        answer="The temperature is 100 degrees",
    ),
    "crewai-missing-action": Case(
        CREWAI + "::test_missing_action_error",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction Input: what is the temperature in SF?",
        refused=True,
    ),
    "crewai-missing-action-input": Case(
        CREWAI + "::test_missing_action_input_error",
        (SEARCH,),
        "Thought: Let's find the temperature\nAction: search",
        refused=True,
        differs="CrewAI raises (no Action Input); the call is made without arguments here, so a tool with no "
        "required parameter runs and one with a required parameter is refused naming it",
    ),
    "crewai-action-and-final-answer": Case(
        CREWAI + "::test_action_and_final_answer_error",
        (SEARCH,),
        "Thought: I found the information\nAction: search\nAction Input: what is the temperature in SF?\n"
        "Final Answer: The temperature is 100 degrees",
        calls=[("search", {"query": "what is the temperature in SF?"})],
        differs="CrewAI raises; the action runs here and the answer written before its observation is dropped",
    ),
    "crewai-spaces-around-lines": Case(
        CREWAI + "::test_parsing_with_whitespace",
        (SEARCH,),
        " Thought: Let's find the temperature \n Action: search \n Action Input: what is the temperature in SF? ",
        calls=[("search", {"query": "what is the temperature in SF?"})],
    ),
    "crewai-action-none": Case(
        CREWAI_LIB + "::test_action_none_basic",
        (SEARCH,),
        "Thought: I cannot use any tool for this.\nAction: None",
        answer="I cannot use any tool for this.",
    ),
    "crewai-action-none-reason-in-parentheses": Case(
        CREWAI_LIB + "::test_action_none_with_reason_in_parentheses",
        (SEARCH,),
        "Thought: The tool is not available.\nAction: None (direct response required)",
        answer="The tool is not available.",
    ),
    "crewai-action-none-lowercase": Case(
        CREWAI_LIB + "::test_action_none_lowercase",
        (SEARCH,),
        "Thought: I should respond directly.\nAction: none",
        answer="I should respond directly.",
    ),
    "crewai-action-na": Case(
        CREWAI_LIB + "::test_action_na",
        (SEARCH,),
        "Thought: No action needed here.\nAction: N/A",
        answer="No action needed here.",
    ),
    "crewai-action-na-lowercase": Case(
        CREWAI_LIB + "::test_action_na_lowercase",
        (SEARCH,),
        "Thought: This requires a direct answer.\nAction: n/a",
        answer="This requires a direct answer.",
    ),
    "crewai-action-none-dash-reason": Case(
        CREWAI_LIB + "::test_action_none_with_dash_separator",
        (SEARCH,),
        "Thought: I need to provide a direct response.\nAction: None - direct response",
        answer="I need to provide a direct response.",
    ),
    "crewai-action-none-then-text": Case(
        CREWAI_LIB + "::test_action_none_with_additional_content",
        (SEARCH,),
        "Thought: I analyzed the request.\nAction: None\nHere is my direct response to your question.",
        answer="I analyzed the request.\nHere is my direct response to your question.",
    ),
    "crewai-action-no-action": Case(
        CREWAI_LIB + "::test_action_no_action",
        (SEARCH,),
        "Thought: I will respond without using tools.\nAction: no action",
        answer="I will respond without using tools.",
    ),
    "crewai-action-none-colon-reason": Case(
        CREWAI_LIB + "::test_action_none_with_colon_separator",
        (SEARCH,),
        "Thought: Direct response needed.\nAction: None: providing direct answer",
        answer="Direct response needed.",
    ),
    "crewai-action-none-alone": Case(
        CREWAI_LIB + "::test_action_none_without_thought",
        (SEARCH,),
        "Action: None",
        refused=True,
        differs="CrewAI answers with a sentence of its own ('I cannot perform this action with the available "
        "tools.'); the model is asked again here for the answer it did not write",
    ),
}


def chunks_of(text: str, size: int | None) -> list[ModelChunk]:
    """The reply as a stream: whole, or in ``size`` pieces, then the finish."""
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    return [*(ModelChunk(text=piece) for piece in pieces if piece), ModelChunk(finish_reason="stop")]


def read(case: Case, size: int | None) -> tuple[str, ModelTurn, ToolRegistry]:
    registry = ToolRegistry(list(case.tools))
    streamed, turn = drain(read_react_turn(iter(chunks_of(case.text, size)), registry, 1))
    return streamed, turn, registry


def runnable(decision: ToolCalls, registry: ToolRegistry) -> list:
    """The calls of ``decision`` that would run: a tool of the node, arguments it accepts."""
    out = []
    for call in decision.calls:
        entity = registry.get(call.name)
        if entity is not None and registry.validate_arguments(entity, call.arguments) is None:
            out.append((call.name, call.arguments))
    return out


LABELS = ("Thought:", "Action:", "Action Input:", "Observation:", "Final Answer:", "FinalAnswer:")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(CASES))
def test_framework_fixture(name, size):
    case = CASES[name]
    streamed, turn, registry = read(case, size)
    decision = turn.decision
    if case.calls is not None:
        assert isinstance(decision, ToolCalls), decision
        assert not decision.invalid, decision.invalid
        assert [(c.name, c.arguments) for c in decision.calls] == case.calls
        assert runnable(decision, registry) == case.calls
        assert streamed == ""
    elif case.answer is not None:
        assert decision == FinalAnswer(case.answer)
        assert streamed.strip() == case.answer
    else:
        # nothing runs: a re-prompt, or every call refused with its reason before it runs
        if isinstance(decision, ToolCalls):
            assert runnable(decision, registry) == [], decision
        else:
            assert isinstance(decision, ParseFailure), decision
        assert streamed == ""
    if case.answer is None or not case.answer.startswith("{"):
        assert not any(label in streamed for label in LABELS), streamed


def test_every_case_names_its_source():
    for case in CASES.values():
        repo, path = case.source.split(" ", 1)
        assert repo.count("/") == 1 and path.split("::")[0].endswith(".py")
