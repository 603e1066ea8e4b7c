"""A secret never leaves the tool call: redacted before anything is cut or reflowed, hidden when
a cut splits it, and links or files that carry it are withheld (agent_core.observation)."""

from agent_core import prompts
from agent_core.observation import FULL_TEXT_MAX_CHARS, ObservationCollector

SECRET = "sk-CANARY-7f3a91b2c4"


def collect(*messages, error=None, secrets=(SECRET,)):
    collector = ObservationCollector("tool", secrets=secrets)
    forwarded = [m for message in messages for m in collector.add(message)]
    if error is not None:
        collector.fail(error)
    return collector.finish(), forwarded


def text(value):
    return {"type": "text", "message": {"text": value}, "meta": None}


def test_a_secret_cut_by_the_full_text_cap_leaves_no_part_of_it():
    filler = "x" * (FULL_TEXT_MAX_CHARS - 8)
    outcome, _ = collect(text(filler + SECRET))
    assert SECRET[:6] not in outcome.full_text and SECRET[:6] not in outcome.observation


def test_a_secret_in_an_error_cut_to_its_cap_is_hidden():
    outcome, _ = collect(error=RuntimeError("failed: " + "y" * 585 + SECRET))
    assert SECRET[:5] not in outcome.observation and SECRET not in outcome.full_text


def test_a_secret_reflowed_by_whitespace_normalisation_is_still_redacted():
    secret = "pass\tword-for-the-crm"
    outcome, _ = collect(error=RuntimeError("auth with pass word-for-the-crm\nfailed"), secrets=(secret,))
    assert "word-for-the-crm" not in outcome.observation


def test_url_encoded_secret_in_a_link_withholds_the_link():
    link = {"type": "image_link", "message": {"text": "https://cdn.example.com/a.png?key=sk-CANARY-7f3a91b2c4"}, "meta": None}
    outcome, forwarded = collect(link)
    assert forwarded == []
    assert prompts.WITHHELD.format(kind="image link") in outcome.observation
    assert SECRET not in outcome.observation


def test_a_file_named_after_the_secret_is_withheld_an_ordinary_one_is_sent():
    named = {"type": "blob", "message": {"blob": "aGVsbG8="}, "meta": {"filename": f"{SECRET}.csv", "mime_type": "text/csv"}}
    plain = {"type": "blob", "message": {"blob": "aGVsbG8="}, "meta": {"filename": "report.csv", "mime_type": "text/csv"}}
    outcome, forwarded = collect(named, plain)
    assert len(forwarded) == 1 and SECRET not in outcome.observation


def test_retriever_resources_are_forwarded_with_their_text_redacted():
    resource = {"type": "retriever_resources", "meta": None, "message": {
        "retriever_resources": [{"content": f"token {SECRET} inside", "position": 1, "title": "doc"}], "context": ""}}
    outcome, forwarded = collect(resource)
    assert forwarded and SECRET not in forwarded[0].model_dump_json()
    assert SECRET not in outcome.observation
