"""Properties of the code wave 34's second half changed, over generated input.

* Function Calling's prompt built incrementally (``function_calling.prompt.chat_prompt``: the last
  build's messages with the new rounds' added) is the prompt a run built from nothing would send,
  whatever happened between two builds: rounds of every shape (calls with results, calls beyond
  the round's cap, calls written in the text, with and without ``opaque_body``, a cut answer, a
  reply that was no call, with or without a thought), old observations shortened and restored,
  memory trimmed, the head changed by the limit note, a provider that takes one call a message;
* ``json_args.strip_noise`` keeps a special token inside a string (it is the value's text) and
  drops those around the value: the arguments read back as written;
* ``call_markup``: a turn-end token glued to the text before it ends the reply (what follows is
  an invented turn, never shown), however the reply is streamed; one written as a word (a blank
  before it, a blank and a word after) is text;
* ``quoted.QuotedScan`` finds the old closed-string pattern's matches on long texts of quotes,
  backslashes and line breaks (``tests/unit/test_quoted.py`` draws short ones), and
  ``json_args.loads_lenient`` reads back any JSON object ``json.dumps`` wrote.
"""

import dataclasses
import json
from types import SimpleNamespace

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_core import json_args
from agent_core.call_markup import _TURN_ENDS, CallMarkup, rewrite_markup
from agent_core.function_calling.prompt import chat_prompt
from agent_core.loop import AgentLoop, _secret_across
from agent_core.params import StrategyParams
from agent_core.redaction import redactor, secret_forms
from agent_core.run_state import Round
from agent_core.tool_calls import InvalidToolCall, ToolCall
from agent_core.tool_runner import ToolResult
from agent_core.turn import FinalAnswer, ModelTurn, ParseFailure, ToolCalls
from agent_core.usage import empty_usage
from local_runner.scenario import ModelSettings
from strategies.function_calling import FunctionCallingSteps
from tests.unit.test_quoted import USED, _found, _plain
from tests.unit.test_think import split_all

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MARK = "[REDACTED]"

# --- Function Calling's incremental prompt ---------------------------------------------------------

OBSERVATIONS = st.sampled_from(["ok", "", "found " + "x" * 3000, "line\n" * 400, "日本語 " * 700])
MEMORY = [
    {"role": "user", "content": "first question " + "q" * 2000},
    {"role": "assistant", "content": "first answer " + "a" * 4000},
    {"role": "user", "content": "second question"},
    {"role": "assistant", "content": "", "tool_calls": [
        {"id": "m1", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"x\"}"}}]},
    {"role": "tool", "content": "memory result " + "r" * 5000, "tool_call_id": "m1", "name": "search"},
    {"role": "assistant", "content": "second answer " + "b" * 3000},
]


@st.composite
def rounds(draw, index: int) -> Round:
    """A finished round of any shape the loop records."""
    shape = draw(st.sampled_from(["calls", "calls", "in_text", "capped", "cut", "failure", "answer"]))
    thought = draw(st.sampled_from(["", "Looking.", "  "]))
    opaque = draw(st.sampled_from([None, None, {"id": f"msg_{index}"}]))
    usage = empty_usage()
    if shape in ("calls", "in_text", "capped"):
        count = draw(st.integers(1, 4))
        calls = tuple(ToolCall(id=f"c{index}_{n}", name="search", arguments={"q": f"{index}.{n}"}) for n in range(count))
        invalid = (InvalidToolCall(id=f"i{index}", name="search", raw_arguments="{bad", error="bad JSON"),) if draw(st.booleans()) else ()
        not_run = calls[-1:] if shape == "capped" and count > 1 else ()
        ran = calls[: len(calls) - len(not_run)]
        results = tuple(
            ToolResult(call.id, call.name, call.arguments, observation=draw(OBSERVATIONS)) for call in ran
        ) + tuple(ToolResult(bad.id, bad.name, bad.raw_arguments, observation="bad JSON", error="bad JSON") for bad in invalid)
        decision = ToolCalls(calls=calls, invalid=invalid, in_text=shape == "in_text")
        turn = ModelTurn(thought=thought, decision=decision, usage=usage, content=thought, opaque_body=opaque)
        return Round(index=index, turn=turn, results=results, not_run=not_run)
    if shape == "cut":
        turn = ModelTurn(thought="", decision=FinalAnswer(text="part"), usage=usage, content="part",
                         finish_reason="length", raw="part")
        return Round(index=index, turn=turn)
    if shape == "failure":
        turn = ModelTurn(thought=thought, decision=ParseFailure(problem=f"no call {index}"), usage=usage,
                         content=thought, raw=thought or "?")
        return Round(index=index, turn=turn)
    return Round(index=index, turn=ModelTurn(thought="", decision=FinalAnswer(text="done"), usage=usage, content="done"))


STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("round")),
        st.tuples(st.just("trim"), st.integers(0, 12)),
        st.tuples(st.just("limit"), st.sampled_from(["iterations", "repeating", "time", "none"])),
        st.tuples(st.just("build")),
        st.tuples(st.just("knowledge"), st.integers(1, 400)),
    ),
    min_size=1,
    max_size=14,
)


def _state(provider: str, with_memory: bool):
    model = ModelSettings(provider=provider, context_size=8192, completion_params={})
    params = StrategyParams.model_validate({"model": model.selector(MEMORY if with_memory else []), "query": "latest?",
                                            "context": [{"content": "Paris is the capital of France. " * 60}]})
    return AgentLoop(SimpleNamespace(session=None), FunctionCallingSteps(), params).state


def _anew(state):
    """The prompt a run in the same state, with nothing rendered yet, builds."""
    fresh = dataclasses.replace(state, rounds=list(state.rounds), rendered={})
    return chat_prompt(fresh)


def _dumped(messages):
    return [message.model_dump() for message in messages]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["langgenius/openai/openai", "langgenius/gemini/google", "langgenius/anthropic/anthropic"]),
       st.booleans(), STEPS, st.data())
def test_an_incremental_prompt_is_the_prompt_built_anew_after_any_history(provider, with_memory, steps, data):
    state = _state(provider, with_memory)
    for step in steps:
        if step[0] == "round":
            state.rounds.append(data.draw(rounds(len(state.rounds) + 1)))
        elif step[0] == "trim":  # the loop's search for the fewest trimming steps that fit, back and forth
            state.trim_to((0, 0, 0), min(step[1], state.trim_room((0, 0, 0))))
        elif step[0] == "knowledge":  # the knowledge block cut, the last thing trimmed to fit
            state.shrink_knowledge(step[1], step[1] * 4)
        elif step[0] == "limit":
            state.limit_reached = step[1] != "none"
            state.repeating = ("search",) if step[1] == "repeating" else ()
            state.out_of_time = step[1] == "time"
        built = chat_prompt(state)
        assert _dumped(built) == _dumped(_anew(state)), step
    assert _dumped(chat_prompt(state)) == _dumped(_anew(state))


# --- strip_noise -----------------------------------------------------------------------------------

TOKENS = st.sampled_from(["<|im_end|>", "<|eot_id|>", "<|python_tag|>", "<｜end▁of▁sentence｜>", "[TOOL_CALLS]",
                          "<|call|>", "<|end|>"])
WORDS = st.text(st.sampled_from([*"ab \\\"'{}[],:\n\t", "é", "日"]), max_size=12)


@st.composite
def token_texts(draw) -> str:
    """A string value with special tokens in it."""
    pieces = draw(st.lists(st.one_of(WORDS, TOKENS), min_size=1, max_size=6))
    return "".join(pieces)


ARGUMENTS = st.dictionaries(st.sampled_from(["q", "text", "path", "k_1"]),
                            st.one_of(token_texts(), st.integers(-5, 5), st.lists(token_texts(), max_size=3)),
                            min_size=1, max_size=3)


@SETTINGS
@given(ARGUMENTS, st.booleans(), st.lists(TOKENS, max_size=2), st.lists(TOKENS, max_size=2), st.sampled_from(["", " ", "\n"]))
def test_tokens_inside_strings_survive_strip_noise_and_those_around_the_value_go(arguments, ascii_only, before, after, blank):
    written = json.dumps(arguments, ensure_ascii=ascii_only)
    text = "".join(before) + blank + written + blank + "".join(after)
    assert json.loads(json_args.strip_noise(text)) == arguments


