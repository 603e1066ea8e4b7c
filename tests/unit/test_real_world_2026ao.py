"""A fortieth set of real-world cases: small local models (1 to 14 billion parameters) doing
prompt-based tool calling as Dify users run them through Ollama, LM Studio, llama.cpp's server
(and llama-cpp-python), LocalAI or Foundry Local: Llama 3.x call objects joined by semicolons or
spread through chatty prose, Granite 3's ``<function_call>`` and a ``bash`` fence where a call was
wanted, Granite 3.1 MoE 1B's call list with junk entries, Qwen1.5 7B's OpenAI-shaped call written
out and repeated with chat-template tokens, Phi-4-mini's ``functools[...]``, Hermes 2 Pro's
``<tool_call>`` whose closing tag a stop word ate, Hermes 2 Theta's ``<scratchpad>`` before its
call, Qwen2.5-Coder's bare call object, and a cut ``<|python_tag|>`` built-in call whose payload
names a tool.

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``). Each case names its source beside it;
docs/real-world-cases.md lists them. A text is quoted as the report shows it (trimmed where the
comment says so); where the report shows a format or describes the output and its values were
filled in, the comment says "rebuilt". The tools are declared with string parameters.
"""

import pytest

from agent_core.text_calls import extract_calls_from_text
from agent_core.turn import ToolCalls
from tests.unit.test_real_world_2026 import Case, assert_shown_or_runs_nothing, reply_test, tool
from tests.unit.test_real_world_2026d import read

CURRENT_WEATHER = tool("get_current_weather", "location", "unit")
WEATHER = tool("get_weather", "location")
BASH = tool("bash", "command")

# Qwen1.5-7B's call as LocalAI's log shows it (mudler/LocalAI#2850), one copy
QWEN15_CALL = (
    'Function call:\n[{"index":0,"id":"afc8debf-4f94-4c09-ae4f-7e86051bc74b","type":"function","function":'
    '{"name":"execute_services","arguments":"{\\"list\\":[{\\"domain\\":\\"light\\",\\"service\\":\\"turn_off\\",'
    '\\"service_data\\":{\\"entity_id\\":\\"light.b850d80e888f_light\\"}}]}"}}]'
)

