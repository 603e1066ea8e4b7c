"""A twentieth set of real-world model outputs: the raw text that inference servers' own
reasoning and tool-call parser tests feed their parsers (2026 additions and changes), through both
strategies' turn readers (as ``test_real_world_2026t``: the text whole and in pieces of 1 and 7
characters). That raw text is what reaches the plugin through an OpenAI-compatible endpoint when
the server runs without the family's parsers. Sources: vLLM's reasoning parser tests for GLM-4.7,
Kimi K2.5, Step-3.5, Nemotron v3, GigaChat 3.5, DeepSeek V4, Solar Open 2, K2 Horizon and Gemma 4
(reasoning then a call), and more (see docs/real-world-cases.md).

Each case names its source beside it; docs/real-world-cases.md lists them with the file and
commit. The text is the test's input verbatim (built with the test's own helpers where it has
them); the tests' tools are declared here with string parameters, so a value written as markup
text is expected as a string, and a JSON value as the JSON it holds.
"""

import pytest

from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026g import read

WEATHER = tool("get_weather", "city")
READ = tool("read", "filePath")

# Kimi K2.5's call in vLLM's test (tests/reasoning/test_kimi_k25_reasoning_parser.py)
KIMI_READ = ("<|tool_calls_section_begin|><|tool_call_begin|>functions.read:0<|tool_call_argument_begin|>"
             "{'filePath':'file.txt'}<|tool_call_end|><|tool_calls_section_end|>")

# DeepSeek V4's call in vLLM's test (tests/reasoning/test_deepseekv4_reasoning_parser.py)
DSML_READ = ('<｜DSML｜tool_calls>\n<｜DSML｜invoke name="read_file">\n<｜DSML｜parameter name="path" '
             'string="true">/tmp/example.lean</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜tool_calls>')

# Solar Open 2's calls in vLLM's test (tests/reasoning/test_solar_open2_reasoning_parser.py)
SOLAR_WEATHER = ("<|tool_call:start|>get_weather\n<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>\n"
                 "<|tool_call:end|>")
SOLAR_TIME = "<|tool_call:start|>get_time\n<|tool_arg:start|>tz<|tool_arg:value|>KST<|tool_arg:end|>\n<|tool_call:end|>"
SOLAR_TOOLS = (WEATHER, tool("get_time", "tz"), tool("refresh"), tool("foo", "a"))

