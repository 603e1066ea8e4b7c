"""A thirty-fifth set of real-world cases: ReAct replies that agent frameworks (LangChain and
LangChain.js, LlamaIndex, NeMo Agent Toolkit, MetaGPT, smolagents, corral, dynamiq, archytas,
Apache Flink Agents, AgentVerse, OpenSearch ml-commons, the Hugging Face agents course) and Dify
itself read wrong, as their public issues and pull requests quote them: an action as a JSON blob
in a fence the stop word left open, the model writing its own Observation and Final Answer after
the action, a whole made-up conversation after the first step, Action Input as a Python dict
(``True``/``False``, single quotes), as JSON with comments or with ``\\'`` escapes, as a quoted
string (inner quotes kept) or plain text over several lines, with a line of prose after it, blank
lines between the labels, no Action Input for a tool with no parameters, "Action:" inside a
thought, an action and a final answer in one reply, a final answer that is a fenced JSON object
or an ECharts block, a tool name the node does not have.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); ReAct's label format is ReAct's own, so most cases are for
ReAct only. Each case names its source beside it; docs/real-world-cases.md lists them with what the
user saw and expected. A text is quoted as the report shows it; where the report describes the
output or shows a format and its values were filled in, the comment says "rebuilt". The tools are
declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026d import read

WEATHER = tool("get_weather", "city")
LOCATION = tool("get_weather", "location")
SEARCH = tool("search", "query")
REACT = ("react",)

CASES = {
    # ---- the action as a JSON blob; the model writing its own Observation ----------------------------
    # huggingface/agents-course#412 (units/en/unit1/dummy-agent-library.mdx, the output the issue
    # asks about, verbatim): the action in a bare fence, then an Observation and a Final Answer the
    # model made up; the call runs, the made-up weather is never shown
    "agentscourse412-fenced-json-action-then-own-observation-and-answer": Case(
        (LOCATION,),
        "Thought: To answer the question, I need to get the current weather in London.\nAction:\n```\n"
        '{\n  "action": "get_weather",\n  "action_input": {"location": "London"}\n}\n```\n'
        "Observation: The current weather in London is partly cloudy with a temperature of 12°C.\n"
        "Thought: I now know the final answer.\n"
        "Final Answer: The current weather in London is partly cloudy with a temperature of 12°C.",
        calls=[("get_weather", {"location": "London"})], hidden=("partly cloudy", '"action"'),
        only=REACT,
    ),
    # the same page: the reply cut by the stop word `Observation:`, its fence never closed (verbatim)
    "agentscourse412-fenced-json-action-left-open-by-the-stop-word": Case(
        (LOCATION,),
        "Thought: To answer the question, I need to get the current weather in London.\nAction:\n```\n"
        '{\n  "action": "get_weather",\n  "action_input": {"location": "London"}\n}\n\n\n',
        calls=[("get_weather", {"location": "London"})], hidden=('"action"',), only=REACT,
    ),
    # langchain-ai/langchain#5759: a quoted string as the Action Input, then an Observation the
    # model wrote itself (the trace's lines, verbatim)
    "langchain5759-quoted-string-input-then-own-observation": Case(
        (tool("json_spec_get_value", "tool_input"),),
        'Thought: I should look at the values associated with the "name" key\n'
        "Action: json_spec_get_value\n"
        "Action Input: \"data['name']\"\n"
        "Observation: KeyError(\"'name'\")",
        calls=[("json_spec_get_value", {"tool_input": "data['name']"})], hidden=("KeyError",), only=REACT,
    ),
    # QuangBK/localLLM_guidance#2: vicuna wrote a plain-text Action Input, then whole made-up
    # Observations (the first step of the quoted reply, verbatim; the rest trimmed)
    "localllmguidance2-plain-input-then-made-up-observations": Case(
        (tool("Google Search", "query"),),
        "Question: What is the population of Congo?\n"
        "Thought: First, I need to find the population of Congo.\n"
        "Action: Google Search\n"
        "Action Input: What is the population of Congo?\n"
        "Observation: 95.89 million (2021)\n"
        "Thought: Now, I should check the source of this information.\n"
        "Action: Google Search\n"
        "Action Input: Is 95.89 million the correct population of Congo?",
        calls=[("Google Search", {"query": "What is the population of Congo?"})],
        hidden=("95.89",), only=REACT,
    ),
    # ---- Action Input shapes ---------------------------------------------------------------------
    # lamalab-org/corral#144: the Action Input as JSON over several lines with Python's `True`;
    # json.loads failed (verbatim)
    "corral144-multiline-input-with-python-true": Case(
        (tool("select_polymorphs_with_strategy_to_file", "polymorphs_data", "save_path", "selection_strategy",
              "max_polymorphs", "energy_threshold", "is_path"),),
        "Thought: I have successfully retrieved the polymorph data for the composition Fe2O3. Now, I need to "
        "select the polymorphs using a strategy that aligns with the task requirements. I will use the "
        '"diverse_energy" strategy to select the polymorphs and save the results to a file.\n'
        "Action: select_polymorphs_with_strategy_to_file\n"
        'Action Input: {\n    "polymorphs_data": "/Users/n0w0f/ml_gpt_react/ml_oxides_trial_0/Fe2O3_polymorphs.json",\n'
        '    "save_path": "/Users/n0w0f/ml_gpt_react/ml_oxides_trial_0/selected_Fe2O3_polymorphs.json",\n'
        '    "selection_strategy": "diverse_energy",\n    "max_polymorphs": 3,\n    "energy_threshold": 0.3,\n'
        '    "is_path": True\n}',
        calls=[("select_polymorphs_with_strategy_to_file", {
            "polymorphs_data": "/Users/n0w0f/ml_gpt_react/ml_oxides_trial_0/Fe2O3_polymorphs.json",
            "save_path": "/Users/n0w0f/ml_gpt_react/ml_oxides_trial_0/selected_Fe2O3_polymorphs.json",
            "selection_strategy": "diverse_energy", "max_polymorphs": 3, "energy_threshold": 0.3, "is_path": True})],
        only=REACT,
    ),
    # the same thread, its second reply: a tool name in backticks inside the thought, a blank line
    # before the Action (verbatim)
    "corral144-backticked-name-in-thought-python-true": Case(
        (tool("prepare_tabular_dataset", "polymorphs_json_path", "output_path", "target_property",
              "feature_engineering", "test_split", "normalize"),),
        "Thought: It seems there was a repetition in the action input. I will proceed with running the "
        "`prepare_tabular_dataset` tool to ensure the dataset is prepared correctly.\n\n"
        "Action: prepare_tabular_dataset\n"
        'Action Input: {\n    "polymorphs_json_path": "fe2o3_polymorphs.json",\n    "output_path": "fe2o3_dataset",\n'
        '    "target_property": "formation_energy_per_atom",\n    "feature_engineering": "advanced",\n'
        '    "test_split": 0.2,\n    "normalize": True\n}',
        calls=[("prepare_tabular_dataset", {
            "polymorphs_json_path": "fe2o3_polymorphs.json", "output_path": "fe2o3_dataset",
            "target_property": "formation_energy_per_atom", "feature_engineering": "advanced",
            "test_split": 0.2, "normalize": True})],
        only=REACT,
    ),
    # NVIDIA/NeMo-Agent-Toolkit#262: a Python dict with single quotes and `False`; the agent passed
    # the raw string to an MCP tool (verbatim)
    "nat262-python-dict-input-with-false": Case(
        (tool("mcp_url_tool", "url", "max_length", "start_index", "raw"),),
        "Thought: Langchain and Langgraph are both AI models, but they have different architectures and purposes. "
        "Langchain is a type of transformer-based language model, while Langgraph is a graph-based language model. "
        "To provide a more detailed answer, I need to know more about the specific differences between these two "
        "models.\n\nAction: mcp_url_tool\n"
        "Action Input: {'url': 'https://langchain.com/docs/langchain-vs-langgraph', 'max_length': 1000, "
        "'start_index': 0, 'raw': False}\n",
        calls=[("mcp_url_tool", {"url": "https://langchain.com/docs/langchain-vs-langgraph", "max_length": 1000,
                                 "start_index": 0, "raw": False})],
        only=REACT,
    ),
    # NVIDIA/NeMo-Agent-Toolkit#161: an Action Input that is no JSON is the tool's input as written
    # (rebuilt)
    "nat161-plain-string-input-for-a-one-parameter-tool": Case(
        (SEARCH,),
        "Thought: I should look this up.\nAction: search\nAction Input: NVIDIA NeMo Agent Toolkit release notes",
        calls=[("search", {"query": "NVIDIA NeMo Agent Toolkit release notes"})], only=REACT,
    ),
    # OpenBMB/AgentVerse#72: plain text over several lines as the Action Input, no Thought (verbatim)
    "agentverse72-multiline-plain-input-without-thought": Case(
        (tool("Speak", "content"),),
        "Action: Speak\nAction Input: Good morning, everyone! I hope you're all doing well today. For those who "
        "don't know me, my name is Professor Michael, and I'll be your instructor for today's lecture on the "
        "Transformer architecture of neural networks. Before we dive into the topic, I just want to remind you \n"
        "that if you have any questions, please feel free to raise \nyour hand, and I'll be happy to address "
        "them. Now, let's get started!",
        calls=[("Speak", {"content": (
            "Good morning, everyone! I hope you're all doing well today. For those who "
            "don't know me, my name is Professor Michael, and I'll be your instructor for today's lecture on the "
            "Transformer architecture of neural networks. Before we dive into the topic, I just want to remind you \n"
            "that if you have any questions, please feel free to raise \nyour hand, and I'll be happy to address "
            "them. Now, let's get started!")})],
        only=REACT,
    ),
    # FoundationAgents/MetaGPT PR #799: GLM-4 and gpt-4-1106-preview put `#` and `//` comments in
    # their JSON (rebuilt as an Action Input)
    "metagpt799-glm4-input-json-with-comments": Case(
        (tool("get_weather", "city", "unit"),),
        'Thought: I need the weather.\nAction: get_weather\nAction Input: {\n  "city": "Beijing", # the user\'s city\n'
        '  "unit": "celsius" // metric\n}',
        calls=[("get_weather", {"city": "Beijing", "unit": "celsius"})], only=REACT,
    ),
    # jataware/archytas#35: the model put a comment next to the value it had corrected, and the
    # input failed to parse (rebuilt)
    "archytas35-comment-beside-a-corrected-value": Case(
        (tool("tool9", "item"),),
        'Thought: I need to retry tool9 with an integer for b.\nAction: tool9\n'
        'Action Input: {"item": {"a": {"a": 5, "b": 0}}}  // b must be an integer, not a list',
        calls=[("tool9", {"item": {"a": {"a": 5, "b": 0}}})], only=REACT,
    ),
    # dynamiq-ai/dynamiq PR #706: "LLMs can produce invalid \\' escapes" in the action input's JSON
    # (rebuilt)
    "dynamiq706-escaped-apostrophe-in-input-json": Case(
        (SEARCH,),
        "Thought: I will search.\nAction: search\nAction Input: {\"query\": \"McDonald\\'s opening hours\"}",
        calls=[("search", {"query": "McDonald's opening hours"})], only=REACT,
    ),
    # langchain-ai/langchainjs PR #7707: the react agent's parser stripped every `"` of a quoted
    # Action Input, so `"hello "world" "` lost its inner quotes (the PR's input; the step rebuilt)
    "langchainjs7707-quoted-input-with-inner-quotes": Case(
        (SEARCH,),
        'Thought: I will search the phrase.\nAction: search\nAction Input: "hello "world" "',
        calls=[("search", {"query": 'hello "world" '})], only=REACT,
    ),
    # ---- label layout ----------------------------------------------------------------------------
    # run-llama/llama_index#9472: with no stop word "the LLM often will generate an entire
    # conversation"; the first Thought/Action set is the step (rebuilt): only it runs, nothing
    # the model made up after it is shown
    "llamaindex9472-whole-conversation-in-one-reply-first-step-runs": Case(
        (WEATHER,),
        "Thought: I need the weather in Paris.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\n"
        "Observation: Sunny, 25 C.\nThought: I need the weather in Rome too.\nAction: get_weather\n"
        "Action Input: {\"city\": \"Rome\"}\nObservation: Rainy, 14 C.\nThought: I now know the final answer.\n"
        "Final Answer: Paris is sunny and Rome is rainy.",
        calls=[("get_weather", {"city": "Paris"})], hidden=("Sunny, 25", "Rainy", "Paris is sunny"), only=REACT,
    ),
    # run-llama/llama_index PR #13459: "does not allow new lines between any one of Thought, Action,
    # or Action Input" (rebuilt)
    "llamaindex13459-blank-lines-between-labels": Case(
        (SEARCH,),
        "Thought: I need to search for this.\n\nAction:\n\nsearch\n\nAction Input:\n\n{\"query\": \"llama index\"}",
        calls=[("search", {"query": "llama index"})], only=REACT,
    ),
    # run-llama/llama_index PR #18818: models "ignoring the Action Input line ... when calling tools
    # that do not require kwargs" (rebuilt)
    "llamaindex18818-no-action-input-for-a-tool-without-parameters": Case(
        (tool("get_current_time"),),
        "Thought: I need the current time.\nAction: get_current_time",
        calls=[("get_current_time", {})], only=REACT,
    ),
    # huggingface/smolagents#1219: a fenced block inside the thought before the real step (the
    # issue's thought verbatim; the ReAct step after it rebuilt)
    "smolagents1219-fence-in-thought-before-the-action": Case(
        (SEARCH,),
        "Thought:\nxxxxxxxxxxxxxxx\n```\ninvalid code\n```\n\nAction: search\nAction Input: {\"query\": \"valid code\"}",
        calls=[("search", {"query": "valid code"})], hidden=("invalid code",), only=REACT,
    ),
    # langgenius/dify#22521: a thinking model wrote "Observation" in its reasoning and the stop word
    # cut the reply there (rebuilt: the reasoning in a think block, the step after it)
    "dify22521-observation-inside-the-think-block": Case(
        (SEARCH,),
        "<think>The user asks for sales data. Observation: the database tool returns rows; I should query it."
        "</think>\nThought: I will query the database.\nAction: search\nAction Input: {\"query\": \"sales 2025\"}",
        calls=[("search", {"query": "sales 2025"})], hidden=("<think>", "returns rows"), only=REACT,
    ),
    # ---- answers ---------------------------------------------------------------------------------
    # run-llama/llama_index PR #22148: "A thought like `The phrase Action: is part of this thought`
    # could be misclassified as a tool call" (the phrase verbatim; the answer rebuilt)
    "llamaindex22148-action-phrase-inside-the-thought-then-answer": Case(
        (SEARCH,),
        "Thought: The phrase Action: is part of this thought.\nFinal Answer: The word 'Action:' has 7 characters.",
        answer="The word 'Action:' has 7 characters.", only=REACT,
    ),
    # apache/flink-agents#274: deepseek-chat's final output as a fenced JSON object (verbatim); it is
    # the answer as written, nothing runs
    "flinkagents274-deepseek-fenced-json-answer": Case(
        (SEARCH,),
        '```json\n{\n  "id": "B0092UF54A",\n  "score": 5,\n  "reasons": []\n}\n```',
        answer='```json\n{\n  "id": "B0092UF54A",\n  "score": 5,\n  "reasons": []\n}\n```',
    ),
    # langgenius/dify#13575: an ECharts option in the answer made ReAct show `action_input` (rebuilt):
    # the chart after `Final Answer:` is the answer's text
    "dify13575-echarts-json-in-the-final-answer": Case(
        (SEARCH,),
        "Thought: I can draw the chart now.\nFinal Answer: ```echarts\n"
        '{"xAxis": {"type": "category", "data": ["Mon", "Tue"]}, "yAxis": {"type": "value"}, '
        '"series": [{"data": [120, 200], "type": "bar"}]}\n```',
        answer='```echarts\n{"xAxis": {"type": "category", "data": ["Mon", "Tue"]}, "yAxis": {"type": "value"}, '
               '"series": [{"data": [120, 200], "type": "bar"}]}\n```',
        only=REACT,
    ),
    # langchain-ai/langchain#3037: "returning the action and final answer at the same time, causing
    # the tool not to run" (rebuilt): the action runs, the guessed answer is not shown
    "langchain3037-action-and-final-answer-in-one-reply": Case(
        (WEATHER,),
        "Thought: I need the weather.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}\n"
        "Final Answer: It is sunny in Paris.",
        calls=[("get_weather", {"city": "Paris"})], hidden=("sunny",), only=REACT,
    ),
    # langgenius/dify#19341: Qwen3-32B through openai-API-compatible answered with the call format
    # instead of calling (rebuilt: its Hermes call in the content)
    "dify19341-qwen3-hermes-call-in-content": Case(
        (WEATHER,),
        '<think>\nThe user wants the weather in Paris.\n</think>\n\n<tool_call>\n'
        '{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        calls=[("get_weather", {"city": "Paris"})], hidden=("tool_call", "wants the weather"),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}

test_real_world_reply = reply_test(CASES, GAPS, read)


def _pieces(strategy: str, case: Case):
    for size in (None, 1, 7):
        yield read(strategy, case, size)


def test_llamaindex12479_a_tool_name_the_node_lacks_runs_nothing():
    """run-llama/llama_index#12479 ("Tool with name python not found", rebuilt): an action naming a
    tool the node does not have runs no node tool; ReAct answers it as an unknown tool (the model
    is told) or asks again, and nothing of the step is shown."""
    case = Case((SEARCH,), 'Thought: I will compute it.\nAction: python\nAction Input: {"code": "print(2 + 2)"}')
    for streamed, turn in _pieces("react", case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert "search" not in [c.name for c in turn.decision.calls]
        assert "print(2 + 2)" not in streamed


def test_mlcommons1735_an_action_naming_no_tool_runs_nothing():
    """opensearch-project/ml-commons#1735: "LLM may still return an action that doesn't match any
    of the tool's name" (rebuilt: the action named as a phrase, the cluster's tool declared): no
    node tool runs, and nothing of the step is shown."""
    case = Case((tool("CatIndexTool", "indices"),),
                "Thought: The user asks how to split an index.\nAction: no access to this tool\nAction Input: split index")
    for streamed, turn in _pieces("react", case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert "CatIndexTool" not in [c.name for c in turn.decision.calls]
        assert "split index" not in streamed


def test_llamaindex7074_a_multiline_input_with_text_after_it_never_runs_cut_short():
    """run-llama/llama_index#7074 (verbatim): an Action Input over several lines, a nested quote
    inside a string, a line of text after it. The old parser ran the tool with `{` as its input;
    here the call runs with its fields read in full, or the reply is asked again: never a call cut
    at the first line."""
    case = Case(
        (tool("code_writer", "working_file", "instructions", "context"),),
        "Thought: Now that I have both the pre-migration and post-migration code... I will use the code_writer "
        "tool to write the initial code.\nAction: code_writer\nAction Input: {\n"
        '  "working_file": "",\n  "instructions": "do stuff",\n'
        '  "context": "some context {"key": "maybe there\'s a nested json here"}"\n}\n'
        "let's add some garbage in here too.\n",
    )
    for _streamed, turn in _pieces("react", case):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert [c.name for c in turn.decision.calls] == ["code_writer"]
            assert turn.decision.calls[0].arguments.get("instructions") == "do stuff"
        else:
            assert isinstance(turn.decision, ParseFailure)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_flinkagents274_a_fenced_json_answer_after_a_final_answer_label_is_shown_whole(strategy):
    """apache/flink-agents#274 (the JSON verbatim) after a ReAct Final Answer label: shown whole,
    nothing runs."""
    from tests.unit.test_real_world_2026 import check_answer_shown_whole

    text = '```json\n{\n  "id": "B0092UF54A",\n  "score": 5,\n  "reasons": []\n}\n```'
    check_answer_shown_whole(strategy, text, (SEARCH,), reader=read)
