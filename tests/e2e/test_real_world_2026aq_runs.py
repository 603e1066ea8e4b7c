"""The forty-second real-world pass (the newest families' call markup and answer framing) through
the real plugin, in both strategies: a representative subset of tests/unit/test_real_world_2026aq.py
(its sources are named there), each reply streamed in pieces as the model plugin would send it.

A call case must reach its tool once with the arguments the model wrote, the run then ending with
the next turn's answer and none of the markup shown: Kimi K2.7's ``functions_NAME_IDX`` id
(exo-explore/exo#2281), Hunyuan's ``<tool_calls>`` block with a fenced JSON body (hiyouga/LlamaFactory
PR #10771) and a Qwen3-Coder value quoting ``</tool_call>`` (raullenchai/Rapid-MLX#1515), the three
the pass fixed, beside Qwen3-Coder's bare ``<function=`` after a sentence (jundot/omlx PR #844),
GLM-4.7's call without arguments (vllm-project/vllm PR #32097), Devstral 2's ``[ARGS]`` form
(waybarrios/vllm-mlx PR #631), DeepSeek V3.2's DSML (smg-project/smg PR #895) and gpt-oss's
analysis-channel call with a ``code`` constraint (ai-dynamo/dynamo PR #10366). An answer case
must show the answer alone: ERNIE 4.5's ``<response>`` frame (vllm-project/vllm PR #25027) and
Seed-OSS's ``<seed:think>`` block (vllm-project/vllm PR #23241). Each model is served as the
report served it, by the user's own OpenAI-compatible server under the report's model name
(a hosted model's reply is not read as starting inside a reasoning block its template opened)."""

import pytest

from tests.e2e.helpers import (
    SELF_SERVED,
    STRATEGIES,
    answer_turn,
    assert_clean,
    assert_clean_end,
    named_tool,
    tools_ran,
)
from tests.unit.test_real_world_2026aq import CASES

RUNS = [
    # (case id, characters a piece of the streamed reply holds, the model as the user's server names it)
    ("exo2281-kimi-k27-underscore-call-id", 6, "Kimi-K2.7-Code"),
    ("llamafactory10771-hunyuan-tool-calls-block", 5, "Hunyuan-A13B-Instruct"),
    ("rapidmlx1515-qwen36-parameter-quoting-tool-call-end", 7, "qwen3.6-35b-4bit"),
    ("omlx844-qwen3-coder-sentence-then-bare-function", 9, "Qwen3-Coder-30B-A3B-Instruct-4bit"),
    ("vllm32097-glm47-call-without-arguments", 4, "GLM-4.7"),
    ("vllmmlx631-devstral2-tool-calls-args-marker", 3, "Devstral-Small-2-24B-Instruct-2512"),
    ("smg895-deepseek-v32-dsml-function-calls", 8, "deepseek-v3.2"),
    ("dynamo10366-gptoss-analysis-call-code-constraint", 5, "gpt-oss-120b"),
    ("vllm25027-ernie45-response-frame", 6, "ERNIE-4.5-21B-A3B-Thinking"),
    ("vllm23241-seed-oss-think-block-in-content", 7, "Seed-OSS-36B-Instruct"),
]


def _as_declared(calls: list[tuple[str, dict]]) -> list[tuple[str, dict]]:
    """The calls as the tools receive them: every parameter of these tools is declared a string,
    and the plugin hands a typed value (DSML's ``string="false"`` count, ``5``) on as one."""
    return [(name, {key: value if isinstance(value, str) else str(value) for key, value in arguments.items()})
            for name, arguments in calls]


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize(("name", "split", "model"), RUNS, ids=[name for name, _, _ in RUNS])
def test_real_world_reply_through_the_plugin(run, strategy, name, split, model):
    case = CASES[name]
    tools = [named_tool(t.identity.name, *(p.name for p in t.parameters)) for t in case.tools]
    reply = {"text": case.content, "split": split}
    served = dict(SELF_SERVED, model=model)
    if case.calls is not None:
        turns = [reply, answer_turn(strategy, "All done.")]
        result = run(turns, query="Go ahead.", tools=tools, strategy=strategy, model=served)
        assert_clean(result, run)
        assert tools_ran(result) == _as_declared(case.calls)
        assert result.text.endswith("All done.")
    else:
        result = run([reply], query="Go ahead.", tools=tools, strategy=strategy, model=served)
        assert_clean_end(result)
        assert tools_ran(result) == []
        assert result.text.strip() == case.answer
    for text in case.hidden:
        assert text not in result.text