CASES = {
    # ---- GLM-4.7 reasoning (vLLM tests/reasoning/test_glm47_reasoning_parser.py) ------------------------
    # the template opened <think>: only its end in the reply
    "vllm-glm47-template-opened-reasoning": Case(
        (WEATHER,), "This is a reasoning section</think>This is the rest", answer="This is the rest",
        hidden=("reasoning section", "think>"),
    ),
    "vllm-glm47-reasoning-with-think-lines": Case(
        (WEATHER,), "<think>This\nThat</think>This is the rest\nThat", answer="This is the rest\nThat",
        hidden=("think>",),
    ),
    "vllm-glm47-leading-end-tag": Case(
        (WEATHER,), "</think>This is the rest", answer="This is the rest", hidden=("think>",),
    ),
    # ---- Kimi K2.5 reasoning (vLLM tests/reasoning/test_kimi_k25_reasoning_parser.py) --------------------
    "vllm-kimik25-line-break-before-think": Case(
        (WEATHER,), "\n<think>This is a reasoning section</think>\nThis is the rest", answer="This is the rest",
        hidden=("reasoning section", "think>"),
    ),
    # a call section inside a <think> never closed: it ends the reasoning
    "vllm-kimik25-call-during-think": Case(
        (READ,), "<think>I should read that file" + KIMI_READ,
        calls=[("read", {"filePath": "file.txt"})], hidden=("tool_call", "functions."),
    ),
    "vllm-kimik25-call-right-after-think": Case(
        (READ,), "<think>" + KIMI_READ, calls=[("read", {"filePath": "file.txt"})], hidden=("tool_call", "functions."),
    ),
    "vllm-kimik25-call-after-think-end": Case(
        (READ,), "<think>I should read that file</think>" + KIMI_READ,
        calls=[("read", {"filePath": "file.txt"})], hidden=("tool_call", "functions.", "should read"),
    ),
    # ---- Step-3.5 reasoning (vLLM tests/reasoning/test_step3p5_reasoning_parser.py) ----------------------
    "vllm-step3p5-template-opened-spaced-lines": Case(
        (WEATHER,), "\n This is a \n reasoning section\n\n\n</think>\n\nThis is the rest", answer="This is the rest",
        hidden=("reasoning section", "think>"),
    ),
    "vllm-step3p5-text-before-think": Case(
        (WEATHER,), "Intro\n<think>reasoning</think>\nAnswer", answer="Intro\n\nAnswer", hidden=("reasoning", "think>"),
    ),
    "vllm-step3p5-reasoning-then-blank-line": Case(
        (WEATHER,), "<think>reasoning\n</think>\n\nAnswer", answer="Answer", hidden=("reasoning", "think>"),
    ),
    # ---- ERNIE 4.5 reasoning (vLLM tests/reasoning/test_ernie45_reasoning_parser.py) ---------------------
    "vllm-ernie45-template-opened-lines": Case(
        (WEATHER,), "abc\nABC</think>def\nDEF", answer="def\nDEF", hidden=("abc", "ABC", "think>"),
    ),
    # ---- Seed-OSS reasoning (vLLM tests/reasoning/test_seedoss_reasoning_parser.py) -----------------------
    # only the end token, "SeedOSS typical behavior" as the test says
    "vllm-seedoss-only-end-token": Case(
        (WEATHER,), "Some reasoning</seed:think>This is the rest", answer="This is the rest",
        hidden=("Some reasoning", "seed:think"),
    ),
    "vllm-seedoss-end-token-then-final-answer": Case(
        (WEATHER,), "Some reasoning content</seed:think>Final answer", answer="Final answer",
        hidden=("Some reasoning", "seed:think"),
    ),
    # ---- Nemotron v3 reasoning (vLLM tests/reasoning/test_nemotron_v3_reasoning_parser.py) ---------------
    "vllm-nemotronv3-reasoning-then-answer": Case(
        (WEATHER,), "<think>reasoning here</think>real answer", answer="real answer", hidden=("reasoning here",),
    ),
    # ---- GigaChat 3.5 reasoning (vLLM tests/reasoning/test_gigachat35_reasoning_parser.py) ---------------
    "vllm-gigachat35-template-opened-reasoning": Case(
        (WEATHER,), "The user asks 2+2. Simple arithmetic.</think>\n\nThe answer is 4.", answer="The answer is 4.",
        hidden=("Simple arithmetic", "think>"),
    ),
    "vllm-gigachat35-reasoning-then-gcml-call": Case(
        (WEATHER,), 'Need the weather tool.</think>\n\n<｜GCML｜tool_calls>\n<｜GCML｜invoke name="get_weather">\n'
        '<｜GCML｜parameter name="city" string="true">Москва</｜GCML｜parameter>\n</｜GCML｜invoke>\n'
        "</｜GCML｜tool_calls>",
        calls=[("get_weather", {"city": "Москва"})], hidden=("GCML",),
    ),
    # ---- DeepSeek V4 reasoning (vLLM tests/reasoning/test_deepseekv4_reasoning_parser.py) ----------------
    # the template opened the reasoning; the DSML section ends it with no </think>
    "vllm-dsv4-call-ends-open-reasoning": Case(
        (tool("read_file", "path"),), "Let me search.\n\n" + DSML_READ,
        calls=[("read_file", {"path": "/tmp/example.lean"})], hidden=("DSML",),
    ),
    # ---- Solar Open 2 reasoning (vLLM tests/reasoning/test_solar_open2_reasoning_parser.py) --------------
    "vllm-solar2-template-opened-reasoning": Case(
        SOLAR_TOOLS, "I need to analyze<|think:end|>The answer is 42", answer="The answer is 42",
        hidden=("analyze", "think:"),
    ),
    "vllm-solar2-multiline-reasoning": Case(
        SOLAR_TOOLS, "Step 1: analyze\nStep 2: solve\n<|think:end|>Final answer", answer="Final answer",
        hidden=("analyze", "think:"),
    ),
    # a complete call inside the open reasoning, nothing after it
    "vllm-solar2-call-inside-reasoning": Case(
        SOLAR_TOOLS, f"I should check the weather.\n{SOLAR_WEATHER}\n<|think:end|>",
        calls=[("get_weather", {"city": "Seoul"})], hidden=("tool_call", "tool_arg"),
    ),
    # the sentinel named in the reasoning is no call
    "vllm-solar2-sentinel-mention": Case(
        SOLAR_TOOLS, "Should I emit <|tool_call:start|> here? No.\n<|think:end|>Answer", answer="Answer",
        hidden=("Should I", "think:"),
    ),
    # a call left open in the reasoning, then the answer
    "vllm-solar2-abandoned-call": Case(
        SOLAR_TOOLS, "let me call\n<|tool_call:start|>foo\n<|tool_arg:start|>a<|tool_arg:value|>1\n<|think:end|>after",
        answer="after", hidden=("let me call", "tool_call"),
    ),
    # a call in the reasoning and another after it: vLLM runs the later one first, then the other
    "vllm-solar2-call-inside-and-after": Case(
        SOLAR_TOOLS, f"plan calls\n{SOLAR_WEATHER}\n<|think:end|>{SOLAR_TIME}",
        calls=[("get_time", {"tz": "KST"}), ("get_weather", {"city": "Seoul"})], hidden=("tool_call",),
    ),
    # cut in the open reasoning after a complete call: the call runs
    "vllm-solar2-cut-after-call-in-reasoning": Case(
        SOLAR_TOOLS, f"checking weather\n{SOLAR_WEATHER}", calls=[("get_weather", {"city": "Seoul"})],
        hidden=("tool_call", "tool_arg"),
    ),
    # ---- K2 Horizon reasoning (vLLM tests/reasoning/test_k2_horizon_reasoning_parser.py) -----------------
    "vllm-k2horizon-reasoning-then-answer": Case(
        (tool("ping"),), "<ifm|think>plan</ifm|think>answer", answer="answer", hidden=("ifm|", "plan"),
    ),
    "vllm-k2horizon-template-opened-reasoning": Case(
        (tool("ping"),), "plan</ifm|think>answer", answer="answer", hidden=("ifm|", "plan"),
    ),
    # reasoning of blanks only, split character by character in the test
    "vllm-k2horizon-blank-reasoning": Case(
        (tool("ping"),), " \n</ifm|think>answer", answer="answer", hidden=("ifm|",),
    ),
    "vllm-k2horizon-reasoning-then-call": Case(
        (tool("ping"),), "plan<ifm|tool_calls><ifm|tool_call>ping</ifm|tool_call></ifm|tool_calls>",
        calls=[("ping", {})], hidden=("ifm|",),
    ),
    # ---- Gemma 4 reasoning then a call (vLLM tests/reasoning/test_gemma4_reasoning_with_tool_call.py) -----
    "vllm-gemma4-thought-then-call": Case(
        (tool("find", "path"),),
        '<|channel>thought\nI need to find files<channel|><|tool_call>call:find{path:<|"|>research<|"|>}<tool_call|>',
        calls=[("find", {"path": "research"})], hidden=("channel", "find files"),
    ),
    "vllm-gemma4-thought-then-answer": Case(
        (tool("find", "path"),), "<|channel>thought\nI need to answer<channel|>The answer is 42",
        answer="The answer is 42", hidden=("channel", "thought", "need to answer"),
    ),
}