CASES = {
    # ---- Llama 3.x call objects in the text ---------------------------------------------------------
    # abetlen/llama-cpp-python#1856: a local model behind llama-cpp-python's server wrote three call
    # objects joined by "; " in the content, no tool_calls (the first two verbatim; the third is cut
    # in the report, its values rebuilt)
    "llamacpppython1856-three-call-objects-joined-by-semicolons": Case(
        (CURRENT_WEATHER,),
        '{"name": "get_current_weather", "parameters": {"location": "San Francisco, CA", "unit": "fahrenheit"}}; '
        '{"name": "get_current_weather", "parameters": {"location": "Tokyo, JP", "unit": "celsius"}}; '
        '{"name": "get_current_weather", "parameters": {"location": "Paris, FR", "unit": "celsius"}}',
        calls=[
            ("get_current_weather", {"location": "San Francisco, CA", "unit": "fahrenheit"}),
            ("get_current_weather", {"location": "Tokyo, JP", "unit": "celsius"}),
            ("get_current_weather", {"location": "Paris, FR", "unit": "celsius"}),
        ],
        hidden=('"parameters"',),
    ),
    # vercel/ai#3521: "chatty" Llama 3.1/3.2 above temperature 0.5 writes a sentence, a call, another
    # sentence and another call (the layout verbatim, the calls rebuilt)
    "vercelai3521-chatty-llama-two-calls-between-sentences": Case(
        (tool("get_weather", "city"), tool("get_time", "city")),
        'Sure! Let me do that for you?\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n\n'
        "and I'll check this too\n\n"
        '{"name": "get_time", "parameters": {"city": "Paris"}}',
        calls=[("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})],
        hidden=('"name"',),
    ),
    # ollama/ollama-vscode PR #20: qwen2.5-coder:7b answers a tool request with the call object alone
    # in message.content (rebuilt)
    "ollamavscode20-qwen25-coder-7b-bare-call-object": Case(
        (tool("read_file", "filePath"),),
        '{"name": "read_file", "arguments": {"filePath": "src/extension.ts"}}',
        calls=[("read_file", {"filePath": "src/extension.ts"})],
        hidden=('"arguments"',),
    ),
    # FlowiseAI/Flowise#5543: a ChatOllama model behind Flowise's Tool Agent answered "what is 2000 * 20 / 5?"
    # with the call object alone, and nothing ran (verbatim)
    "flowise5543-chatollama-calculator-call-object-as-reply": Case(
        (tool("calculator", "input"),), '{"name": "calculator", "arguments": {"input": "2000 * 20 / 5"}}',
        calls=[("calculator", {"input": "2000 * 20 / 5"})], hidden=('"arguments"',),
    ),
    # ---- Granite 3.x ----------------------------------------------------------------------------------
    # ollama/ollama#7544: granite3-dense 8B, given a bash tool, wrote the command in a fence instead
    # of calling it (verbatim): the fence is the answer, no call is invented from it
    "ollama7544-granite3-dense-8b-bash-fence-not-a-call": Case(
        (BASH,), "```bash\nls\n```", answer="```bash\nls\n```",
    ),
    # ollama/ollama#7544: the format the thread's fix asked Granite for, `<function_call> {"name":
    # ..., "arguments": ...}` (the format verbatim, the call rebuilt)
    "ollama7544-granite3-function-call-tag": Case(
        (BASH,), '<function_call> {"name": "bash", "arguments": {"command": "ls"}}',
        calls=[("bash", {"command": "ls"})], hidden=("function_call",),
    ),
    # matlab-deep-learning/llms-with-matlab#91: granite3.1-moe:1b through Ollama wrote a <tool_call>
    # list whose first entry is a call and whose others have no name of their own (verbatim): the
    # call runs; the nameless entries are not guessed into calls
    "llmswithmatlab91-granite31-moe-1b-call-list-with-nameless-entries": Case(
        (tool("headTurn", "question", "direction"), tool("moveForwardBackward", "direction", "speed"),
         tool("steerWheels", "direction", "angle")),
        '<tool_call>[{"arguments": {"question": "Perform S-shape", "direction": "left"}, \n"name": "headTurn"}, '
        '{"arguments": {"type": "object", "required": null, \n"properties":{}}}, {"arguments": {"type": \n'
        '"function","name":"moveForwardBackward","parameters":{"direction": \n"forward","speed": 1}}, '
        '{"arguments": {"type": \n"function","name":"steerWheels","parameters":{"direction": "straight","angle": \n0}}}]',
        calls=[("headTurn", {"question": "Perform S-shape", "direction": "left"})],
        hidden=("<tool_call>",),
    ),
    # ---- Qwen ---------------------------------------------------------------------------------------
    # mudler/LocalAI#2850: qwen1.5-7b-chat through LocalAI wrote its call as an OpenAI tool_calls list
    # after "Function call:", then <|im_end|>, a new assistant turn and the same call again, the
    # third copy cut (verbatim, trimmed where the third copy starts)
    "localai2850-qwen15-7b-openai-call-list-repeated-across-turns": Case(
        (tool("execute_services", "list"),),
        f"{QWEN15_CALL}\n<|im_end|>\n<|im_start|>assistant\n{QWEN15_CALL}\n<|im_end|>\n<|im_start|>assistant\n"
        'Function call:\n[{"index":0,"id":"afc8debf-4f94-4c09-',
        calls=[("execute_services", {"list": [{"domain": "light", "service": "turn_off",
                                               "service_data": {"entity_id": "light.b850d80e888f_light"}}]})],
        hidden=("im_start", "Function call"),
    ),
    # ---- Phi-4-mini -----------------------------------------------------------------------------------
    # sgl-project/sglang PR #17132 (Phi-4-mini's `functools[...]` format) and HamidOna/Foundry-Local's
    # TESTING_PHI4_UPGRADE.md (Foundry Local's content when the call is not parsed; the arguments
    # rebuilt from the same file's expected call)
    "foundrylocal-phi4-mini-functools-in-content": Case(
        (tool("generate_quiz", "topic"),),
        'functools[{"name": "generate_quiz", "arguments": {"topic": "space"}}]',
        calls=[("generate_quiz", {"topic": "space"})], hidden=("functools",),
    ),
    # ---- Hermes 2 Pro / Theta 8B through LocalAI ------------------------------------------------------
    # mudler/LocalAI#2223: the Hermes-2-Pro-Llama-3-8B setup lists </tool_call> as a stop word and
    # matches "(?s)<tool_call>(.*?)" for a call left open, so the content ends inside the tag
    # (rebuilt)
    "localai2223-hermes2-pro-8b-closing-tag-eaten-by-stop-word": Case(
        (WEATHER,), '<tool_call>\n{"arguments": {"location": "Rome"}, "name": "get_weather"}',
        calls=[("get_weather", {"location": "Rome"})], hidden=("<tool_call>",),
    ),
    # mudler/LocalAI PR #2445: Hermes-2-Theta-Llama-3-8B writes a <scratchpad> before its call, which
    # the setup drops from the reply (rebuilt)
    "localai2445-hermes2-theta-8b-scratchpad-before-call": Case(
        (WEATHER,),
        "<scratchpad>\nThe user wants the weather in Rome, so I call get_weather.\n</scratchpad>\n"
        '<tool_call>\n{"arguments": {"location": "Rome"}, "name": "get_weather"}\n</tool_call>',
        calls=[("get_weather", {"location": "Rome"})], hidden=("<tool_call>", '"arguments"'),
    ),
}

GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    ("localai2850-qwen15-7b-openai-call-list-repeated-across-turns", "fc"): (
        "Function Calling reads a call list written after a sentence only when it ends the reply and its "
        "objects open with a name key; this OpenAI-shaped list opens with `index`, repeats after "
        "`<|im_end|>` and a new assistant turn, and ends cut, so the whole text is shown as the answer and "
        "nothing runs (ReAct runs the call once)"
    ),
}

test_real_world_reply = reply_test(CASES, GAPS, read)


# ---- a reply whose right outcome is that the node's tool does not run -------------------------------

@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_unsloth5620_cut_python_tag_builtin_call_does_not_run_the_tool_its_payload_names(strategy, size):
    """unslothai/unsloth PR #5620 (review): Llama 3's ``<|python_tag|>`` built-in call cut before
    its end, ``foo.call(payload={"name":"bar","parameters":{}}`` (verbatim), must not run ``bar``
    from the object inside its argument. Nothing runs ``bar``: the text is the answer without the
    token, or the model is asked again."""
    bar = tool("bar", "x")
    text = '<|python_tag|>foo.call(payload={"name":"bar","parameters":{}}'
    streamed, turn = read(strategy, Case((bar,), text), size)
    assert_shown_or_runs_nothing(bar, text, streamed, turn, shown='foo.call(payload={"name":"bar","parameters":{}}')
    assert "python_tag" not in streamed


# ---- the limits of the fix: a call object alone on its lines before the call that ends the reply ----

TOOLS = ["get_weather", "get_time"]
LAST = '{"name": "get_time", "parameters": {"city": "Paris"}}'


def test_a_lone_call_object_before_the_last_one_runs_first_and_the_sentences_are_kept():
    calls, rest = extract_calls_from_text(
        f'Sure!\n\n{{"name": "get_weather", "parameters": {{"city": "Paris"}}}}\n\nand this too\n\n{LAST}', TOOLS
    )
    assert [(c.name, c.arguments) for c in calls] == [("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})]
    assert rest == "Sure!\n\nand this too"


@pytest.mark.parametrize("before", [
    # presented as an example: the example does not run
    'The format looks like this:\n{"name": "get_weather", "parameters": {"city": "X"}}\n\nSo:\n',
    # in a fence: the answer's code
    '```\n{"name": "get_weather", "parameters": {"city": "X"}}\n```\n\nNow:\n',
    # not alone on its line
    'I could send {"name": "get_weather", "parameters": {"city": "X"}} but\n',
    # a tool the node lacks
    '{"name": "get_news", "parameters": {"city": "X"}}\n\nthen\n',
    # not an envelope: a key beside the call's own
    '{"name": "get_weather", "parameters": {"city": "X"}, "note": "first"}\n\nthen\n',
])
def test_an_earlier_object_that_is_no_lone_call_is_left_in_the_text(before):
    calls, rest = extract_calls_from_text(before + LAST, TOOLS)
    assert [(c.name, c.arguments) for c in calls] == [("get_time", {"city": "Paris"})]
    assert rest == before.strip() and isinstance(calls, tuple)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_chatty_llama_calls_stream_only_the_first_sentence(size):
    """Function Calling holds back the call objects and the sentence between them; only the
    sentence before the first call is shown while the reply streams."""
    streamed, turn = read("fc", CASES["vercelai3521-chatty-llama-two-calls-between-sentences"], size)
    assert isinstance(turn.decision, ToolCalls)
    assert streamed.strip() == "Sure! Let me do that for you?"
