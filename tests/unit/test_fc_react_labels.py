"""Function Calling reads a ReAct step written as text with the labels ReAct reads: Chinese,
Japanese and Korean (``思考：``, ``行动：``, ``行动输入：``, ``最终答案：``...) as well as English, and an
action written as one ``{"action": ..., "action_input": ...}`` object under its label (fenced, under
a ``### Action`` heading, an invented observation after it). The labels come from one table, the
ReAct parser's (``react.parser.label_forms``), with the Japanese and Korean forms translations of
LangChain's ReAct template use (``考え：``, ``アクション：``, ``アクション入力：``, ``最終的な答え：``,
``액션:``, ``액션 입력:``). Found by the wave-35 fuzz campaign (docs/fuzzing.md):
such a step was streamed as the answer or asked again, never run. Each reply is read whole and in
pieces of 1 and 7 characters, through both strategies, which must agree."""

import json

import pytest

from agent_core.function_calling.turn import read_function_calling_turn
from agent_core.model_call import ModelChunk
from agent_core.react.parser import label_forms
from agent_core.react.turn import read_react_turn
from agent_core.tool_schema import ToolRegistry
from agent_core.turn import FinalAnswer
from tests.unit.helpers import drain
from tests.unit.test_real_world_2026 import Case, chunks_of, reply_test, tool

WEATHER = tool("get_weather", "city")
TOOLS = (WEATHER,)
PARIS = [("get_weather", {"city": "Paris"})]
INPUT = json.dumps({"city": "Paris"})
BLOB = "```json\n" + json.dumps({"action": "get_weather", "action_input": {"city": "Paris"}}) + "\n```"
HIDDEN = ("get_weather", "Paris")


def read(strategy: str, case: Case, size: int | None):
    chunks = iter(chunks_of(case, size))
    registry = ToolRegistry(list(case.tools))
    if strategy == "react":
        return drain(read_react_turn(chunks, registry, 1))
    return drain(read_function_calling_turn(chunks, registry.prompt_tools(), reasoning_probe=False))


def step(text: str) -> Case:
    return Case(TOOLS, text, calls=PARIS, hidden=HIDDEN)


CASES = {
    # ---- run ------------------------------------------------------------------------------------
    "chinese-fullwidth-colons": step(f"思考：我需要查天气。\n行动：get_weather\n行动输入：{INPUT}"),
    "chinese-ascii-colons": step(f"思考: 我需要查天气。\n行动: get_weather\n行动输入: {INPUT}"),
    "chinese-dongzuo": step(f"想法：查一下。\n动作：get_weather\n动作输入：{INPUT}"),
    "japanese": step(f"行動：get_weather\n行動入力：{INPUT}"),
    "traditional-chinese": step(f"行動：get_weather\n行動輸入：{INPUT}"),
    "korean": step(f"생각: 날씨를 확인해야 한다.\n행동: get_weather\n행동 입력: {INPUT}"),
    "chinese-bold": step(f"**思考：** 查天气\n**行动：** get_weather\n**行动输入：** {INPUT}"),
    "chinese-headings": step(f"### 思考\n查天气\n### 行动\nget_weather\n### 行动输入\n{INPUT}"),
    "chinese-emoji": step(f"💭 思考：查天气\n🔧 行动：get_weather\n行动输入：{INPUT}"),
    "chinese-invented-observation": step(f"思考：查\n行动：get_weather\n行动输入：{INPUT}\n观察：晴天"),
    "korean-invented-observation": step(f"생각: 확인\n행동: get_weather\n행동 입력: {INPUT}\n관찰: 맑음"),
    "blob-under-a-heading": step(f"Thought: look it up\n### Action\n\n{BLOB}\n👀 Observation: made up"),
    "blob-under-a-chinese-label": step(f"思考：查\n🔧 行动: \n{BLOB}\n观察: made up"),
    "blob-under-a-japanese-label": step(f"思考: 確認\n👉 行動: \n{BLOB}\n**観察:** made up"),
    "blob-under-a-korean-heading": step(f"💭 생각: 확인\n### 행동\n\n{BLOB}\n관찰: made up"),
    # Japanese and Korean as translations of LangChain's ReAct template write them
    "japanese-langchain-translation": step(f"考え: 天気を調べる必要がある\nアクション: get_weather\nアクション入力: {INPUT}"),
    "japanese-input-label-spaced": step(f"考え：確認する\nアクション：get_weather\nアクション 入力：{INPUT}\n観察：晴れ"),
    "japanese-bold-katakana": step(f"**考え:** 確認\n**アクション:** get_weather\n**アクション入力:** {INPUT}"),
    "korean-aeksyeon": step(f"생각: 확인\n액션: get_weather\n액션 입력: {INPUT}\n관찰: 맑음"),
    # ---- the answer, as ReAct reads it --------------------------------------------------------------
    "japanese-final-step": Case(TOOLS, "考え: 最終的な答えが分かった\n最終的な答え: 晴れです。", answer="晴れです。",
                                hidden=("考え", "分かった")),
    "japanese-final-kaitou": Case(TOOLS, "思考：分かりました\n最終的な解答：晴れです。", answer="晴れです。",
                                  hidden=("思考", "分かりました")),
    "chinese-final-step": Case(TOOLS, "思考：我知道了。\n最终答案：巴黎今天晴。", answer="巴黎今天晴。", hidden=("思考", "我知道了")),
    "korean-final-step": Case(TOOLS, "생각: 알겠다.\n최종 답변: 맑음.", answer="맑음.", hidden=("생각", "알겠다")),
    # ---- not run: shown as written --------------------------------------------------------------------
    "chinese-plan-in-an-answer": Case(TOOLS, "我们的行动计划如下：\n行动：先查天气\n然后回家。",
                                      answer="我们的行动计划如下：\n行动：先查天气\n然后回家。", only=("fc",)),
    "chinese-step-naming-no-tool": Case(TOOLS, f"行动：make_coffee\n行动输入：{INPUT}",
                                        answer=f"行动：make_coffee\n行动输入：{INPUT}", only=("fc",)),
    "japanese-kangae-inside-a-line": Case(TOOLS, "私の考え: まず確認します。\nアクション: 傘を持つ",
                                          answer="私の考え: まず確認します。\nアクション: 傘を持つ", only=("fc",)),
    "chinese-step-in-a-fence": Case(TOOLS, f"步骤这样写：\n```\n行动：get_weather\n行动输入：{INPUT}\n```",
                                    answer=f"步骤这样写：\n```\n行动：get_weather\n行动输入：{INPUT}\n```", only=("fc",)),
}

