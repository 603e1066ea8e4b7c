"""A fourth set of real-world model outputs and stream shapes, quoted from public bug reports and
pull requests, through both strategies' turn readers (``test_real_world_2026`` drives them: the
text whole and in pieces of 1 and 7 characters, the reasoning sent first as ``reasoning_content``).
Sources the first three passes did not use: gpt-oss behind Rapid-MLX, TensorRT-LLM and Workers AI;
MiniMax-M2.5 through an Anthropic-style API; DeepSeek V3.1 and V3.2 on SGLang; GLM-4.7 / GLM-5.2 /
GLM-4-0414 forms from vLLM, Fireworks, vmlx-swift and mlx-swift-lm; Gemma 3n and Gemma 4 through
Ollama, oMLX and Unsloth Studio; Kimi K2.5 through OpenClaw and typeclaw; Qwen2.5-Coder and
Qwen3-Coder on vLLM and GPUStack; CrewAI; and streams from Gemini's OpenAI-compatible endpoint,
gateways (gcli2api, new-api, envoy ai-gateway, cc-switch, CLIProxyAPI), a GLM-5.3 server and
pi-provider-qoder.

Each case names its source beside it; docs/real-world-cases.md lists them by id. Outputs are
quoted as the source shows them; where a case is shortened, completed or rebuilt from a format
the source documents, its comment says so.
"""

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import normalize_chunk
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer, ParseFailure
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import (
    Case,
    check_tool_call_stream,
    chunks_of,
    delta,
    reply_test,
    tool,
)


def read(strategy: str, case: Case, size: int | None):
    """``test_real_world_2026.read`` with Function Calling given the tools' declarations, as the
    strategy gives them (``ToolRegistry.prompt_tools``): some forms are told apart by a tool's
    parameters (a flat call object, GLM's name glued to its first key)."""
    chunks = iter(chunks_of(case, size))
    registry = ToolRegistry(list(case.tools))
    if strategy == "react":
        return drain(read_react_turn(chunks, registry, 1))
    return drain(read_function_calling_turn(chunks, registry.prompt_tools()))

