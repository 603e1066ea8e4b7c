"""The last guard on what a run writes (agent_core.outbound): a secret the model writes (in its
answer, its thought, a call's arguments or a tool name) or the user pasted (query, memory) is
hidden in the chat, the log tree, the run's error and the next model request."""

import re
from itertools import pairwise

import pytest
from dify_plugin.entities.agent import AgentInvokeMessage
from dify_plugin.entities.invoke_message import InvokeMessage
from dify_plugin.entities.model.llm import LLMUsage
from dify_plugin.entities.model.message import (
    AssistantPromptMessage,
    ImagePromptMessageContent,
    TextPromptMessageContent,
    ToolPromptMessage,
    UserPromptMessage,
)
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_core.budget import in_pieces
from agent_core.errors import AgentRunError
from agent_core.logs import LogNode
from agent_core.outbound import (
    PieceRedactor,
    TextHold,
    cut_reply_masked,
    guarded,
    prompt_redactor,
    redact_message,
    redacted_error,
    redacted_prompt,
)
from agent_core.redaction import secret_forms
from agent_core.turn import FinalAnswer, ModelTurn

SECRET = "sk-CANARY-7f3a91b2c4"
FORMS = secret_forms({SECRET})


def text(value: str) -> AgentInvokeMessage:
    return AgentInvokeMessage(type=InvokeMessage.MessageType.TEXT, message=InvokeMessage.TextMessage(text=value))


def written(messages) -> str:
    return "".join(m.message.text for m in messages if m.type == InvokeMessage.MessageType.TEXT)


@pytest.mark.parametrize("cuts", [[4], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19], [10, 12]])
def test_a_secret_split_over_text_pieces_is_hidden_and_the_rest_kept(cuts):
    whole = f"Your key {SECRET} works."
    start = whole.index(SECRET)
    bounds = [0, *[start + cut for cut in cuts], len(whole)]
    pieces = [whole[a:b] for a, b in pairwise(bounds)]
    assert written(guarded(iter(map(text, pieces)), FORMS)) == "Your key [REDACTED] works."


def test_text_without_a_start_of_a_secret_is_not_held():
    hold = TextHold(FORMS)
    assert hold.add("Hello! ") == "Hello! "  # (a letter may start a base64 form of the secret)
    assert hold.add("world, sk") == "world, "
    assert hold.add("y is blue.") == "sky is blue."
    assert hold.flush() == ""


def test_a_start_of_a_secret_that_ends_the_run_or_is_cut_off_is_hidden():
    """The answer stopped at the output limit inside the secret, then a notice (or nothing)."""
    assert written(guarded(iter([text("key " + SECRET[:12])]), FORMS)) == "key [REDACTED]"
    hold = TextHold(FORMS)
    assert hold.add("key " + SECRET[:12]) == "key "
    assert hold.add("\n\n[cut off]") == "[REDACTED]\n\n[cut off]"
    assert hold.add("sk-C") == ""
    # the last letters may be a base64 group's first characters before a form of the secret: held
    assert hold.add("ANADA") + hold.flush() == "sk-CANADA", "a short start that does not go on is ordinary text"



@pytest.mark.parametrize("joint", [" ", "", "\n"])
def test_a_held_start_is_hidden_when_the_next_piece_writes_the_whole_secret_after_it(joint):
    """The limit cut the answer inside the key; the continuation writes the whole key again (a model
    restarting the word it was cut in): the held start was written beside ``[REDACTED]`` because a
    secret found further on made the hold skip the start left behind."""
    hold = TextHold(FORMS)
    assert hold.add("The key is " + SECRET[:12]) == "The key is "
    shown = hold.add(f"{joint}{SECRET} and it works.") + hold.flush()
    assert SECRET[:8] not in shown
    assert shown == f"[REDACTED]{joint}[REDACTED] and it works."


def test_a_held_start_that_goes_on_into_the_secret_is_hidden_once():
    hold = TextHold(FORMS)
    assert hold.add("key " + SECRET[:12]) == "key "
    assert hold.add(SECRET[12:] + f" and {SECRET} again.") + hold.flush() == "[REDACTED] and [REDACTED] again."

