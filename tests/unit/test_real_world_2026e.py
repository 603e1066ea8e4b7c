"""A fifth set of real-world model outputs, mostly ReAct text (Thought / Action / Action Input /
Observation / Final Answer), quoted from public bug reports and pull requests, through both
strategies' turn readers (``test_real_world_2026`` drives them: the text whole and in pieces of 1
and 7 characters). Sources the first four passes did not use: Dify's agent strategy 0.0.47 report
on JSON inside a thought; DB-GPT's ReAct parser fixes (multi-round replies, fenced replies, a
reasoning block in a fence, Kimi's tokens after an action input, extra action labels); dynamiq's
DeepSeek-style actions and JSON steps; OpenJarvis's JSON steps from Nemotron; LlamaIndex's action
without a thought; hello-agents' bold and back-quoted actions; NeMo Agent Toolkit's Nemotron Nano
reply with an unclosed ``<think>``; LangChain's llama3 run writing its own observation.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened, completed or rebuilt from a format
the source documents, its comment says so.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026d import read

QUERY_DB = tool("query_db", "sql")
TERMINATE = tool("terminate", "result")

CASES = {
    # ---- Dify's agent strategy ----------------------------------------------------------------------
    # langgenius/dify-official-plugins#3861 (and PR #3864): with Qwen, a tool-input-like JSON written
    # inside "Thought:" was taken for the action and the real Action: was overwritten (rebuilt from
    # the report's description: the thought quotes an example call, the real action follows)
    "dop3861-qwen-json-in-thought-then-action": Case(
        (tool("web_search", "query"),),
        'Thought: The search tool takes an input like {"action": "web_search", "action_input": {"query": "example"}}, '
        "so I will search for the release date.\n"
        'Action: {"action": "web_search", "action_input": {"query": "Dify 1.11 release date"}}',
        calls=[("web_search", {"query": "Dify 1.11 release date"})],
        only=("react",),
    ),
    # the same report: the example in the thought is the argument object alone (rebuilt)
    "dop3861-qwen-input-object-in-thought-then-action": Case(
        (tool("web_search", "query"),),
        'Thought: I should pass {"query": "..."} to the search tool.\nAction: web_search\n'
        'Action Input: {"query": "Dify agent strategy changelog"}',
        calls=[("web_search", {"query": "Dify agent strategy changelog"})],
        only=("react",),
    ),
    # ---- DB-GPT -------------------------------------------------------------------------------------
    # eosphoros-ai/DB-GPT PR #3074: a model writes several rounds at once, an invented observation
    # between them; the first action runs (verbatim from the PR's test)
    "dbgpt3074-multi-round-first-action-runs": Case(
        (QUERY_DB, TERMINATE),
        'Thought: I need to query the database first.\nAction: query_db\nAction Input: {"sql": "select count(*) from '
        'assets"}\nObservation: 30\n\nThought: I already know the answer.\nAction: terminate\nAction Input: '
        '{"result": "网络设备资产共 30 条"}',
        calls=[("query_db", {"sql": "select count(*) from assets"})],
        hidden=("30 条",),
        only=("react",),
    ),
    # the same PR: the whole reply in a ```text fence (verbatim from the PR's test)
    "dbgpt3074-whole-reply-in-text-fence": Case(
        (tool("calculator", "operation", "a", "b"),),
        '```text\nThought: I should calculate 2+2.\nAction: calculator\nAction Input: {"operation": "add", "a": 2, '
        '"b": 2}\n```',
        calls=[("calculator", {"operation": "add", "a": 2, "b": 2})],
        only=("react",),
    ),
    # the same PR: extra labels between the thought and the action (verbatim from the PR's test)
    "dbgpt3074-action-intention-and-reason-labels": Case(
        (QUERY_DB,),
        "Thought: I need to inspect the database schema.\nAction Intention: Query the available asset categories.\n"
        "Action Reason: The user asked about assets by major type.\nAction: query_db\n"
        'Action Input: {"sql": "select distinct major_type from assets"}',
        calls=[("query_db", {"sql": "select distinct major_type from assets"})],
        only=("react",),
    ),
    # the same PR: Kimi's call tokens leaked after the action input (verbatim from the PR's test)
    "dbgpt3074-kimi-tokens-after-action-input": Case(
        (TERMINATE,),
        "Thought: 需要按照指定格式调用 terminate 工具。\nAction: terminate\n"
        'Action Input: {"result": "时长最长的 3 首曲目是：1. Occupation / Precipice"}'
        "<|tool_call_end|><|tool_calls_section_end|>",
        calls=[("terminate", {"result": "时长最长的 3 首曲目是：1. Occupation / Precipice"})],
        only=("react",),
    ),
    # the same PR: Kimi's native call leaked as text after a Chinese sentence, no ReAct label
    # (verbatim from the PR's test)
    "dbgpt3074-kimi-native-call-after-chinese-text": Case(
        (tool("load_file", "path"),),
        "我来帮你分析track.csv文件，找出时长最长的3首曲目。<|tool_calls_section_begin|><|tool_call_begin|>"
        "functions.load_file:0<|tool_call_argument_begin|>{}<|tool_call_end|><|tool_calls_section_end|>",
        calls=[("load_file", {})],
        hidden=("<|tool_call",),
    ),
    # the same PR: spaced markers and escaped quotes in the arguments (verbatim from the PR's test)
    "dbgpt3074-kimi-native-call-spaced-escaped-quotes": Case(
        (tool("code_interpreter", "code"),),
        ' <|tool_calls_section_begin|> <|tool_call_begin|> functions.code_interpreter:1 <|tool_call_argument_begin|> '
        '{"code": "print(\\"hi\\")"} <|tool_call_end|> <|tool_calls_section_end|>',
        calls=[("code_interpreter", {"code": 'print("hi")'})],
        hidden=("<|tool_call",),
    ),
    # eosphoros-ai/DB-GPT PR #2996: deepseek-reasoner's reasoning shown in a six-backtick vis-thinking
    # fence before the step (verbatim from the PR's test)
    "dbgpt2996-deepseek-reasoner-vis-thinking-fence": Case(
        (tool("calculator", "operation", "a", "b"),),
        "``````vis-thinking\nI should decide which tool to use first.\n``````\nThought: I should calculate 2+2.\n"
        'Action: calculator\nAction Input: {"operation": "add", "a": 2, "b": 2}',
        calls=[("calculator", {"operation": "add", "a": 2, "b": 2})],
        only=("react",),
    ),
    # ---- dynamiq ------------------------------------------------------------------------------------
    # dynamiq-ai/dynamiq PR #506: DeepSeek-style blank lines between the labels and a multi-line
    # input with braces inside its string (verbatim from the PR's test)
    "dynamiq506-deepseek-blank-lines-nested-braces": Case(
        (tool("Calculator Tool", "code"),),
        "Thought: I need to calculate something.\n\nAction: Calculator Tool\n\nAction Input: {\n"
        '    "code": "print(\'Hello World\')\\nprint({\'nested\': \'dict\'})"\n}',
        calls=[("Calculator Tool", {"code": "print('Hello World')\nprint({'nested': 'dict'})"})],
        only=("react",),
    ),
    # the same PR: two blank lines before "Action Input:", a tool name with a space (verbatim)
    "dynamiq506-two-blank-lines-before-input": Case(
        (tool("Tool Name", "key"),),
        'Thought: thinking\n\nAction: Tool Name\n\n\nAction Input: {"key": "value"}',
        calls=[("Tool Name", {"key": "value"})],
        only=("react",),
    ),
    # the same PR: the input's ```json fence opened on the label's line (verbatim)
    "dynamiq506-json-fence-on-input-line": Case(
        (tool("Tool", "key"),),
        'Thought: thinking\nAction: Tool\nAction Input: ```json\n{"key": "value"}\n```',
        calls=[("Tool", {"key": "value"})],
        only=("react",),
    ),
    # the same PR's tests: the answer after "Answer:" (verbatim)
    "dynamiq506-answer-label-multiline": Case(
        (tool("Tool", "key"),),
        "Thought: I have all the information I need\nAnswer: The final answer is:\n1. First point\n2. Second point\n"
        "3. Third point",
        answer="The final answer is:\n1. First point\n2. Second point\n3. Third point",
        hidden=("Thought",),
        only=("react",),
    ),
    # dynamiq's JSON steps: the action input is a JSON string holding the arguments, a second step
    # written after the first (verbatim from the test "multiple jsons takes first")
    "dynamiq-json-step-string-input-then-second-step": Case(
        (tool("SandboxShellTool", "command"),),
        '{"thought": "run shell", "action": "SandboxShellTool", "action_input": "{\\"command\\": \\"ls\\"}", '
        '"output_files": ""}\n{"thought": "wait", "action": "finish", "action_input": "done", "output_files": ""}',
        calls=[("SandboxShellTool", {"command": "ls"})],
        only=("react",),
    ),
    # the same tests: an escaped line break inside the string input (verbatim)
    "dynamiq-json-step-string-input-line-break": Case(
        (tool("SandboxShellTool", "command"),),
        '{"thought": "run script", "action": "SandboxShellTool", '
        '"action_input": "{\\"command\\": \\"echo hello\\\\necho world\\"}", "output_files": ""}',
        calls=[("SandboxShellTool", {"command": "echo hello\necho world"})],
        only=("react",),
    ),
    # ---- OpenJarvis ---------------------------------------------------------------------------------
    # open-jarvis/OpenJarvis#947: nemotron-3-super-120b-a12b (OpenRouter) answers a ReAct prompt with
    # one JSON object, in a json fence (verbatim but the user's path, which the report elided)
    "openjarvis947-nemotron-json-step-fenced": Case(
        (tool("shell_exec", "command", "timeout"),),
        '```json\n{\n  "thought": "We need to count .mkv files in the given directory...",\n  "action": "shell_exec",\n'
        '  "action_input": {"command": "ls -la \'/c/Users/me/Videos/*.mkv\' | wc -l", "timeout": 10}\n}\n```',
        calls=[("shell_exec", {"command": "ls -la '/c/Users/me/Videos/*.mkv' | wc -l", "timeout": 10})],
        only=("react",),
    ),
    # the same without the fence (PR #950 reads both)
    "openjarvis947-nemotron-json-step-bare": Case(
        (tool("shell_exec", "command", "timeout"),),
        '{\n  "thought": "We need to count .mkv files in the given directory...",\n  "action": "shell_exec",\n'
        '  "action_input": {"command": "ls -la \'/c/Users/me/Videos/*.mkv\' | wc -l", "timeout": 10}\n}',
        calls=[("shell_exec", {"command": "ls -la '/c/Users/me/Videos/*.mkv' | wc -l", "timeout": 10})],
        only=("react",),
    ),
    # OpenJarvis PR #950: Title Case ReAct fields in a JSON step (rebuilt from the PR's description)
    "openjarvis950-title-case-json-step": Case(
        (tool("calculator", "expression"),),
        '{"Thought": "I need to compute it.", "Action": "calculator", "Action Input": {"expression": "3*7"}}',
        calls=[("calculator", {"expression": "3*7"})],
        only=("react",),
    ),
    # ---- LlamaIndex ---------------------------------------------------------------------------------
    # run-llama/llama_index#19187: an action with a sentence before it and no "Thought:" (verbatim)
    "llamaindex19187-action-without-thought-label": Case(
        (tool("handoff", "to_agent", "reason"),),
        "To answer the question, I need to handoff to the research agent.\n\nAction: handoff\n"
        'Action Input: {"to_agent": "research", "reason": "**insert_any_reason_here**"}',
        calls=[("handoff", {"to_agent": "research", "reason": "**insert_any_reason_here**"})],
        hidden=("handoff to the research",),
        only=("react",),
    ),
    # ---- hello-agents -------------------------------------------------------------------------------
    # datawhalechina/hello-agents#75 (and PR #47): the prompt's bold labels make the model write
    # "**Thought:**" and "**Action:** tool[input]" (rebuilt from the prompt the issue quotes)
    "helloagents75-bold-labels-bracket-action": Case(
        (tool("search", "query"), tool("calculate", "expression")),
        "**Thought:** 这是一个数学计算问题，我应该使用计算工具。\n**Action:** calculate[15 * 23 + 45]",
        calls=[("calculate", {"expression": "15 * 23 + 45"})],
        only=("react",),
    ),
    # datawhalechina/hello-agents PR #127: Qwen3-8B writes the action between back quotes, as the
    # prompt shows it (rebuilt from the PR's description)
    "helloagents127-qwen3-backquoted-bracket-action": Case(
        (tool("Search", "query"),),
        "Thought: 我需要搜索英伟达最新的GPU型号。\nAction: `Search[英伟达最新GPU型号]`",
        calls=[("Search", {"query": "英伟达最新GPU型号"})],
        only=("react",),
    ),
    # the same PR: the answer in a back-quoted Finish[...] (rebuilt)
    "helloagents127-qwen3-backquoted-finish": Case(
        (tool("Search", "query"),),
        "Thought: 我已经知道答案了。\nAction: `Finish[英伟达最新的GPU是B200。]`",
        answer="英伟达最新的GPU是B200。",
        only=("react",),
    ),
    # ---- NeMo Agent Toolkit -------------------------------------------------------------------------
    # NVIDIA/NeMo-Agent-Toolkit PR #1675: Llama-3.1-Nemotron-Nano-4B-v1.1 opens <think> and never
    # closes it, then writes its step (the reasoning verbatim, shortened; the step after it rebuilt)
    "nat1675-nemotron-nano-unclosed-think-then-step": Case(
        (tool("webpage_query", "query"), tool("current_datetime", "format")),
        "<think>\nOkay, the user is asking about LangSmith now. Let me check the conversation history.\n\n"
        "So, the query would be to search for LangSmith on the web. The proper JSON format for the query would be "
        "{'query': 'What is LangSmith?'}. That should get relevant results. Since there's no specific information "
        "given to use the current datetime, I don't need that tool here.\n\nThought: I should look LangSmith up.\n"
        'Action: webpage_query\nAction Input: {"query": "What is LangSmith?"}',
        calls=[("webpage_query", {"query": "What is LangSmith?"})],
        only=("react",),
    ),
    # ---- LangChain ----------------------------------------------------------------------------------
    # langchain-ai/langchain#20704: llama3 under hwchase17/react writes the observation itself
    # (verbatim up to the cut "Thought: I now", completed with an answer)
    "langchain20704-llama3-writes-own-observation": Case(
        (tool("Search", "query"),),
        "Thought: I need to find out how many home runs Shohei Ohtani hit last year.\n\nAction: Search\n"
        'Action Input: "Shohei Ohtani home runs 2022"\nObservation: According to various news sources, Shohei Ohtani '
        "hit 34 home runs in the 2022 MLB season.\n\nThought: I now know the final answer\nFinal Answer: 34",
        calls=[("Search", {"query": "Shohei Ohtani home runs 2022"})],
        hidden=("34 home runs",),
        only=("react",),
    ),
    # langchain-ai/langchain#998: with one tool, LangChain's "one of [{tool_names}]" makes the model
    # write the name in brackets (verbatim; the report's placeholder name kept as the tool's)
    "langchain998-bracketed-tool-name": Case(
        (tool("Tool Name", "input"),),
        "Action: [Tool Name]\nAction Input: Some input",
        calls=[("Tool Name", {"input": "Some input"})],
        only=("react",),
    ),
    # the same with a thought and a JSON input (completed beyond the report)
    "langchain998-bracketed-tool-name-json-input": Case(
        (tool("search", "query"), tool("calculator", "expression")),
        'Thought: I should search.\nAction: [search]\nAction Input: {"query": "Paris weather"}',
        calls=[("search", {"query": "Paris weather"})],
        only=("react",),
    ),
    # ---- XML-tagged steps ---------------------------------------------------------------------------
    # lamalab-org/corral PR #192 (and kilian-group/phantom-wiki PR #113): a ReAct prompt in XML tags,
    # <thought>, <action>, <action_input>, <final_answer> (rebuilt from the PR's description)
    "corral192-xml-tagged-step": Case(
        (tool("search", "query"),),
        "<thought>I need to search.</thought>\n<action>search</action>\n"
        '<action_input>{"query": "Paris weather"}</action_input>',
        calls=[("search", {"query": "Paris weather"})],
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the same shapes that must run nothing ------------------------------------------------------

NOT_BRACKETED_CALLS = {
    # brackets around a name no node tool has, several names, a quoted name: as before, asked again
    "no-node-tool": "Thought: x\nAction: [lookup]\nAction Input: Paris",
    "two-names": "Thought: x\nAction: [search, calculator]\nAction Input: Paris",
    "quoted-name": 'Thought: x\nAction: ["search"]\nAction Input: Paris',
    "name-then-text": "Thought: x\nAction: [search] the web\nAction Input: Paris",
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("name", list(NOT_BRACKETED_CALLS))
def test_bracketed_text_naming_no_node_tool_runs_nothing(name, size):
    """Only a node tool's whole name in brackets is an action's name; anything else in brackets
    after ``Action:`` is read as before (a JSON value that is no call: the step is asked again)."""
    case = Case((tool("search", "query"), tool("calculator", "expression")), NOT_BRACKETED_CALLS[name])
    _, turn = read("react", case, size)
    assert not isinstance(turn.decision, (ToolCalls, FinalAnswer)), turn.decision
    assert isinstance(turn.decision, ParseFailure)