CASES = {
    # ---- gpt-oss: Harmony with its tokens dropped or its recipient lost ---------------------------
    # raullenchai/Rapid-MLX#480: gpt-oss-20b streaming through a server with no Harmony parser; the
    # content deltas hold the channel line with its special tokens skipped, verbatim
    "rapidmlx480-gptoss-commentary-without-tokens": Case(
        (tool("get_weather", "city"),),
        'commentary to=functions.get_weather json{"city":"Paris"}',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("to=functions",),
    ),
    # NousResearch/hermes-agent#84158 / PR #84231: gpt-oss:120b via Ollama leaks its Harmony call as
    # "to=functions.<tool> {...}" in the content (the PR's shape, filled with a tool and arguments)
    "hermes84158-gptoss-to-functions-leak": Case(
        (tool("terminal", "command"),),
        'to=functions.terminal {"command": "ls -la"}',
        calls=[("terminal", {"command": "ls -la"})],
        hidden=("to=functions",),
    ),
    # cloudflare/ai#574: Workers AI's gpt-oss writes a forced call as one flat JSON object, the tool's
    # name beside its arguments, with finish_reason "stop" (the report's placeholders filled in)
    "cloudflare574-gptoss-flat-name-beside-arguments": Case(
        (tool("read_file", "path"),),
        '{"name":"read_file","path":"src/index.ts"}',
        calls=[("read_file", {"path": "src/index.ts"})],
    ),
    # NVIDIA/TensorRT-LLM#9256: gpt-oss-120B under trtllm-serve ends a run of grep calls with a
    # commentary message that has no recipient, verbatim. Harmony makes such a message text for the
    # user (a preamble), and no tool is named, so nothing runs: the message is shown without its
    # tokens (the report asked for the tokens to go; which call the model meant cannot be told)
    "tensorrt9256-gptoss-commentary-without-recipient": Case(
        (tool("grep", "pattern", "path"), tool("find", "path", "name_pattern", "type_filter")),
        '<|channel|>commentary<|message|>{\n  "path": "/",\n  "name_pattern": "*Chen*",\n  "type_filter": "file"\n}<|end|>',
        answer='{\n  "path": "/",\n  "name_pattern": "*Chen*",\n  "type_filter": "file"\n}',
        hidden=("<|channel|>", "<|end|>"),
    ),
    # ---- MiniMax ------------------------------------------------------------------------------------
    # MiniMax-AI/MiniMax-M2#14: MiniMax-M2 under the M1 chat template writes M1's <tool_calls> with one
    # JSON call a line instead of <minimax:tool_call> (rebuilt from the report's horoscope request
    # and the M1 format vLLM's minimax parser reads)
    "minimaxm2-14-m1-tool-calls-json-lines": Case(
        (tool("get_horoscope", "sign"),),
        '<tool_calls>\n{"name": "get_horoscope", "arguments": {"sign": "Leo"}}\n</tool_calls>',
        calls=[("get_horoscope", {"sign": "Leo"})],
        hidden=("<tool_calls>",),
    ),
    # waybarrios/vllm-mlx PR #98: MiniMax-M2 wraps its call inside its <think> block (rebuilt from
    # the PR's description with the documented invoke form)
    "vllmmlx98-minimax-call-inside-think": Case(
        (tool("get_weather", "city"),),
        "<think>The user asks about Paris; I will look it up.\n<minimax:tool_call>\n<invoke name=\"get_weather\">\n"
        "<parameter name=\"city\">Paris</parameter>\n</invoke>\n</minimax:tool_call></think>",
        calls=[("get_weather", {"city": "Paris"})],
    ),
    # MiniMax-AI/MiniMax-M2.5#10: MiniMax-M2.5 through an Anthropic-style API returns its call as a
    # text block, indented, verbatim
    "minimaxm25-10-indented-invoke-in-text-block": Case(
        (tool("exec", "command"),),
        '<minimax:tool_call>\n  <invoke name="exec">\n    <parameter name="command">ls</parameter>\n  </invoke>\n'
        "</minimax:tool_call>",
        calls=[("exec", {"command": "ls"})],
        hidden=("<invoke",),
    ),
    # ---- DeepSeek -----------------------------------------------------------------------------------
    # sgl-project/sglang PR #9446 (comment): DeepSeek-V3.1 with thinking on puts its V3.1 call at the
    # end of reasoning_content (verbatim up to the call; its closing tokens completed)
    "sglang9446-deepseek-v31-call-in-reasoning": Case(
        (tool("get_current_weather", "location"),),
        reasoning="Hmm, the user is asking about the weather in Shanghai. This is a straightforward request that I can "
        "handle with the weather tool. \n\nI need to call the get_current_weather function with Shanghai as the "
        "location parameter. The function should return the current weather information for Shanghai.\n\nThe response "
        "should be simple and direct - just provide the weather data without unnecessary commentary since the user "
        "didn't ask for anything beyond the basic weather information.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>"
        'get_current_weather<｜tool▁sep｜>{"location": "Shanghai"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
        calls=[("get_current_weather", {"location": "Shanghai"})],
    ),
    # sgl-project/sglang PR #17320: DeepSeek-V3.2 under a template that makes it write the V3.1
    # tokens; they stay in the content with finish_reason "stop" (rebuilt from the PR's description
    # and its Beijing weather request)
    "sglang17320-deepseek-v32-writes-v31-tokens": Case(
        (tool("get_weather", "location"),),
        '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"location": "Beijing"}'
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        calls=[("get_weather", {"location": "Beijing"})],
        hidden=("tool▁",),
    ),
    # ---- GLM ----------------------------------------------------------------------------------------
    # osaurus-ai/vmlx-swift PR #228: a GLM-family model calls a tool without parameters by its bare
    # name, verbatim
    "vmlxswift228-glm-zero-argument-call": Case(
        (tool("list_mailboxes", "folder"),),
        "<tool_call>list_mailboxes</tool_call>",
        calls=[("list_mailboxes", {})],
    ),
    # the same PR's table: the reasoning closed, then a call with one argument (the cut row completed)
    "vmlxswift228-glm-call-after-think-close": Case(
        (tool("list_mailboxes", "folder"),),
        "The user wants the unread count, so I list the inbox.</think><tool_call>list_mailboxes<arg_key>folder</arg_key>"
        "<arg_value>INBOX</arg_value></tool_call>",
        calls=[("list_mailboxes", {"folder": "INBOX"})],
        hidden=("The user wants", "arg_key"),
    ),
    # vllm-project/vllm PR #47190: GLM-4.7 leaves out the opening <arg_key>, gluing the first key to
    # the name, verbatim
    "vllm47190-glm47-missing-arg-key-open": Case(
        (tool("send_command_to_shell", "command"),),
        "<tool_call>send_command_to_shellcommand</arg_key><arg_value>echo test</arg_value></tool_call>",
        calls=[("send_command_to_shell", {"command": "echo test"})],
        hidden=("arg_key",),
    ),
    # the same PR: a space between the name and the first key (the value filled in)
    "vllm47190-glm47-missing-arg-key-open-spaced": Case(
        (tool("browser_action", "task"),),
        "<tool_call>browser_action task</arg_key><arg_value>open the settings page</arg_value></tool_call>",
        calls=[("browser_action", {"task": "open the settings page"})],
        hidden=("arg_key",),
    ),
    # fw-ai-external/python-sdk#119: GLM 5.2 on Fireworks writes a stray </arg_value> after the name of
    # a call without arguments ("<tool_call>tool_12</arg_value>", closed here)
    "fireworks119-glm52-stray-arg-value-close": Case(
        (tool("tool_12"),),
        "<tool_call>tool_12</arg_value></tool_call>",
        calls=[("tool_12", {})],
        hidden=("arg_value",),
    ),
    # ml-explore/mlx-swift-lm PR #623: GLM-4-9B-0414 writes the tool's name on a line and the JSON
    # arguments on the next, no markup, verbatim
    "mlxswiftlm623-glm4-0414-name-line-then-json": Case(
        (tool("get_weather", "location", "unit"),),
        'get_weather\n{"location": "Paris", "unit": "celsius"}',
        calls=[("get_weather", {"location": "Paris", "unit": "celsius"})],
    ),
    # ---- Gemma --------------------------------------------------------------------------------------
    # jundot/omlx#581: every Gemma 4 model's call shown to the user through oMLX, verbatim
    "omlx581-gemma4-call-plain-quotes": Case(
        (tool("bash", "command"),),
        '<|tool_call>call:bash{command:"ls"}<tool_call|>',
        calls=[("bash", {"command": "ls"})],
        hidden=("call:",),
    ),
    # jundot/omlx#593: the same with Gemma 4's <|"|> string tokens, verbatim
    "omlx593-gemma4-call-quote-tokens": Case(
        (tool("bash", "command"),),
        '<|tool_call>call:bash{command:<|"|>ls -la<|"|>}<tool_call|>',
        calls=[("bash", {"command": "ls -la"})],
        hidden=("call:",),
    ),
    # unslothai/unsloth PR #5624: with special tokens skipped a Gemma 4 call arrives as a bare
    # call:NAME{k:v} with an unquoted value holding a comma and colons (the review's example): the
    # value is one argument, not split at "11:"
    "unsloth5624-gemma4-bare-call-unquoted-value": Case(
        (tool("web_search", "query"),),
        "call:web_search{query:meet at 10:00, 11:00 tomorrow}",
        calls=[("web_search", {"query": "meet at 10:00, 11:00 tomorrow"})],
    ),
    # ollama/ollama#18357: a Gemma 3n tools model answers with a Hermes call whose arguments key is
    # "args", verbatim
    "ollama18357-gemma3n-tool-call-args-key": Case(
        (tool("ha_call_service", "action", "device_id"),),
        '<tool_call>\n{"name": "ha_call_service", "args": {"action": "turn_off", "device_id": "light.salon"}}\n</tool_call>',
        calls=[("ha_call_service", {"action": "turn_off", "device_id": "light.salon"})],
    ),
    # jundot/omlx#593: Gemma 4's thought channel shown as text, "<|channel>thought ... <channel|>", then
    # the answer (the thinking and the answer filled in)
    "omlx593-gemma4-thought-channel-then-answer": Case(
        (tool("bash", "command"),),
        "<|channel>thought\nThe user only greets me; no tool is needed.<channel|>Hello! How can I help?",
        answer="Hello! How can I help?",
        hidden=("thought", "channel"),
    ),
    # ollama/ollama#9680: a community Gemma 3 template teaches "<tool>\n{"name": ..., "parameters":
    # {...}}\n</tool>"; a reply in that form (rebuilt from the template's instruction)
    "ollama9680-gemma3-tool-tag-parameters": Case(
        (tool("get_weather", "city"),),
        '<tool>\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n</tool>',
        calls=[("get_weather", {"city": "Paris"})],
        hidden=("<tool>",),
    ),
    # ---- Kimi ---------------------------------------------------------------------------------------
    # typeclaw/typeclaw PR #344: Kimi K2 leaks a call with no section or call-begin token, only its
    # id, the argument token and the section end (the arguments filled in)
    "typeclaw344-kimi-call-without-begin-tokens": Case(
        (tool("channel_reply", "text"),),
        'channel_reply:0<|tool_call_argument_begin|>{"text": "On it."}<|tool_calls_section_end|>',
        calls=[("channel_reply", {"text": "On it."})],
        hidden=("<|tool_call",),
    ),
    # openclaw/openclaw#41297: kimi-coding/k2p5 writes its call as code with a JSON object, verbatim
    "openclaw41297-kimi-k25-code-call-with-object": Case(
        (tool("exec", "command", "description"),),
        'exec({"command": "pwd", "description": "Print working directory"})',
        calls=[("exec", {"command": "pwd", "description": "Print working directory"})],
    ),
    # ---- Qwen coder models --------------------------------------------------------------------------
    # vllm-project/vllm#10952: Qwen2.5-Coder-32B under the hermes parser writes two calls in <tools>
    # after sentences (verbatim; the second call's cut arguments completed)
    "vllm10952-qwen25-coder-tools-wrapper-after-text": Case(
        (tool("get_current_temperature", "location", "unit"), tool("get_temperature_date", "location", "date", "unit")),
        "Sure, I'll get the current temperature in San Francisco and also the temperature for tomorrow.\n\nFirst, let's "
        "get the current temperature:\n\n<tools>\n{\"name\": \"get_current_temperature\", \"arguments\": {\"location\": "
        "\"San Francisco, California, USA\", \"unit\": \"fahrenheit\"}}\n</tools>\n\nNext, to get the temperature for "
        "tomorrow, I'll need to know the date. Since today is 2024-09-30, tomorrow will be 2024-10-01. Let's get the "
        "temperature for that date:\n\n<tools>\n{\"name\": \"get_temperature_date\", \"arguments\": {\"location\": "
        "\"San Francisco, California, USA\", \"date\": \"2024-10-01\", \"unit\": \"fahrenheit\"}}\n</tools>",
        calls=[
            ("get_current_temperature", {"location": "San Francisco, California, USA", "unit": "fahrenheit"}),
            ("get_temperature_date", {"location": "San Francisco, California, USA", "date": "2024-10-01",
                                      "unit": "fahrenheit"}),
        ],
        hidden=("<tools>",),
    ),
    # gpustack/gpustack#2660: Qwen3-Coder-30B-A3B on vLLM answers with a Hermes call left in the content,
    # verbatim
    "gpustack2660-qwen3-coder-hermes-call-in-content": Case(
        (tool("square_the_number", "input_num"),),
        '<tool_call>\n{"name": "square_the_number", "arguments": {"input_num": 1024}}\n</tool_call>',
        calls=[("square_the_number", {"input_num": 1024})],
    ),
    # ---- ReAct text ---------------------------------------------------------------------------------
    # crewAIInc/crewAI#112: the model names the action and stops before "Action Input:" (the line
    # "Invalid Format: Missing 'Action Input:' after 'Action:'" answered it): the tool runs without
    # arguments, as an `Action:` with no input does here
    "crewai112-action-without-input": Case(
        (tool("duckduckgo_search", "query"),),
        "Thought: Do I need to use a tool? Yes\nAction: duckduckgo_search",
        calls=[("duckduckgo_search", {})],
        only=("react",),
    ),
}