# --- turn-end tokens -------------------------------------------------------------------------------

PROSE = st.text(st.sampled_from([*"abcxyz .,!?", "é", "日"]), min_size=1, max_size=30).filter(
    lambda text: text.strip() and text[-1] not in " \t\"")
INVENTED = st.sampled_from(["", "user\nthanks", "\nassistant: more", " and then", "\n\nNew question?", "assistant"])
ENDS = st.sampled_from(_TURN_ENDS)


def _streamed(text: str, cuts: list[int]) -> str:
    markup = CallMarkup()
    points = sorted({min(cut, len(text)) for cut in cuts})
    pieces = [text[start:end] for start, end in zip([0, *points], [*points, len(text)], strict=True)]
    return "".join(markup.feed(piece) for piece in pieces) + markup.finish()


@SETTINGS
@given(PROSE, ENDS, INVENTED, st.lists(st.integers(1, 80), max_size=5))
def test_a_turn_end_token_glued_to_the_text_ends_the_reply(prose, token, invented, cuts):
    text = prose + token + invented
    shown = _streamed(text, cuts)
    assert shown.rstrip() == prose.rstrip()
    assert rewrite_markup(text).rstrip() == prose.rstrip()


@SETTINGS
@given(PROSE, ENDS, st.text(st.sampled_from("abc"), min_size=1, max_size=6), st.lists(st.integers(1, 80), max_size=5))
def test_a_turn_end_token_written_as_a_word_is_text(prose, token, word, cuts):
    text = f"{prose} {token} {word} ends here."
    assert _streamed(text, cuts) == text


# --- QuotedScan on long texts ----------------------------------------------------------------------

LONG_TEXTS = st.lists(st.sampled_from(['"', "'", "\\", "\n", "\\\n", '\\"', "\\'", "{", "}", ",", ":", " a", "k"]),
                      max_size=200).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(USED)), LONG_TEXTS)
def test_a_scan_finds_the_plain_patterns_matches_in_long_texts(name, text):
    scan, rest, quotes, flags = USED[name]
    plain = _plain(rest, quotes, flags)
    assert _found(scan.finditer(text)) == _found(plain.finditer(text))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.lists(st.sampled_from([*"a \"'\\\n{}[]:,", "<|x|>", "é"]), max_size=12).map("".join),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.sampled_from(["a", "b'", 'c"', "d\\"]), children, max_size=3),
    max_leaves=12,
)


@SETTINGS
@given(st.dictionaries(st.sampled_from(["q", "x", "y"]), JSON_VALUES, min_size=1, max_size=3), st.booleans())
def test_loads_lenient_reads_back_what_json_dumps_wrote(value, ascii_only):
    assert json_args.loads_lenient(json.dumps(value, ensure_ascii=ascii_only)) == value



# --- reasoning tags beside code spans (think.SPAN_LOOK_LIMIT's hold) -------------------------------

SPANS = st.lists(st.sampled_from(["`", "```", "\n", "<think>", "</think>", "a", " ", "b c", "``"]), max_size=30).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(SPANS, st.lists(st.integers(1, 7), min_size=1, max_size=6),
       st.sampled_from([{}, {"opened": True}, {"probe": 64}, {"thoughts": True}]))
@example("`</think>```<think></think>", [1], {"probe": 64})  # a probed start: a quoted end, then the reply's own block
def test_reasoning_beside_code_spans_splits_the_same_however_the_stream_is_cut(text, sizes, kwargs):
    pieces, at = [], 0
    while at < len(text):
        size = sizes[len(pieces) % len(sizes)]
        pieces.append(text[at : at + size])
        at += size
    assert split_all(pieces, **kwargs) == split_all([text], **kwargs)


# --- redaction: many secrets at once, the ASCII fast paths ------------------------------------------

