"""ReAct replies as real models write them, through the streaming parser.

Each text is parsed whole, one character at a time, at every two-way split and in small
chunks: the events must not depend on the chunking. Comments name where each shape comes
from (GitHub threads, or the model family known to write it). None of these repeats a case
of docs/real-world-cases.md.
"""

import pytest

from agent_core.model_call import ModelChunk
from agent_core.react.parser import (
    PROBLEM_THOUGHT_ONLY,
    ActionFound,
    AnswerDelta,
    ReactStreamParser,
    ReasoningDelta,
    ThoughtDelta,
)
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import drain, merged


def run(chunks, multi):
    parser = ReactStreamParser(allow_multiple_actions=multi)
    events = [event for chunk in chunks for event in parser.feed(chunk)]
    events += parser.finish()
    return merged(events), parser.result()


def parse_everywhere(text, multi=False):
    """The turn for ``text``, after checking every way of splitting it gives the same events."""
    whole = run([text], multi)
    assert run(list(text), multi) == whole, "char by char"
    for size in (2, 3, 5, 8, 13):
        assert run([text[i : i + size] for i in range(0, len(text), size)], multi) == whole, size
    for cut in range(len(text) + 1):
        assert run([text[:cut], text[cut:]], multi) == whole, cut
    events, turn = whole
    answer = "".join(e.text for e in events if isinstance(e, AnswerDelta))
    assert tuple(e for e in events if isinstance(e, ActionFound)) == turn.actions
    assert (answer or None) == turn.final_answer
    assert "".join(e.text for e in events if isinstance(e, ThoughtDelta)).strip() == turn.thought
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)).strip() == turn.reasoning
    assert (turn.problem is None) == bool(turn.actions or turn.final_answer)
    return turn


# ---- replies that call a tool ------------------------------------------------------------------