test_real_world_reply = reply_test(CASES, {}, read)


@pytest.mark.parametrize("words", label_forms("action"))
def test_every_action_label_of_reacts_table_runs_in_function_calling(words):
    """Function Calling's readers are built from ReAct's table: a label added there is read here."""
    # the input label of the same language: "Action Input", "行动输入"; in Spanish the action word
    # comes last ("Entrada de la acción")
    inputs = [form for form in label_forms("action_input") if words[0] in (form[0], form[-1])]
    text = f"{' '.join(words)}: get_weather\n{' '.join(inputs[0])}: {INPUT}"
    for size in (None, 1):
        streamed, turn = read("fc", Case(TOOLS, text), size)
        assert [(c.name, c.arguments) for c in turn.decision.calls] == PARIS, text
        assert "Paris" not in streamed



@pytest.mark.parametrize("size", [None, 1, 3])
@pytest.mark.parametrize("text", ["Thought: done.\nFinal Answer: The key is abc ", "思考：好了。\n最终答案：密钥是 abc "])
def test_a_final_step_cut_by_the_output_limit_shows_its_answer_without_the_labels(text, size):
    """A ReAct final step in Function Calling, cut inside its answer: the user read the labels
    ('Thought: done.\nFinal Answer: The key is abc' and then its rest). The answer keeps its end:
    the continuation goes on from it."""
    pieces = [text] if size is None else [text[i : i + size] for i in range(0, len(text), size)]
    chunks = iter([*(ModelChunk(text=p) for p in pieces), ModelChunk(finish_reason="length")])
    shown, turn = drain(read_function_calling_turn(chunks, ["get_weather"], reasoning_probe=False))
    answer = text.split("Answer: ")[-1].split("答案：")[-1]
    assert shown == answer
    assert turn.decision == FinalAnswer(answer) and turn.cut


def test_a_cut_final_step_with_a_step_written_on_after_it_is_left_as_it_was():
    text = 'Thought: done.\nFinal Answer: Paris\nAction: get_weather\nAction Input: {"city": "Pa'
    chunks = iter([ModelChunk(text=text), ModelChunk(finish_reason="length")])
    _, turn = drain(read_function_calling_turn(chunks, ["get_weather"], reasoning_probe=False))
    assert not (isinstance(turn.decision, FinalAnswer) and turn.decision.text == "Paris")