SECRET_CHARS = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0123456789"
SECRETS = st.text(st.sampled_from(SECRET_CHARS), min_size=12, max_size=20)
SEPARATORS = st.lists(st.sampled_from([*" .,;:!?()\n\t", "->", "=", "\"", "'"]), min_size=1, max_size=4).map("".join)


@SETTINGS
@given(st.lists(SECRETS, min_size=2, max_size=7, unique=True), st.data())
def test_many_secrets_are_each_hidden_and_the_text_between_them_is_kept(secrets, data):
    shown = data.draw(st.lists(st.sampled_from(secrets), min_size=1, max_size=5))
    separators = data.draw(st.lists(SEPARATORS, min_size=len(shown) + 1, max_size=len(shown) + 1))
    text = "".join(sep + secret for sep, secret in zip(separators, shown, strict=False)) + separators[-1]
    redacted = redactor(secrets)(text)
    assert not any(secret in redacted for secret in secrets)
    assert not any(secret[:8] in redacted or secret[-8:] in redacted for secret in shown)
    assert redacted.count(MARK) == len(shown)


@SETTINGS
@given(st.lists(SECRETS, min_size=1, max_size=4, unique=True), st.data(),
       st.sampled_from([" 日本", "\n€", " é", "→", " \u200b"]))
def test_an_ascii_text_is_redacted_as_it_is_beside_other_letters(secrets, data, tail):
    shown = data.draw(st.lists(st.sampled_from(secrets), max_size=3))
    separators = data.draw(st.lists(SEPARATORS, min_size=len(shown) + 1, max_size=len(shown) + 1))
    text = "".join(sep + secret for sep, secret in zip(separators, shown, strict=False)) + separators[-1]
    redact = redactor(secrets)
    assert redact(text + tail) == redact(text) + tail


# --- a secret across a cut answer's joint (loop._found_across) --------------------------------------

FILLER = st.lists(st.sampled_from([" word", " ok.", "\n", ", then", " 42"]), max_size=8).map("".join)


@SETTINGS
@given(SECRETS, st.integers(1, 11), st.sampled_from(["Key: ", "The key is ", "", "x="]), FILLER,
       st.integers(0, 3000), st.booleans())
def test_no_joint_is_put_inside_a_secret_the_cut_fell_in_however_long_the_rest(secret, at, before, after, far, again):
    """The continuation completes the secret the cut answer ended with; whatever follows (megabytes,
    the secret written again far on), no space goes between the parts, and the joined answer
    shows no piece of the secret once redacted."""
    secrets = secret_forms({secret})
    cut = before + secret[:at]
    rest = secret[at:] + after + " " * far + (" again " + secret if again else "")
    joint = _secret_across(cut, " ", rest, secrets)
    assert joint == ""
    shown = secrets.redact(cut + joint + rest)
    assert secret[:8] not in shown and secret[-8:] not in shown


@SETTINGS
@given(SECRETS, st.sampled_from(["The key", "Ask", "door", "Key: rt"]), FILLER, st.integers(0, 3000))
def test_the_joint_stays_before_a_rest_that_writes_a_secret_of_its_own(secret, cut, after, far):
    secrets = secret_forms({secret})
    rest = "is " + after + " " * far + secret + " ok"
    assert _secret_across(cut, " ", rest, secrets) == " "


def test_a_close_the_stream_cuts_at_the_probes_end_ends_the_reasoning_as_in_the_whole_reply():
    """Function Calling holds a reply's first ``REASONING_PROBE`` characters to find a bare
    ``</think>``. One starting inside them and cut by the stream across their end was not waited
    for: the reasoning before it was shown as the answer (a stream of one character a chunk), and
    behind a stray backtick the tag itself too."""
    from agent_core.function_calling.turn import REASONING_PROBE

    for thought in ("x" * (REASONING_PROBE - 6), "`" + "y" * (REASONING_PROBE - 4)):
        text = thought + "</think>The answer."
        whole = split_all([text], probe=REASONING_PROBE)
        assert whole == ("The answer.", thought)
        for size in (1, 3, 7):
            assert split_all([text[i : i + size] for i in range(0, len(text), size)], probe=REASONING_PROBE) == whole