# The same forms completed beyond their sources' one example (not quoted from a report).
CASES.update({
    "flat-call-two-parameters": Case(
        (tool("read_file", "path", "encoding"),),
        '{"name": "read_file", "path": "a.py", "encoding": "utf-8"}',
        calls=[("read_file", {"path": "a.py", "encoding": "utf-8"})],
    ),
    "glm47-glued-longest-tool-name": Case(
        (tool("run", "command", "shell_command"), tool("run_shell", "command")),
        "<tool_call>run_shellcommand</arg_key><arg_value>ls</arg_value></tool_call>",
        calls=[("run_shell", {"command": "ls"})],
        hidden=("arg_key",),
    ),
    "glm47-glued-then-more-pairs": Case(
        (tool("send_command_to_shell", "command", "cwd"),),
        "<tool_call>send_command_to_shellcommand</arg_key><arg_value>ls</arg_value><arg_key>cwd</arg_key>"
        "<arg_value>/tmp</arg_value></tool_call>",
        calls=[("send_command_to_shell", {"command": "ls", "cwd": "/tmp"})],
        hidden=("arg_key",),
    ),
    "gemma4-bare-call-after-sentence": Case(
        (tool("web_search", "query"),),
        "Let me look that up.\ncall:web_search{query:cats}",
        calls=[("web_search", {"query": "cats"})],
        hidden=("call:",),
    ),
    "gemma4-bare-call-two-unquoted-keys": Case(
        (tool("get_weather", "city", "days"),),
        "call:get_weather{city:Paris, France,days:3}",
        calls=[("get_weather", {"city": "Paris, France", "days": 3})],
    ),
    "gemma4-bare-call-quote-tokens": Case(
        (tool("web_search", "query"),),
        'call:web_search{query:<|"|>cats, dogs<|"|>}',
        calls=[("web_search", {"query": "cats, dogs"})],
    ),
})


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
}