ACTIONS = [
    # DeepSeek-R1 / QwQ through an OpenAI-compatible server: the reasoning block stays in content
    pytest.param(
        "<think>\nThe user wants the weather in Paris. I should call get_weather.\n</think>\n\n"
        'Thought: I need the current weather in Paris.\nAction: get_weather\nAction Input: {"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
        id="deepseek-r1-think-then-react",
    ),
    # run-llama/llama_index#12455: the input in parentheses after the tool name
    pytest.param(
        "Thought: I need to use a tool to help me answer the question.\n"
        'Action: search_docs ({"input": "refund policy"})',
        [("search_docs", {"input": "refund policy"})],
        id="llamaindex12455-json-in-parentheses",
    ),
    # langchain-ai/langchain#20704 (Llama 3): quoted text input, then an invented Observation and answer
    pytest.param(
        "Thought: I need to find out how many home runs Shohei Ohtani hit last year.\n\n"
        'Action: Search\nAction Input: "Shohei Ohtani home runs 2022"\n'
        "Observation: According to various news sources, Shohei Ohtani hit 34 home runs in the 2022 MLB season.\n\n"
        "Thought: I now know the final answer\nFinal Answer: 34",
        [("Search", "Shohei Ohtani home runs 2022")],
        id="langchain20704-llama3-quoted-input-invented-observation",
    ),
    # langchain-ai/langchain#8226 (Azure OpenAI completion): no "Thought:", a leading space
    pytest.param(
        " easy, I can do this in my head\nAction: Calculator\nAction Input: 1+1\nObservation: Answer: 2\nThought:",
        [("Calculator", "1+1")],
        id="langchain8226-no-thought-label",
    ),
    # run-llama/llama_index#19187: prose instead of "Thought:" before the action
    pytest.param(
        "To answer the question, I need to handoff to the research agent.\n\n"
        'Action: handoff\nAction Input: {"to_agent": "research", "reason": "needs data"}',
        [("handoff", {"to_agent": "research", "reason": "needs data"})],
        id="llamaindex19187-prose-before-action",
    ),
    # dynamiq-ai/dynamiq#506 (DeepSeek): a blank line before the input, JSON over several lines
    pytest.param(
        "Thought: I need to calculate the sum of the first 10 numbers.\nAction: Calculator Tool\n\n"
        'Action Input: {\n    "code": "print(sum(range(1, 11)))"\n}',
        [("Calculator Tool", {"code": "print(sum(range(1, 11)))"})],
        id="dynamiq506-multiline-input-after-blank-line",
    ),
    # run-llama/llama_index#10322: a Python dict with a list
    pytest.param(
        "Thought: I'll use the information provided by the `about_the_user` tool.\n"
        "Action: look_up_wikipedia\nAction Input: {'pages': ['Coca-Cola'], 'query_str': ''}",
        [("look_up_wikipedia", {"pages": ["Coca-Cola"], "query_str": ""})],
        id="llamaindex10322-python-dict",
    ),
    # Python dict with an apostrophe in a double-quoted value (GPT-3.5 / Llama 2 in LangChain agents)
    pytest.param(
        "Thought: search\nAction: search\nAction Input: {'query': \"Einstein's birthday\"}",
        [("search", {"query": "Einstein's birthday"})],
        id="python-dict-mixed-quotes",
    ),
    # GPT-4o: bold labels with the colon outside, name and input in backticks
    pytest.param(
        '**Thought**: I should look this up.\n**Action**: `web_search`\n**Action Input**: `{"query": "dify release notes"}`',
        [("web_search", {"query": "dify release notes"})],
        id="gpt4o-bold-labels-backticked-input",
    ),
    # GPT-4o / Claude: the input in a ```json fence on its own lines, after a blank line
    pytest.param(
        'Thought: I\'ll search.\nAction: search\n\nAction Input:\n```json\n{\n  "query": "langgenius dify"\n}\n```',
        [("search", {"query": "langgenius dify"})],
        id="fenced-input-after-blank-line",
    ),
    # Qwen2.5 in Chinese: full-width colons after English labels
    pytest.param(
        'Thought：我需要查询北京的天气。\nAction：get_weather\nAction Input：{"city": "北京"}',
        [("get_weather", {"city": "北京"})],
        id="qwen-full-width-colons",
    ),
    # Qwen through a server that does not strip its end token
    pytest.param(
        'Thought: search\nAction: search\nAction Input: {"q": "x"}<|im_end|>',
        [("search", {"q": "x"})],
        id="qwen-im-end-after-input",
    ),
    # GLM-4: its stop token <|observation|> written after the input
    pytest.param(
        'Thought: search\nAction: search\nAction Input: {"q": "x"}<|observation|>',
        [("search", {"q": "x"})],
        id="glm4-observation-token",
    ),
    # Mistral 7B / Llama 2 through TGI or LocalAI: the end-of-sequence </s> left in the text
    pytest.param(
        "Thought: search\nAction: search\nAction Input: weather in Paris</s>",
        [("search", "weather in Paris")],
        id="mistral-eos-after-text-input",
    ),
    # deepseek-ai/DeepSeek-R1#557: DeepSeek's full-width end token left in the text
    pytest.param(
        "Action: search\nAction Input: cats<｜end▁of▁sentence｜>",
        [("search", "cats")],
        id="deepseekr1-557-full-width-eos-after-input",
    ),
    # a code tool whose JSON string has raw newlines (Llama 3.1 70B, Qwen2.5-Coder)
    pytest.param(
        'Thought: run code\nAction: python_repl\nAction Input: {"code": "import math\nprint(math.sqrt(16))"}',
        [("python_repl", {"code": "import math\nprint(math.sqrt(16))"})],
        id="raw-newline-in-json-string",
    ),
    # commentary after the JSON on the same line (Mixtral)
    pytest.param(
        'Thought: search\nAction: search\nAction Input: {"q": "x"} (searching for recent news)',
        [("search", {"q": "x"})],
        id="commentary-after-input",
    ),
    # run-llama/llama_index#14736 (GPT-3.5): the whole reply wrapped in a code fence
    pytest.param(
        '```\nThought: I need to search\nAction: search\nAction Input: {"q": "x"}\n```',
        [("search", {"q": "x"})],
        id="llamaindex14736-reply-in-fence",
    ),
    # Llama 3.1: a JSON call after its <|python_tag|> token (Ollama / vLLM without a tool parser)
    pytest.param(
        '<|python_tag|>{"name": "search", "parameters": {"query": "x"}}<|eom_id|>',
        [("search", {"query": "x"})],
        id="llama31-python-tag",
    ),
    # Hermes 2 Pro / Qwen: <tool_call> holding a Python dict
    pytest.param(
        "<tool_call>\n{'name': 'search', 'arguments': {'query': 'x'}}\n</tool_call>",
        [("search", {"query": "x"})],
        id="hermes-tool-call-python-dict",
    ),
    # quoted tool name with a trailing period (Llama 2 13B)
    pytest.param(
        'Thought: t\nAction: "web_search".\nAction Input: {"query": "x"}',
        [("web_search", {"query": "x"})],
        id="quoted-name-with-period",
    ),
    # a code tool's input in a ```python fence (GPT-4, Qwen2.5-Coder)
    pytest.param(
        "Thought: compute\nAction: python_repl\nAction Input:\n```python\nprint(2+2)\n```",
        [("python_repl", "print(2+2)")],
        id="fenced-python-input",
    ),
    # open-jarvis/OpenJarvis#947 (Nemotron): one bare JSON object with a "thought" key
    pytest.param(
        '{\n  "thought": "We need to count files",\n  "action": "shell_exec",\n'
        '  "action_input": {"command": "ls | wc -l", "timeout": 10}\n}',
        [("shell_exec", {"command": "ls | wc -l", "timeout": 10})],
        id="openjarvis947-bare-json-with-thought",
    ),
    # open-jarvis/OpenJarvis#950: the ReAct labels as Title Case JSON keys, in a fence
    pytest.param(
        '```json\n{\n  "Thought": "I need to search",\n  "Action": "search",\n  "Action Input": {"query": "x"}\n}\n```',
        [("search", {"query": "x"})],
        id="openjarvis950-title-case-keys-fenced",
    ),
    # the same keys after an "Action:" label, with "Action_Input" (Qwen2 7B)
    pytest.param(
        'Thought: t\nAction: {"Action": "search", "Action_Input": {"query": "x"}}',
        [("search", {"query": "x"})],
        id="title-case-keys-after-label",
    ),
    # code-writing models (smolagents CodeAgent habit, Gemini): the call as code in a fence
    pytest.param(
        'Thought: I need to search.\nAction:\n```python\nsearch(query="weather in Paris")\n```',
        [("search", {"query": "weather in Paris"})],
        id="call-as-code-in-fence",
    ),
    # langgenius/dify-official-plugins#3861 (Qwen): JSON on its own line in the Thought
    pytest.param(
        'Thought: The tool input should be:\n{"query": "weather"}\nAction: search\nAction Input: {"query": "weather"}',
        [("search", {"query": "weather"})],
        id="dop3861-json-line-in-thought",
    ),
    # vllm-project/vllm#16214 (Llama 4 with the llama3_json parser): the JSON call between its python tokens
    pytest.param(
        '<|python_start|>{"name": "brave_web_search", "parameters": {"query": "latest news"}}<|python_end|>',
        [("brave_web_search", {"query": "latest news"})],
        id="vllm16214-llama4-python-start-json",
    ),
    # vllm-project/vllm#46863 (Llama-4-Scout): the call object with a "type" key, left in the content
    pytest.param(
        '{"type": "function", "name": "Bash", "parameters": {"command": "echo hello", "timeout": 12000}}',
        [("Bash", {"command": "echo hello", "timeout": 12000})],
        id="vllm46863-llama4-type-function-json",
    ),
    # ollama/ollama#13519 (llama3.2:3b): the call as JSON in a fence, in the content
    pytest.param(
        '```json\n{"name": "query_web_search", "parameters": {"query": "install ollama models"}}\n```',
        [("query_web_search", {"query": "install ollama models"})],
        id="ollama13519-llama32-fenced-json",
    ),
    # InternLM/InternLM chat_format.md: InternLM2's plugin call after a sentence
    pytest.param(
        'Sure, I will search for the weather of Shanghai.<|action_start|><|plugin|>\n'
        '{"name": "get_current_weather", "parameters": {"location": "Shanghai"}}<|action_end|><|im_end|>',
        [("get_current_weather", {"location": "Shanghai"})],
        id="internlm2-plugin-call",
    ),
    # Kimi-VL-Thinking: its ◁think▷ block, then the step
    pytest.param(
        '◁think▷The user wants the weather.◁/think▷Thought: I need the weather.\nAction: get_weather\n'
        'Action Input: {"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
        id="kimi-vl-think-then-react",
    ),
    # Granite 3.2 (ollama/ollama#8955 shape): the step after "Here is my response:"
    pytest.param(
        "Here is my thought process:\n\nI need the weather first.\n\nHere is my response:\n\n"
        'Thought: look it up\nAction: get_weather\nAction Input: {"city": "Paris"}',
        [("get_weather", {"city": "Paris"})],
        id="granite32-thought-process-then-react",
    ),
    # a reasoning block that itself says "Final Answer" before a visible action (QwQ-32B)
    pytest.param(
        '<think>Final Answer: nope</think>\nThought: need search\nAction: search\nAction Input: {"q": "x"}',
        [("search", {"q": "x"})],
        id="qwq-final-answer-inside-think",
    ),
]


