"""The forty-third real-world pass (ReAct output that agent frameworks misread) through the real
plugin (see tests/unit/test_real_world_2026ar.py for the shapes and sources). One table, each row a
reply as a model wrote it, played in pieces of 7 characters: the calls that must reach the node's
tools, what the user must see at the end, and what of the reply must never be shown.

GPT-3.5's ReAct steps in Spanish (jacarma/mortadelo) run their action and show only the text
after ``Respuesta final:`` (both were shown whole, labels and all, and the search never ran);
Claude's ``$JSON_BLOB`` line in the fence (langchain-ai/langchainjs#1399) runs the blob; a
``Final Answer`` blob whose text holds a code block (langchain-ai/langchain#15069) is shown whole;
Python code over several lines as an Action Input (langchain-ai/langchain#13730) reaches the tool
whole; phi3's Action line with the tool's description after its name (crewAIInc/crewAI#674)
runs the tool; LlamaIndex's ``Answer:`` label (run-llama/llama_index#18094) is the answer; an
Action Input with no Action (langchain-ai/langchain#4955) is asked again, never shown."""

from typing import NamedTuple

import pytest

from tests.e2e.helpers import answer_turn, assert_clean, named_tool

BOTH = ("function_calling", "ReAct")
REACT = ("ReAct",)


class Row(NamedTuple):
    reply: str  # the model's reply, played in pieces of 7 characters
    tool: tuple[str, ...]  # the node's one tool: its name, then its parameters
    calls: list[dict]  # the tool parameters of each call that must reach the tool, in order
    answer: str  # what the user must see at the end of the run
    then: bool  # whether the answer comes in a second turn (after the call, or after asking again)
    hidden: tuple[str, ...]  # text of the reply the user must never see
    strategies: tuple[str, ...] = REACT


ROWS = {
    "mortadelo-spanish-step-runs-its-action": Row(
        "No conozco el temario de cuarto curso de primaria en Valencia, por lo que necesitaré buscar esa "
        'información en Internet.\nAcción: search\nEntrada de la acción: "temario cuarto curso primaria Valencia"\n',
        ("search", "query"), [{"query": "temario cuarto curso primaria Valencia"}],
        "Matemáticas, Valenciano y Lengua castellana.", True, ("Acción", "Entrada de la acción"), BOTH,
    ),
    "mortadelo-spanish-final-answer-shown-clean": Row(
        "Pensamiento: El decreto mencionado podría contener la información que necesito.\nRespuesta final: Según "
        "el Decreto 108/2014, el temario incluye:\n\n- Matemáticas\n- Valenciano",
        ("search", "query"), [], "Según el Decreto 108/2014, el temario incluye:\n\n- Matemáticas\n- Valenciano",
        False, ("Pensamiento", "Respuesta final", "podría contener"), BOTH,
    ),
    "langchainjs1399-json-blob-placeholder-line": Row(
        'Action:\n```\n$JSON_BLOB  \n{\n  "action": "my_action_name", \n  "action_input": "the action input goes here"\n}\n```',
        ("my_action_name", "input"), [{"input": "the action input goes here"}], "Done.", True, ("$JSON_BLOB",),
    ),
    "langchain15069-final-answer-blob-with-code": Row(
        '```json\n{\n  "action": "Final Answer",\n  "action_input": "Here is some basic Oceananigans code:\\n\\n'
        '```julia\\nusing Oceananigans\\n\\nmodel = NonhydrostaticModel(grid=grid)\\n```\\n\\nThe model is created '
        'with default settings."\n}\n```',
        ("search", "query"), [],
        "Here is some basic Oceananigans code:\n\n```julia\nusing Oceananigans\n\nmodel = NonhydrostaticModel(grid=grid)"
        "\n```\n\nThe model is created with default settings.", False, ('"action"', "action_input"),
    ),
    "langchain13730-python-code-input-reaches-the-tool-whole": Row(
        "Thought: Do I need to use a tool? Yes\nAction: Python_REPL\nAction Input: import pandas as pd\n"
        "df = pd.read_csv('./statics/20231123_000614_test.csv')\nline_count = len(df)\nline_count",
        ("Python_REPL", "query"),
        [{"query": "import pandas as pd\ndf = pd.read_csv('./statics/20231123_000614_test.csv')\nline_count = len(df)"
                   "\nline_count"}], "The file has 120 lines.", True, ("import pandas",),
    ),
    "crewai674-tool-description-on-the-action-line": Row(
        "Thought: I now can give a great answer\nAction: Internet Search Tool(user_query) - Scrapes the weblinks for "
        'the query based on user input.\nAction Input: {"query": "who is Virat Kohlis son?"}\n',
        ("Internet Search Tool", "query"), [{"query": "who is Virat Kohlis son?"}], "His son is Akaay.", True,
        ("Scrapes the weblinks",),
    ),
    "llamaindex18094-answer-label": Row(
        "Thought: The user greeted again. I will respond with a greeting and ask how I can assist them.\n"
        "Answer: Hello! How can I assist you today?",
        ("search", "query"), [], "Hello! How can I assist you today?", False, ("Thought", "greeted again"), BOTH,
    ),
    "langchain4955-action-input-without-action-is-asked-again": Row(
        "**Thought**: The user is initiating a small talk conversation\n"
        "**Action Input**: Hi Bob, I am Sam, your personal assistant. How can I assist you today?",
        ("Small_Talk", "query"), [], "Hi Bob! I am Sam. How can I help?", True, ("initiating a small talk",),
    ),
}


PARAMS = [pytest.param(name, strategy, id=f"{name}-{strategy}") for name, row in ROWS.items()
          for strategy in row.strategies]


@pytest.mark.parametrize(("name", "strategy"), PARAMS)
def test_real_world_react_reply_runs(run, name, strategy):
    row = ROWS[name]
    turns = [{"text": row.reply, "split": 7}] + ([answer_turn(strategy, row.answer)] if row.then else [])
    outputs = tuple("done" for _ in row.calls) or ("done",)
    result = run(turns, query="Help me, please.", tools=[named_tool(*row.tool, outputs=outputs)], strategy=strategy)
    assert_clean(result, run)
    assert [r["tool_parameters"] for r in result.tool_requests] == row.calls
    assert result.text.strip().endswith(row.answer.strip())
    for text in row.hidden:
        assert text not in result.text, text
