"""Through the real plugin, in both strategies: a tool file at a Dify address reaches the user
with its address, and the model reads its name only (agent_core.observation, "Addresses").

Dify gives tool files internal, signed addresses valid for minutes
(``http://api:5001/files/tools/<id>.png?timestamp=..&nonce=..&sign=..``, Dify
``core/tools/signature.py`` ``sign_tool_file``); a model told that address repeats it in its
answer as a broken image or link. External links a tool returns keep their URL.
"""

import json

import pytest

from local_runner.tools import ScriptedTool
from tests.e2e.helpers import STRATEGIES, answer_turn, assert_clean, observations

SIGNED_IMAGE = "http://api:5001/files/tools/3f9a2c7e.png?timestamp=1732550000&nonce=ab12&sign=Zm9vYmFy"
SIGNED_FILE = "http://api:5001/files/tools/91bd.csv?timestamp=1732550000&nonce=cd34&sign=YmFyYmF6"
EXTERNAL = "https://docs.example.com/guide?page=2"


def render_tool() -> ScriptedTool:
    responses = [
        {"type": "image_link", "message": {"text": SIGNED_IMAGE}, "meta": {"tool_file_id": "3f9a2c7e"}},
        {"type": "link", "message": {"text": SIGNED_FILE}, "meta": {"tool_file_id": "91bd", "filename": "sales.csv"}},
        {"type": "link", "message": {"text": EXTERNAL}, "meta": None},
    ]
    return ScriptedTool(name="render", description="Renders a chart", parameters=[], responses=responses)


def call_turn(strategy: str) -> dict:
    if strategy == "ReAct":
        action = json.dumps({"action": "render", "action_input": {}})
        return {"text": f"Thought: I will render it.\nAction:\n```json\n{action}\n```"}
    return {"tool_calls": [{"id": "call_1", "name": "render", "arguments": "{}"}]}


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_dify_file_addresses_reach_the_user_and_only_names_reach_the_model(run, strategy):
    result = run(
        [call_turn(strategy), answer_turn(strategy, "Here is your chart.")],
        query="Chart my sales.",
        tools=[render_tool()],
        strategy=strategy,
    )
    assert_clean(result, run)
    assert [(f["type"], f["text"]) for f in result.files] == [("image_link", SIGNED_IMAGE), ("link", SIGNED_FILE)]
    (seen,) = observations(result.llm_requests[1])
    assert "An image was sent to the user: 3f9a2c7e.png. It is shown with your answer" in seen
    assert "A file was sent to the user: sales.csv. It is shown with your answer" in seen
    assert f"result link: {EXTERNAL}." in seen, "an external link keeps its URL"
    prompt = json.dumps(result.llm_requests[1]["prompt_messages"])
    for fragment in ("/files/tools", "sign=", "api:5001"):
        assert fragment not in prompt, fragment