def test_log_data_label_and_error_are_redacted_enum_keys_kept():
    node = LogNode(f"CALL {SECRET}")
    message = node.finish({"output": {"args": {SECRET: f"x {SECRET}"}}, "n": 1}, error=f"bad {SECRET}")
    redacted = redact_message(message, FORMS)
    body = redacted.message
    assert body.label == "CALL [REDACTED]" and body.error == "bad [REDACTED]"
    assert body.data == {"output": {"args": {"[REDACTED]": "x [REDACTED]"}}, "n": 1}
    assert body.metadata.keys() == message.message.metadata.keys()


def test_a_message_without_a_secret_is_the_same_object():
    message = LogNode("ROUND 1").finish({"output": "fine"})
    assert redact_message(message, FORMS) is message
    assert redact_message(message, secret_forms(set())) is message


def test_without_secrets_messages_pass_unchanged_and_nothing_is_held():
    messages = [text("sk-"), text("CANARY")]
    assert list(guarded(iter(messages), secret_forms(set()))) == messages


def test_the_run_error_is_redacted_without_its_chain_and_held_text_comes_first():
    def run():
        yield text("partial sk-CAN")
        try:
            raise ValueError(f"provider said {SECRET}")
        except ValueError as error:
            raise AgentRunError(f"model failed: {error}") from error

    out = []
    with pytest.raises(AgentRunError) as raised:
        for message in guarded(run(), FORMS):
            out.append(message)
    assert written(out) == "partial [REDACTED]", "held, then hidden: the text ended inside the secret"
    assert str(raised.value) == "model failed: provider said [REDACTED]"
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_an_error_without_a_secret_is_raised_as_it_is():
    error = AgentRunError("plain")
    assert redacted_error(error, FORMS) is error


def test_the_prompt_is_redacted_in_text_tool_names_and_arguments_images_kept():
    image = ImagePromptMessageContent(format="png", base64_data="aGVsbG8=", mime_type="image/png")
    call = AssistantPromptMessage.ToolCall(
        id="c1", type="function",
        function=AssistantPromptMessage.ToolCall.ToolCallFunction(name=SECRET, arguments=f'{{"k": "{SECRET}"}}'),
    )
    messages = [
        UserPromptMessage(content=[TextPromptMessageContent(data=f"my key {SECRET}"), image]),
        AssistantPromptMessage(content="", tool_calls=[call]),
        UserPromptMessage(content="nothing here"),
    ]
    out = redacted_prompt(messages, FORMS)
    assert out[0].content[0].data == "my key [REDACTED]" and out[0].content[1] is image
    assert out[1].tool_calls[0].function.name == "[REDACTED]"
    assert out[1].tool_calls[0].function.arguments == '{"k": "[REDACTED]"}'
    assert out[2] is messages[2]
    assert SECRET in messages[0].content[0].data, "the run's own messages are not changed"


def test_a_call_id_holding_a_secret_is_redacted_alike_in_the_call_and_the_result_that_answers_it():
    """The model wrote the secret as its call's id: the id goes back byte for byte, in the
    assistant's call and in the tool message's ``tool_call_id``; both are hidden the same way,
    so they still match, and a call whose id holds none is the same object."""
    function = AssistantPromptMessage.ToolCall.ToolCallFunction(name="lookup", arguments="{}")
    leaky = AssistantPromptMessage.ToolCall(id=f"call_{SECRET}", type="function", function=function)
    clean = AssistantPromptMessage.ToolCall(id="call_2", type="function", function=function)
    messages = [
        AssistantPromptMessage(content="", tool_calls=[leaky, clean]),
        ToolPromptMessage(content="result", tool_call_id=f"call_{SECRET}", name="lookup"),
        ToolPromptMessage(content="result", tool_call_id="call_2", name="lookup"),
    ]
    out = redacted_prompt(messages, FORMS)
    assert SECRET not in repr(out)
    assert out[0].tool_calls[0].id == out[1].tool_call_id == "s00000001"
    assert out[0].tool_calls[1] is clean and out[2] is messages[2]