@pytest.mark.parametrize(("text", "actions"), ACTIONS)
def test_real_replies_that_call_a_tool(text, actions):
    turn = parse_everywhere(text)
    assert [(a.name, a.input) for a in turn.actions] == actions
    assert turn.final_answer is None and turn.problem is None


MULTI = [
    # Qwen2.5 parallel calls written one after the other
    pytest.param(
        'Thought: I need both cities.\nAction: get_weather\nAction Input: {"city": "Paris"}\n'
        'Action: get_weather\nAction Input: {"city": "Rome"}',
        [("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Rome"})],
        id="qwen-parallel-calls",
    ),
    # two JSON blobs in one fence after "Action:" (GPT-4o-mini with the Dify JSON format)
    pytest.param(
        'Thought: both\nAction:\n```json\n{"action": "a", "action_input": {"x": 1}}\n'
        '{"action": "b", "action_input": {"x": 2}}\n```',
        [("a", {"x": 1}), ("b", {"x": 2})],
        id="two-blobs-in-one-fence",
    ),
]


@pytest.mark.parametrize(("text", "actions"), MULTI)
def test_real_replies_with_several_calls(text, actions):
    assert [(a.name, a.input) for a in parse_everywhere(text, multi=True).actions] == actions
    assert [(a.name, a.input) for a in parse_everywhere(text).actions] == actions[:1]