test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- the same shapes as an answer's text: no call runs ------------------------------------------

READ_FILE = tool("read_file", "path", "encoding")
SHELL = tool("send_command_to_shell", "command")
SEARCH = tool("web_search", "query")
NOT_CALLS = {
    # a flat object: a record that has a name, or one with a key the tool does not take
    "flat-name-of-no-node-tool": (READ_FILE, '{"name": "Alice", "path": "a.py"}'),
    "flat-unknown-key": (READ_FILE, '{"name": "read_file", "path": "a.py", "owner": "me"}'),
    "flat-name-alone": (READ_FILE, '{"name": "read_file"}'),
    "flat-in-a-sentence": (READ_FILE, 'The record {"name": "read_file", "path": "a.py"} is what it sent.'),
    "flat-after-a-sentence": (READ_FILE, 'Here is the record:\n{"name": "read_file", "path": "a.py"}'),
    "flat-fenced": (READ_FILE, '```json\n{"name": "read_file", "path": "a.py"}\n```'),
    "flat-fenced-then-text": (READ_FILE, 'The record:\n\n```json\n{"name": "read_file", "path": "a.py"}\n```\n\nThat is all.'),
    "flat-then-text": (READ_FILE, '{"name": "read_file", "path": "a.py"}\nThat is the record.'),
    # GLM's glued name and key that no node tool and parameter make up
    "glm-glued-no-node-tool": (SHELL, "<tool_call>send_commandcommand</arg_key><arg_value>ls</arg_value></tool_call>"),
    "glm-glued-unknown-key": (SHELL, "<tool_call>send_command_to_shellcmd</arg_key><arg_value>ls</arg_value></tool_call>"),
    # Gemma's bare call: another name, another key, in a sentence, in code, not the last line
    "gemma-no-node-tool": (SEARCH, "call:web_fetch{url:https://example.com}"),
    "gemma-unknown-key": (SEARCH, "call:web_search{q:cats}"),
    "gemma-in-a-sentence": (SEARCH, "Gemma writes call:web_search{query:cats} when its tokens are skipped."),
    "gemma-in-a-code-span": (SEARCH, "Gemma writes `call:web_search{query:cats}` when its tokens are skipped."),
    "gemma-in-a-fence": (SEARCH, "Gemma writes:\n\n```\ncall:web_search{query:cats}\n```\n\nwhen its tokens are skipped."),
    "gemma-in-an-open-fence": (SEARCH, "Gemma writes:\n\n```\ncall:web_search{query:cats}"),
    "gemma-then-text": (SEARCH, "call:web_search{query:cats}\nis what Gemma writes."),
    "gemma-call-as-a-word": (SEARCH, "call: me maybe"),
    "gemma-prefix-of-a-tool": (SEARCH, "call:web{query:cats}"),
}


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(NOT_CALLS))
def test_the_shape_naming_no_call_runs_nothing(name, strategy, size):
    """No call runs. The text is the answer, except call markup that cannot be read (a
    ``<tool_call>`` block, both strategies) and, in Function Calling, a call envelope's name key
    giving a node tool (``"name": "read_file"``): those are asked again, as before, with nothing
    shown."""
    declared, text = NOT_CALLS[name]
    streamed, turn = read(strategy, Case((declared,), text), size)
    unreadable = "<tool_call>" in text or (strategy == "fc" and '"name": "read_file"' in text)
    if unreadable and not isinstance(turn.decision, FinalAnswer):
        assert isinstance(turn.decision, ParseFailure)
        assert streamed == ""
    else:
        assert turn.decision == FinalAnswer(text)
        assert streamed.strip() == text


