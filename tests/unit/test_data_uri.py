"""Unit tests for agent_core.data_uri: long inline base64 URIs in a tool result shortened for the
model (langgenius/dify#22618: an MCP tool's chart as ``{"img_base64": "data:image/png;base64,..."}``)."""

import base64
import json

from agent_core import data_uri
from agent_core.observation import ObservationCollector


def png(size: int) -> str:
    return base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(size)).decode()


def test_a_long_payload_is_replaced_by_its_size_and_the_type_stays():
    text = json.dumps({"title": "Sales", "img_base64": f"data:image/png;base64,{png(150_000)}"})
    shown = data_uri.shorten(text)
    assert shown == json.dumps({"title": "Sales",
                                "img_base64": "data:image/png;base64,[146 KB of base64 data not shown to the model]"})


def test_a_small_icon_and_text_without_a_uri_come_back_as_they_are():
    icon = f"<img src='data:image/gif;base64,{png(300)}'/>"
    assert data_uri.shorten(icon) == icon
    plain = "no data here, only base64, mentioned"
    assert data_uri.shorten(plain) is plain


def test_parameters_a_bare_type_and_several_uris_in_one_text():
    one, two = png(4000), png(9000)
    text = f"a data:image/svg+xml;charset=utf-8;base64,{one} b data:;base64,{two} c"
    assert data_uri.shorten(text) == (
        "a data:image/svg+xml;charset=utf-8;base64,[3 KB of base64 data not shown to the model]"
        " b data:;base64,[8 KB of base64 data not shown to the model] c")


def test_sizes_read_as_bytes_kilobytes_and_megabytes():
    assert data_uri.format_size(1000) == "750 bytes"
    assert data_uri.format_size(4096) == "3 KB"
    assert data_uri.format_size(4_400_000) == "3.1 MB"


def test_the_observation_is_shortened_and_the_log_keeps_the_whole_result():
    payload = png(60_000)
    collector = ObservationCollector("make_chart", max_tokens=100_000)
    collector.add({"type": "text", "message": {"text": f"chart: data:image/png;base64,{payload}"}})
    outcome = collector.finish()
    assert outcome.observation == "chart: data:image/png;base64,[58 KB of base64 data not shown to the model]"
    assert payload in outcome.full_text and outcome.truncated_tokens == 0