# ---- replies that answer -------------------------------------------------------------------------

ANSWERS = [
    # DeepSeek-R1 served without its opening <think> (open-webui/open-webui#9808)
    pytest.param(
        "The user asks for 2+2. Easy.\n</think>\n\nThought: I can answer directly.\nFinal Answer: 4",
        "4",
        id="deepseek-r1-missing-open-think",
    ),
    # QwQ-32B: reasoning block, then only the answer
    pytest.param(
        "<think>\nOkay, so the capital of France... it's Paris.\n</think>\n\nFinal Answer: The capital of France is Paris.",
        "The capital of France is Paris.",
        id="qwq-think-then-final-answer",
    ),
    # Llama 2 / Mistral: the end-of-sequence token after the answer
    pytest.param(
        "Thought: I now know the final answer\nFinal Answer: Paris is the capital of France.</s>",
        "Paris is the capital of France.",
        id="llama2-eos-after-answer",
    ),
    # deepseek-ai/DeepSeek-R1#557 (R1 on Alibaba Cloud): the full-width end token after the answer
    pytest.param(
        "Thought: done\nFinal Answer: 北京今天晴。<｜end▁of▁sentence｜>",
        "北京今天晴。",
        id="deepseekr1-557-full-width-eos-after-answer",
    ),
    # a plain chat reply with </s> at the end (Mistral 7B Instruct)
    pytest.param("Hello! How can I help you today?</s>", "Hello! How can I help you today?", id="prose-eos"),
    # HTML strikethrough inside an answer is not an end token
    pytest.param(
        "Final Answer: The price is <s>$20</s> $15 now.",
        "The price is <s>$20</s> $15 now.",
        id="html-strikethrough-kept",
    ),
    # run-llama/llama_index#20088: "Action:" inside the answer text
    pytest.param(
        "Thought: I know this.\nFinal Answer: The word 'Action:' has 7 characters.",
        "The word 'Action:' has 7 characters.",
        id="llamaindex20088-action-word-in-answer",
    ),
    pytest.param(
        "The word 'Action:' has 7 characters.", "The word 'Action:' has 7 characters.", id="action-word-in-prose"
    ),
    # an answer with a line that starts like a label
    pytest.param(
        "Thought: done\nFinal Answer: Next steps:\nAction: restart the router.\nThen check the lights.",
        "Next steps:\nAction: restart the router.\nThen check the lights.",
        id="answer-line-starting-with-action",
    ),
    # run-llama/llama_index#14736 (GPT-3.5): the whole reply in a fence
    pytest.param(
        "```\nThought: I now know the final answer\nFinal Answer: 42\n```", "42", id="llamaindex14736-answer-in-fence"
    ),
    pytest.param(
        "```\nThought: x\nFinal Answer: Use:\n```python\nprint(1)\n```\n```",
        "Use:\n```python\nprint(1)\n```",
        id="answer-with-code-block-in-fence",
    ),
    pytest.param("```text\nThought: x\nFinal Answer: 42\n```\n", "42", id="answer-in-text-fence"),
    # an answer that is itself a fenced block (not a wrapped reply): kept whole
    pytest.param(
        'Thought: done\nFinal Answer: ```json\n{"result": 1}\n```',
        '```json\n{"result": 1}\n```',
        id="answer-is-fenced-json",
    ),
    pytest.param("Final Answer: Run:\n```\nls\n```", "Run:\n```\nls\n```", id="answer-ends-with-code-block"),
    # langgenius/dify#9032 (Llama 3.1 405B): a markdown table as the "Final Answer" action's input
    pytest.param(
        'Thought: I can answer.\nAction:\n```json\n{\n  "action": "Final Answer",\n'
        '  "action_input": "| City | Temp |\\n|---|---|\\n| Paris | 20 |"\n}\n```',
        "| City | Temp |\n|---|---|\n| Paris | 20 |",
        id="dify9032-final-answer-action-table",
    ),
    # langgenius/dify-official-plugins#2291: a code block inside the "Final Answer" JSON
    pytest.param(
        'Action:\n```json\n{"action": "Final Answer", "action_input": "Use:\\n```python\\nprint(1)\\n```\\nDone"}\n```',
        "Use:\n```python\nprint(1)\n```\nDone",
        id="dop2291-code-block-in-final-json",
    ),
    # the same with raw newlines in the JSON string (Llama 3.1 405B, Qwen2.5-72B)
    pytest.param(
        'Action:\n```json\n{\n  "action": "Final Answer",\n  "action_input": "Use:\n```python\nprint(1)\n```\nDone"\n}\n```',
        "Use:\n```python\nprint(1)\n```\nDone",
        id="dop2291-code-block-raw-newlines",
    ),
    # Qwen in Chinese: "Final Answer：" after a full stop inside the thought line
    pytest.param("Thought: 我现在知道答案了。Final Answer：北京", "北京", id="qwen-inline-final-answer"),
    # the answer on the following lines, as a markdown list (GPT-4o)
    pytest.param(
        "Thought: done\nFinal Answer:\n\n1. **Step one**\n2. Step two",
        "1. **Step one**\n2. Step two",
        id="answer-on-next-lines",
    ),
    # Qwen2 chat template leaking into the content
    pytest.param("<|im_start|>assistant\nThought: hi\nFinal Answer: hello<|im_end|>", "hello", id="qwen-im-start"),
    # a Chinese reply with no labels at all (Qwen, GLM)
    pytest.param("你好！有什么可以帮你的吗？", "你好！有什么可以帮你的吗？", id="chinese-prose"),
    # "Final Answer" as a heading without a colon (GPT-4o, DeepSeek-V3)
    pytest.param(
        "Thought: I know this.\n\n### Final Answer\nParis is the capital.",
        "Paris is the capital.",
        id="heading-final-answer-without-colon",
    ),
    pytest.param(
        "Thought: I know this.\n\n**Final Answer**\nParis is the capital.",
        "Paris is the capital.",
        id="bold-final-answer-without-colon",
    ),
    # ollama/ollama#8955 (granite-3.2 8b thinking preview), verbatim
    pytest.param(
        "Here is my thought process:\n\nThe task is straightforward - I need to count the number of letter 'r' in "
        "the word 'strawberry'. This involves simple string analysis and character counting.\n\nHere is my response:"
        "\n\nThere are **2** 'r's in the word 'strawberry'.",
        "There are **2** 'r's in the word 'strawberry'.",
        id="ollama8955-granite32-thought-process",
    ),
    # Granite 3.3: "<think></think>" then "<response></response>" (its chat template)
    pytest.param(
        "<think>The user greets me.</think><response>Hello! How can I help you today?</response>",
        "Hello! How can I help you today?",
        id="granite33-response-frame",
    ),
    # ERNIE-X1 (FastDeploy's ernie_x1 reasoning parser): a bare </think>, then the frame
    pytest.param(
        "The user greets me.\n</think>\n\n<response>\nHello! How can I help?\n</response>\n",
        "Hello! How can I help?",
        id="ernie-x1-response-frame",
    ),
    # the DeepSeek-R1-Zero template (arXiv:2501.12948), kept by RL-tuned models
    pytest.param("<think>2 + 2 = 4</think> <answer>Final Answer: 4</answer>", "4", id="r1-zero-answer-frame"),
    # Kimi-VL-Thinking
    pytest.param("◁think▷Simple greeting.◁/think▷Hello there!", "Hello there!", id="kimi-vl-think"),
    # llama.cpp's functionary v3.2 tests: text after the "all" recipient
    pytest.param(">>>all\nHello, world!\nWhat's up?", "Hello, world!\nWhat's up?", id="functionary-v32-all"),
    # a reply asked to wrap its answer in tags keeps them (no reasoning block before them)
    pytest.param("<answer>4</answer>", "<answer>4</answer>", id="answer-tags-without-reasoning-kept"),
    # the same heading closing a worked solution with no label before it (DeepSeek-R1, QwQ): a
    # heading of the prose, which is the answer whole
    pytest.param(
        "2 + 2: add the units.\n\n**Final Answer**\n\\boxed{4}",
        "2 + 2: add the units.\n\n**Final Answer**\n\\boxed{4}",
        id="prose-ending-in-final-answer-heading",
    ),
]