def test_calls_whose_ids_hold_a_secret_keep_distinct_ids_paired_with_their_results_round_after_round():
    """Two calls of one reply whose ids hold the same secret (and one its upper-cased or escaped
    form): hidden as ``call_[REDACTED]`` each, the ids collided and no provider could tell which
    result answers which call. Each gets its own id, the same in every later round's prompt."""
    function = AssistantPromptMessage.ToolCall.ToolCallFunction(name="lookup", arguments="{}")
    ids = [f"call_{SECRET}_1", f"call_{SECRET}_2", f"call_{SECRET.upper()}", "call_" + SECRET.replace("-", "\\u002d")]
    calls = [AssistantPromptMessage.ToolCall(id=i, type="function", function=function) for i in ids]
    results = [ToolPromptMessage(content="r", tool_call_id=i, name="lookup") for i in reversed(ids)]
    redact = prompt_redactor(FORMS)
    first = redact([AssistantPromptMessage(content="", tool_calls=calls), *results])
    sent = [call.id for call in first[0].tool_calls]
    assert len(set(sent)) == 4 and all(re.fullmatch("[A-Za-z0-9]{9}", i) for i in sent)
    assert [m.tool_call_id for m in first[1:]] == sent[::-1]
    copies = [call.model_copy() for call in calls]  # new objects: found again, not from the cache
    later = redact([UserPromptMessage(content="again"), AssistantPromptMessage(content="", tool_calls=copies),
                    *[m.model_copy() for m in results]])
    assert [call.id for call in later[1].tool_calls] == sent


def test_a_message_repeated_by_later_rounds_is_redacted_once_and_the_copy_reused():
    """A round's prompt repeats the messages of the round before: each is checked once."""
    redact = prompt_redactor(FORMS)
    query = UserPromptMessage(content=f"my key {SECRET}")
    first, second = redact([query]), redact([query])
    assert first[0].content == "my key [REDACTED]" and second[0] is first[0]


def test_the_ids_of_a_log_node_are_kept_whatever_the_secret():
    short = secret_forms({"4f2a"})
    node = LogNode("CALL lookup", parent=LogNode("ROUND 1"))
    message = node.finish({"output": "key 4f2a"})
    forced = message.model_copy(update={"message": message.message.model_copy(update={"id": "id-4f2a", "parent_id": "p-4f2a"})})
    body = redact_message(forced, short).message
    assert body.data == {"output": "key [REDACTED]"} and (body.id, body.parent_id) == ("id-4f2a", "p-4f2a")


def test_a_form_with_backslashes_is_found_in_a_log_and_a_prompt():
    """``\\u0073\\u006b...`` is written with doubled backslashes in the JSON line: each text is
    looked at on its own."""
    escaped = "".join(f"\\u{ord(c):04x}" for c in SECRET)
    message = LogNode("gpt Thought").finish({"output": f"key {escaped}"})
    assert redact_message(message, FORMS).message.data == {"output": "key [REDACTED]"}
    (prompt,) = redacted_prompt([UserPromptMessage(content=f"key {escaped}")], FORMS)
    assert prompt.content == "key [REDACTED]"


def test_the_rest_of_a_secret_a_cut_text_ended_inside_is_hidden_in_its_continuation():
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    assert secrets.mask_continued_head("Key: SECRET-CANA", "RY-93c1d7 done") == "[REDACTED] done"
    assert secrets.mask_continued_head("Key: SECRET-\nCANA", "RY-93c1d7 done") == "[REDACTED] done"  # reflowed
    assert secrets.mask_continued_head("Key: SECRET-CANA", "Rome is far") == "Rome is far"  # not the secret
    assert secrets.mask_continued_head("Key: SECRET-CANARY-93c1d7", " done") == " done"  # ended whole before
    assert secrets.mask_continued_head("", "RY-93c1d7") == "RY-93c1d7"
    assert secret_forms(set()).mask_continued_head("Key: SECRET-CANA", "RY-93c1d7") == "RY-93c1d7"