GAPS: dict[tuple[str, str], str] = {
    # (case, strategy) -> why the case fails today; each is a strict xfail and a line in
    # docs/real-world-cases.md
    **{("vllm-solar2-call-inside-and-after", s): "a call written inside the reasoning runs only when the reply "
       "shows nothing after the reasoning: here a second call follows it, and only that one runs (vLLM runs "
       "both); a call drafted while thinking and then not made is not run on a guess"
       for s in ("react", "fc")},
}


test_real_world_reply = reply_test(CASES, GAPS, read)


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_new_reasoning_ends_in_code_stay_as_written(strategy):
    """Solar Open 2's, K2 Horizon's and Seed-OSS's reasoning ends that an answer shows in a code
    span are its text: nothing before them is taken for reasoning."""
    text = "Solar ends with `<|think:end|>`, K2 Horizon with `</ifm|think>`, Seed-OSS with `</seed:think>`."
    content = text if strategy == "fc" else f"Thought: explain.\nFinal Answer: {text}"
    for size in (None, 1, 7):
        streamed, turn = read(strategy, Case((WEATHER,), content), size)
        assert turn.decision.text == text
        assert streamed.strip() == text


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_solar_call_left_open_runs_nothing(strategy):
    """A Solar Open 2 call the reply never closed (no ``<|tool_call:end|>``) runs nothing, as
    vLLM's parser leaves it: its last value may be cut. An earlier call that the next start token
    ends still runs."""
    cut = "<|tool_call:start|>foo\n<|tool_arg:start|>a<|tool_arg:value|>rm -rf /tmp/bu"
    for size in (None, 1, 7):
        _, turn = read(strategy, Case(SOLAR_TOOLS, cut), size)
        assert not getattr(turn.decision, "calls", None)
        _, turn = read(strategy, Case(SOLAR_TOOLS, SOLAR_WEATHER.removesuffix("<|tool_call:end|>") + cut), size)
        assert [(c.name, c.arguments) for c in getattr(turn.decision, "calls", ())] == [("get_weather", {"city": "Seoul"})]