@pytest.mark.parametrize(("text", "answer"), ANSWERS)
def test_real_replies_that_answer(text, answer):
    turn = parse_everywhere(text)
    assert turn.actions == () and turn.problem is None
    assert turn.final_answer == answer


# ---- replies that cannot be used -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        # run-llama/llama_index#12460 (Mistral 7B): cut off after the thought
        pytest.param(
            "Thought: The current language of the user is: en. I need", PROBLEM_THOUGHT_ONLY, id="llamaindex12460"
        ),
    ],
)
def test_real_replies_that_are_problems(text, problem):
    turn = parse_everywhere(text)
    assert turn.actions == () and turn.final_answer is None
    assert turn.problem == problem


def test_mistral_tool_calls_token():
    """Mistral's ``[TOOL_CALLS]`` token is dropped like ``<|python_tag|>``: both strategies read
    what follows (tests/unit/test_one_reader.py)."""
    turn = parse_everywhere('[TOOL_CALLS] [{"name": "search", "arguments": {"query": "x"}}]')
    assert [(a.name, a.input) for a in turn.actions] == [("search", {"query": "x"})]


# ---- streaming details ---------------------------------------------------------------------------


def test_end_token_is_held_back_until_the_reply_ends():
    parser = ReactStreamParser()
    assert parser.feed("Final Answer: Paris</s>") == [AnswerDelta("Paris")]
    assert parser.feed("  \n") == []
    assert parser.finish() == []
    assert parser.result().final_answer == "Paris"


