"""The task suite (``python -m local_runner tasks``) through the real plugin process.

With a scripted model here (fast, always run); on the real local model in test_local_model.py (slow)."""

from local_runner.backends import ScriptedBackend
from local_runner.scenario import ModelSettings
from local_runner.tasks import Suite, run_suite

MODEL = ModelSettings(model="scripted", mode="completion", features=[], completion_params={"temperature": 0})


def test_a_right_react_run_passes_and_a_wrong_one_says_why(plugin):
    suite = Suite.load().select(["fever_celsius"])
    right = ScriptedBackend([
        {"text": ' I will use unit_convert.\nAction: unit_convert\nAction Input: {"value": 100, "from_unit": "F", "to_unit": "C"}'},
        {"text": " I know the final answer.\nFinal Answer: 100 F = 37.7778 C"},
    ])
    (outcome,) = run_suite(suite, ["ReAct"], MODEL, right, plugin).outcomes
    assert outcome.ok, outcome.problems
    assert [(c.name, c.ok) for c in outcome.calls] == [("unit_convert", True)]
    assert outcome.llm_calls == 2 and outcome.tokens and outcome.model_outputs[1].endswith("37.7778 C")

    guess = ScriptedBackend([{"text": " I know the final answer.\nFinal Answer: 38 C\n\nQuestion: and 50 F?"}])
    (outcome,) = run_suite(suite, ["ReAct"], MODEL, guess, plugin).outcomes
    assert not outcome.ok
    assert outcome.problems == ["answer lacks the number 37.78", "answer goes on with 'Question:' (invented dialogue)",
                                "unit_convert not called"]


def test_same_model_outputs_give_the_same_fingerprint(plugin):
    suite = Suite.load().select(["capital", "weekdays"])

    def backend() -> ScriptedBackend:
        return ScriptedBackend([{"text": " I know the final answer.\nFinal Answer: Paris"},
                                {"text": " I know the final answer.\nFinal Answer: 7"}])

    first = run_suite(suite, ["ReAct"], MODEL, backend(), plugin)
    second = run_suite(suite, ["ReAct"], MODEL, backend(), plugin)
    assert first.rate("ReAct") == (2, 2)
    assert first.fingerprint() == second.fingerprint()