def test_a_continuation_cut_inside_the_same_secret_is_hidden_whole_in_the_logs():
    """The limit cut the answer inside a key and its continuation again before the key's end:
    the continuation round's Thought and ROUND nodes showed the key's middle ("RY-93")."""
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    assert secrets.mask_continued_head("Key: SECRET-CANA", "RY-93") == "[REDACTED]"
    assert secrets.mask_continued_head("Key: SECRET-\nCANA", "RY-\n93") == "[REDACTED]"  # reflowed
    assert secrets.mask_continued_head("Key: SE", "CR") == "[REDACTED]"  # SECR: as long as a cut edge hidden
    assert secrets.mask_continued_head("Key: S", "EC") == "EC"  # SEC: shorter than any edge hidden
    assert secrets.mask_continued_head("Key: SECRET-CANA", "Rome") == "Rome"  # not the secret
    assert secrets.mask_continued_head("Key: SECRET-CANA", "   ") == "   "


@pytest.mark.parametrize(("previous", "text"), [("Key: alpha", "bravo7 charlie9 done"), ("Key: alpha bravo7", "charlie9 done")])
def test_the_rest_of_a_passphrase_cut_between_two_words_is_hidden_in_the_logs(previous, text):
    """The cut fell on the space between two words of a passphrase, and the readers drop a
    reply's leading and trailing whitespace: the two parts met without it, and the continuation
    round's logs showed the passphrase's last words."""
    secrets = secret_forms({"alpha bravo7 charlie9"})
    assert secrets.mask_continued_head(previous, text) == "[REDACTED] done"
    assert secrets.mask_continued_head("Key: alpha", "romeo done") == "romeo done"


def test_the_rest_of_a_secret_sent_after_a_space_is_hidden_in_the_logs():
    """The continuation began with a space the chat leaves out where the two parts make a
    secret (``loop._secret_across``); the logs kept it, and showed the key's rest."""
    secrets = secret_forms({"SECRET-CANARY-93c1d7"})
    assert secrets.mask_continued_head("Key: SECRET-CANA", " RY-93c1d7 done") == "[REDACTED] done"
    assert secrets.mask_continued_head("Key: SECRET-CANA", " Rome is far") == " Rome is far"


def test_two_forms_as_long_at_one_place_hide_the_same_whatever_the_process():
    """Secrets "ab c" and "abcd" both stand at the start of "ab\\ncd": the one that hides more is
    tried first, in every process (the order of a set changes with the hash seed)."""
    assert secret_forms({"ab c", "abcd"}).redact("ab\ncd") == "[REDACTED]"
    assert secret_forms({"abcd", "ab c"}).redact("x ab\ncd y") == "x [REDACTED] y"


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_a_secret_streamed_with_a_character_escaped_is_hidden_whatever_the_pieces(size):
    """``&#4`` ending a piece may be the start of an escaped character of the secret: held."""
    text = f"Your key is {SECRET.replace('-', '&#45;', 1)}. ok"
    hold = TextHold(FORMS)
    shown = "".join(hold.add(text[n : n + size]) for n in range(0, len(text), size)) + hold.flush()
    assert shown == "Your key is [REDACTED]. ok"


def cut_turn(content, answer: str, finish_reason: str | None = "length", opaque_body=None) -> ModelTurn:
    return ModelTurn(thought=answer, decision=FinalAnswer(answer), usage=LLMUsage.empty_usage(),
                     finish_reason=finish_reason, raw=answer, content=content, opaque_body=opaque_body)


def test_a_reply_cut_inside_a_secret_goes_back_without_its_start_and_with_the_rest_as_sent():
    answer = f"Your key is {SECRET[:9]}"
    reasoning = {"type": "text", "data": f"<think>{SECRET[:9]} is what the user gave</think>"}
    body = {"signature": "abc", "text": answer}
    turn = cut_turn([{"type": "image", "data": "x"}, reasoning, {"type": "text", "data": answer}], answer,
                    opaque_body=body)
    sent = cut_reply_masked(turn, FORMS)
    assert sent.content[:2] == turn.content[:2]  # what is before the edge is as the plugin sent it
    assert sent.content[2] == {"type": "text", "data": "Your key is [REDACTED]"}
    assert sent.opaque_body is body
    assert sent.decision == FinalAnswer("Your key is [REDACTED]")
    assert (sent.thought, sent.raw) == ("Your key is [REDACTED]", "Your key is [REDACTED]")
    assert sent.cut and turn.decision.text == answer  # the loop still joins the original answer