def test_strikethrough_close_is_released_when_text_follows():
    parser = ReactStreamParser()
    assert parser.feed("Final Answer: <s>old</s>") == [AnswerDelta("<s>old")]
    assert parser.feed(" new") == [AnswerDelta("</s> new")]


def test_wrapper_fence_never_streams_as_answer():
    chunks = ["```\nThought: ok\nFinal Answer: 4", "2\n", "``", "`\n"]
    parser = ReactStreamParser()
    streamed = [e.text for chunk in chunks for e in parser.feed(chunk) if isinstance(e, AnswerDelta)]
    streamed += [e.text for e in parser.finish() if isinstance(e, AnswerDelta)]
    assert "".join(streamed) == "42"


def test_python_tag_call_is_emitted_when_its_json_closes():
    parser = ReactStreamParser()
    events = parser.feed('<|python_tag|>{"name": "search", "parameters": {"query": "x"}}')
    assert [e.name for e in events if isinstance(e, ActionFound)] == ["search"]


def test_bare_json_call_waits_for_the_turn_to_show_it_was_the_action():
    """dify-official-plugins#3861: JSON in a thought is not the action when a labelled action follows."""
    parser = ReactStreamParser(allow_multiple_actions=True)
    events = parser.feed('Thought: the format is\n{"action": "search", "action_input": {"q": 1}}\n')
    assert not [e for e in events if isinstance(e, ActionFound)]
    events = parser.feed('Action: lookup\nAction Input: {"q": 2}') + parser.finish()
    assert [(e.name, e.input) for e in events if isinstance(e, ActionFound)] == [("lookup", {"q": 2})]
    assert '{"action": "search"' in parser.result().thought

    parser = ReactStreamParser(allow_multiple_actions=True)
    parser.feed('Thought: t\n{"action": "search", "action_input": {"q": 1}}\nmore thought')
    assert [e.name for e in parser.finish() if isinstance(e, ActionFound)] == ["search"]