# ---- native tool-call streams -------------------------------------------------------------------


def chunk(content: str = "", finish_reason: str | None = None, **extra) -> dict:
    """One chunk dict carrying text, ``extra`` message keys (``reasoning_content``, ``tool_calls``)
    and a ``finish_reason``, as a model plugin passes them on."""
    message = {"role": "assistant", "content": content, **extra}
    return {"model": "m", "delta": {"index": 0, "message": message, "finish_reason": finish_reason}}


STREAMS = {
    # MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#177: the last chunk carries the end of the arguments
    # and finish_reason "stop" (the terminal chunk verbatim; the earlier deltas rebuilt from the
    # report's assembled arguments)
    "miaai177-glm53-last-arguments-with-finish-stop": (
        [
            delta(index=0, id="call_0", type="function", function={"name": "record", "arguments": ""}),
            delta(index=0, function={"arguments": '{"key":"KEY-shorttool","numbers":'}),
            chunk(finish_reason="stop", tool_calls=[{"index": 0, "function": {"arguments": (
                "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, "
                "28, 29, 30, 31, 32]}")}}]),
        ],
        "",
        [("record", {"key": "KEY-shorttool", "numbers": list(range(1, 33))})],
    ),
    # googleapis/python-genai#2868: Gemini's OpenAI-compatible endpoint, streaming, sends the whole
    # call in one chunk and ends with finish_reason "stop" (rebuilt from the report's table)
    "genai2868-gemini-openai-compat-finish-stop": (
        [
            chunk(tool_calls=[{"id": "function-call-1", "type": "function",
                               "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'}}]),
            chunk(finish_reason="stop"),
        ],
        "",
        [("get_weather", {"city": "Paris"})],
    ),
    # envoyproxy/ai-gateway PR #2399: newer Gemini models send the call in one chunk and "STOP" in a
    # trailing chunk with an empty text part (converted to the OpenAI shape the PR describes)
    "envoy2399-gemini35-call-then-empty-stop-chunk": (
        [
            chunk(tool_calls=[{"index": 0, "id": "call_1", "type": "function",
                               "function": {"name": "get_current_weather", "arguments": '{"location":"Boston"}'}}]),
            chunk("", finish_reason="stop"),
        ],
        "",
        [("get_current_weather", {"location": "Boston"})],
    ),
    # su-kaka/gcli2api#403: finish_reason "stop" on every chunk, the reasoning and the call included
    # (the first chunk's shape verbatim; the call rebuilt)
    "gcli403-finish-stop-on-every-chunk": (
        [
            chunk(finish_reason="stop", reasoning_content="17*23 is 391; I should check with the tool."),
            chunk(finish_reason="stop", tool_calls=[{"index": 0, "id": "call_a", "type": "function",
                                                      "function": {"name": "calculator", "arguments": ""}}]),
            chunk(finish_reason="stop", tool_calls=[{"index": 0, "function": {"arguments": '{"expression": "17*23+45"}'}}]),
        ],
        "",
        [("calculator", {"expression": "17*23+45"})],
    ),
    # farion1231/cc-switch PR #5093: a call with a name and arguments but no id, and a stream that
    # ends with no finish_reason ("" here) (rebuilt from the review)
    "ccswitch5093-no-id-empty-finish-reason": (
        [
            delta(index=0, type="function", function={"name": "read_file", "arguments": '{"path": '}),
            delta(index=0, function={"arguments": '"README.md"}'}),
            chunk(finish_reason=""),
        ],
        "",
        [("read_file", {"path": "README.md"})],
    ),
    # simonsmh/pi-provider-qoder PR #15: a call with an id and a name and no arguments at all (a
    # tool without parameters), then the end (rebuilt from the PR's description)
    "qoder15-call-without-arguments": (
        [
            chunk("I have complete reference data. Let me consult the advisor before building."),
            delta(index=0, id="call_adv", type="function", function={"name": "advisor"}),
            chunk(finish_reason="tool_calls"),
        ],
        "I have complete reference data. Let me consult the advisor before building.",
        [("advisor", {})],
    ),
    # router-for-me/CLIProxyAPI#5851: the first call of a reply comes with index 1 (rebuilt with its
    # arguments whole; the report's were cut by the output limit)
    "cliproxy5851-first-call-index-one": (
        [
            delta(index=1, id="write_file_0#a1", type="function", function={"name": "write_file", "arguments": ""}),
            delta(index=1, function={"arguments": '{"path": "a.txt", '}),
            delta(index=1, function={"arguments": '"content": "hi"}'}),
            chunk(finish_reason="tool_calls"),
        ],
        "",
        [("write_file", {"path": "a.txt", "content": "hi"})],
    ),
}


@pytest.mark.parametrize("name", list(STREAMS))
def test_real_world_tool_call_stream(name):
    check_tool_call_stream(*STREAMS[name])


# ---- answer streams: the whole answer, whatever the chunks' finish_reason -------------------------

ANSWER_STREAMS = {
    # QuantumNous/new-api#378: Gemini through new-api puts finish_reason "stop" on every content chunk
    # (the three chunks verbatim): the answer is all three
    "newapi378-gemini-stop-on-every-text-chunk": [
        chunk("你好", finish_reason="stop"),
        chunk("！很高兴认识你。请问有什么关于计算机科学或人工智能方面的问题需要", finish_reason="stop"),
        chunk("我解答吗？我会尽力提供准确、详细和深入的答案。", finish_reason="stop"),
    ],
    # su-kaka/gcli2api#403: finish_reason "stop" already on the reasoning chunk (its shape verbatim),
    # then the answer (rebuilt): the answer is the content, the reasoning kept out of it
    "gcli403-finish-stop-on-reasoning-then-answer": [
        chunk(finish_reason="stop", reasoning_content="17*23 = 391, plus 45 is 436."),
        chunk("17*23+45 = 436", finish_reason="stop"),
    ],
}


@pytest.mark.parametrize("strategy", ["react", "fc"])
@pytest.mark.parametrize("name", list(ANSWER_STREAMS))
def test_real_world_answer_stream(name, strategy):
    raw = ANSWER_STREAMS[name]
    expected = "".join(r["delta"]["message"]["content"] for r in raw)
    chunks = iter([normalize_chunk(r) for r in raw])
    if strategy == "react":
        streamed, turn = drain(read_react_turn(chunks, ToolRegistry([tool("search", "q")]), 1))
    else:
        streamed, turn = drain(read_function_calling_turn(chunks, ["search"]))
    assert turn.decision == FinalAnswer(expected)
    assert streamed.strip() == expected