@pytest.mark.parametrize("answer", [f"Your key is {SECRET[:3]}", "Your key is below.", f"Key: {SECRET}"])
def test_a_cut_reply_without_a_start_of_a_secret_at_its_edge_goes_back_as_it_came(answer):
    turn = cut_turn(answer, answer)
    assert cut_reply_masked(turn, FORMS) is turn


def test_a_reply_not_cut_or_a_run_without_secrets_goes_back_as_it_came():
    answer = f"Your key is {SECRET[:9]}"
    assert cut_reply_masked(cut_turn(answer, answer, finish_reason="stop"), FORMS).content == answer
    assert cut_reply_masked(cut_turn(answer, answer), secret_forms(set())).content == answer
    assert cut_reply_masked(cut_turn(answer, answer), FORMS).content == "Your key is [REDACTED]"


# --- a text given in pieces (ReAct's scratchpad): each piece redacted once -----------------------


class CountingForms:
    """``FORMS`` with the texts it redacted noted."""

    def __init__(self, forms):
        self._forms = forms
        self.redacted: list[str] = []
        self.reach = forms.reach

    def __bool__(self):
        return True

    def redact(self, text):
        self.redacted.append(text)
        return self._forms.redact(text)

    def holds(self, text):
        return self._forms.holds(text)


@given(
    cuts=st.lists(st.integers(0, 60), max_size=6),
    filler=st.lists(st.sampled_from(["plain ", "sk", "\n", SECRET[:5], SECRET[5:], SECRET.replace("-", "%2D"),
                                     "\\u002d", " x" * 40, SECRET.upper(), "s"]), max_size=12),
)
@settings(max_examples=300, deadline=None)
def test_a_text_redacted_piece_by_piece_is_the_text_redacted_whole(cuts, filler):
    """Property: however a text holding secrets (whole, split, escaped, upper-cased) is cut into
    pieces, the pieces redacted by ``PieceRedactor`` join to the whole text redacted."""
    text = "".join(filler) + f" key {SECRET} end"
    bounds = sorted({min(cut * 3, len(text)) for cut in cuts} | {0, len(text)})
    pieces = [text[a:b] for a, b in pairwise(bounds)]
    by_piece = PieceRedactor(FORMS)
    out = by_piece(pieces)
    assert len(out) == len(pieces) and "".join(out) == FORMS.redact(text)
    assert "".join(by_piece(pieces)) == FORMS.redact(text)  # again, from what it remembered


def test_a_react_scratchpad_of_forty_rounds_has_each_round_redacted_once():
    """Each round the scratchpad is a new message made of the rounds' texts: only the new
    round's text is redacted, and a secret the model wrote across two rounds is hidden."""
    forms = CountingForms(FORMS)
    redact = prompt_redactor(forms)
    rounds = [f"Thought: step {n}\nObservation: result {n} " + "data " * 200 for n in range(40)]
    rounds[20] += SECRET[:8]  # a round ends with the start of the secret, the next goes on with it
    rounds[21] = SECRET[8:] + rounds[21]
    for count in range(1, len(rounds) + 1):
        pieces = [p for n in range(count) for p in ([rounds[n]] if n == 0 else ["\n", rounds[n]])]
        sent = redact([in_pieces(AssistantPromptMessage(content="".join(pieces)), pieces)])[0]
        assert sent.content == FORMS.redact("".join(pieces))
    assert SECRET[:8] not in sent.content and "[REDACTED]" in sent.content
    assert sorted(forms.redacted, key=len)[-1].count("Thought:") == 2  # rounds 20 and 21 as one unit
    assert sum(len(text) for text in forms.redacted) < 2.5 * len(sent.content)  # not 40 x the history