def test_bare_json_before_any_thought_is_an_action_even_with_a_labelled_one_after_it():
    """Outside a thought, JSON is no example: a reply may hold a JSON call and an Action: call."""
    text = '```json\n{"action": "a", "action_input": {}}\n```\nAction: b\nAction Input: {}'
    turn = parse_everywhere(text, multi=True)
    assert [a.name for a in turn.actions] == ["a", "b"]


def test_code_block_in_final_json_is_not_cut_at_its_fence():
    parser = ReactStreamParser()
    text = 'Action:\n```json\n{"action": "Final Answer", "action_input": "Use:\n```python\nprint(1)\n```\n'
    assert not [e for e in parser.feed(text) if isinstance(e, AnswerDelta)]
    assert parser.feed('Done"}\n```') == [AnswerDelta("Use:\n```python\nprint(1)\n```\nDone")]


# ---- through read_react_turn ---------------------------------------------------------------------


def _turn(text, size=4):
    chunks = iter(ModelChunk(text=text[i : i + size]) for i in range(0, len(text), size))
    reader = read_react_turn(chunks, ToolRegistry(None), 1)
    return drain(reader)


def test_reader_turns_title_case_envelope_into_a_tool_call():
    streamed, turn = _turn('Thought: t\nAction: {"Action": "search", "Action Input": {"query": "x"}}')
    assert streamed == ""
    assert isinstance(turn.decision, ToolCalls)
    assert [(c.id, c.name, c.arguments) for c in turn.decision.calls] == [("react-1-1", "search", {"query": "x"})]


def test_reader_streams_an_answer_without_end_token_or_wrapper_fence():
    streamed, turn = _turn("```\nThought: ok\nFinal Answer: 北京今天晴。<｜end▁of▁sentence｜>\n```")
    assert streamed == "北京今天晴。"
    assert turn.decision == FinalAnswer("北京今天晴。")


def test_reader_reports_a_thought_only_reply():
    streamed, turn = _turn("Thought: The current language of the user is: en. I need")
    assert streamed == ""
    assert turn.decision == ParseFailure(PROBLEM_THOUGHT_ONLY)


@pytest.mark.parametrize(
    "text",
    [
        '```tool_code\nprint(default_api.web_search(query="dify", limit=3))\n```',
        'Thought: look it up\n```tool_code\nweb_search(query="dify", limit=3)\n```',
        'Action:\n```python\nprint(default_api.web_search(query="dify", limit=3))\n```',
    ],
)
def test_gemini_tool_code_block_is_a_call(text):
    """Gemini models write calls as ```tool_code blocks, often as print(default_api.<tool>(...))."""
    turn = parse_everywhere(text)
    assert [(a.name, a.input) for a in turn.actions] == [("web_search", {"query": "dify", "limit": 3})]
    assert turn.final_answer is None


def test_a_tool_code_block_without_a_call_is_text():
    turn = parse_everywhere("```tool_code\njust some words\n```\nok")
    assert turn.actions == () and "just some words" in turn.final_answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("思考: 答えが分かりました。\n最終回答: 東京は晴れです。", "東京は晴れです。"),  # Japanese
        ("思考：我知道了。\n最終答案：台北晴天。", "台北晴天。"),  # Traditional Chinese
        ("생각: 답을 알았습니다.\n최종 답변: 서울은 맑습니다.", "서울은 맑습니다."),  # Korean
    ],
)
def test_labels_written_in_japanese_korean_or_traditional_chinese_are_read(text, answer):
    turn = parse_everywhere(text)
    assert turn.final_answer == answer and turn.actions == ()


def test_korean_action_labels_are_read():
    turn = parse_everywhere('생각: 날씨를 찾아야 합니다.\n행동: web_search\n행동 입력: {"query": "서울 날씨"}')
    assert [(a.name, a.input) for a in turn.actions] == [("web_search", {"query": "서울 날씨"})]


@pytest.mark.parametrize(
    "text",
    [
        'Thought: I know it.\nAction: finish(answer="Paris is the capital.")',  # datawhalechina/hello-agents#170
        "Thought: I know it.\nAction: Finish[Paris is the capital.]",  # the ReAct paper's own action
    ],
)
def test_the_react_papers_finish_action_is_the_final_answer(text):
    turn = parse_everywhere(text)
    assert turn.final_answer == "Paris is the capital." and turn.actions == ()


@pytest.mark.parametrize("tail", ["<end_of_turn>", "<end_of_turn>\n<end_of_turn>", "<eos>"])
def test_gemma_turn_tokens_are_not_part_of_the_answer(tail):
    """google/gemma.cpp#276, jundot/omlx#1087: a server that does not stop on them passes them on."""
    turn = parse_everywhere(f"Thought: greeting\nFinal Answer: Hey! What's up?{tail}")
    assert turn.final_answer == "Hey! What's up?"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        # DeepSeek-V4 / R1 distills served without a reasoning parser: the template opened <think>
        ("1.  The user asks for the product of 17 and 23.\n3.  Provide the answer briefly.</think>391", "391"),
        # ollama/ollama#12736 (qwen3, think=false): the monologue, then the reply
        ('Okay, the user said "hello". Keep it simple.\n</think>\n\nHello! How can I assist you today?', "Hello! How can I assist you today?"),
        # dify#17660: DeepSeek with a single </think>, the reply written twice
        ("你好！很高兴见到你。😊\n</think>\n\n你好！很高兴见到你。😊", "你好！很高兴见到你。😊"),
    ],
)
def test_plain_text_before_a_stray_closing_think_tag_is_reasoning_not_the_answer(text, answer):
    turn = parse_everywhere(text)
    assert turn.final_answer == answer


def test_answer_lines_in_a_plain_reply_are_part_of_it():
    """A quiz or an FAQ: several "Answer:" lines after plain text are the text, not a label."""
    text = "Here are two quiz questions:\n\n1. What is 2 + 2?\nAnswer: 4\n\n2. What is the capital of France?\nAnswer: Paris"
    assert parse_everywhere(text).final_answer == text


def test_one_answer_line_after_plain_text_is_the_answer():
    """run-llama/llama_index#22563: a model told to write Thought / Answer drops the Thought label."""
    assert parse_everywhere("I worked it out.\nAnswer: The sum is 8").final_answer == "The sum is 8"
    assert parse_everywhere("I worked it out.\n**Answer:** The sum is 8").final_answer == "The sum is 8"


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Canberra<|eot_id|>\n\n---\n\nQuestion: What is 2 + 2?\nAnswer: 4", "Canberra"),  # stanfordnlp/dspy#931
        ("Thought: done\nFinal Answer: Sleep matters.<|endoftext|>Human: I've been under pressure.", "Sleep matters."),
    ],
)
def test_a_turn_the_model_invents_after_its_end_token_is_dropped(text, answer):
    assert parse_everywhere(text).final_answer == answer


def test_labels_inside_a_code_block_of_a_text_input_are_its_text_never_calls():
    """eosphoros-ai/DB-GPT#3074: an example action inside the fenced body of a text Action Input
    was run as a real call."""
    text = (
        "Thought: save it\nAction: write_file\nAction Input: Here is the guide:\n```markdown\n"
        'Thought: I need to search.\nAction: delete_records\nAction Input: {"table": "users"}\n```'
    )
    turn = parse_everywhere(text, multi=True)
    assert [a.name for a in turn.actions] == ["write_file"]
    assert "delete_records" in turn.actions[0].input


@pytest.mark.parametrize(
    "chunks",
    [
        # vllm-project/vllm#48748: DeepSeek V4 answered without thinking; the server's reasoning
        # parser took the whole reply, the end-of-sentence token inside, for reasoning
        [ModelChunk(text="<think>\nGood morning! How can I help?<｜end▁of▁sentence｜>\n</think>")],
        [ModelChunk(reasoning="Good morning! "), ModelChunk(reasoning="How can I help?<｜end▁of▁sentence｜>")],
    ],
)
def test_a_reply_that_never_left_its_reasoning_is_the_answer(chunks):
    reader = read_react_turn(iter([*chunks, ModelChunk(finish_reason="stop")]), ToolRegistry([]), 1)
    streamed, turn = drain(reader)
    assert streamed == "Good morning! How can I help?" and turn.decision == FinalAnswer("Good morning! How can I help?")
    unfinished = read_react_turn(iter([ModelChunk(text="<think>I should look it up")]), ToolRegistry([]), 1)
    assert isinstance(drain(unfinished)[1].decision, ParseFailure)
