"""A forty-third set of real-world cases: ReAct output as real models wrote it and agent frameworks
(LangChain and LangChain.js, LlamaIndex, CrewAI, a LangChain-style agent in Spanish) misread it.
LangChain's JSON-blob ReAct (the structured chat and conversational chat agents): Claude's literal
``$JSON_BLOB`` line in the fence, ChatOpenAI's ``json`` word before the object, an
``action_input`` that is a nested object, a string holding a fenced block, a ``Final Answer`` whose
text holds a code block, a ``query`` key instead of ``action_input``, a model that echoed the
prompt's placeholder blob; and the text ReAct: an Action Input of Python code over several lines, a
tool name in brackets or followed by its description (phi3 through Ollama), ``Answer:`` alone
(LlamaIndex's label), the word ``Action:`` inside an answer, the conversational agent's ``AI:``
prefix and its bare "Do I need to use a tool? No", an Action Input with no Action, a tool named
with a verb before it, a JavaScript template literal as the input, a document written before a
short ``Final Answer``, and GPT-3.5 writing the whole format in Spanish (``Acción:``, ``Entrada de
la acción:``, ``Respuesta final:``).

Replies are read through both strategies' turn readers, whole and in pieces of 1 and 7 characters
(``test_real_world_2026.reply_test``); ReAct's label format is ReAct's own, so most cases are for
ReAct only. Each case names its source beside it; docs/real-world-cases.md lists them. A text is
quoted as the report shows it (trimmed where the comment says so); where the report describes
the output or shows a format and its values were filled in, the comment says "rebuilt". The tools
are declared with string parameters.
"""

import pytest

from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.test_real_world_2026 import Case, reply_test, tool
from tests.unit.test_real_world_2026d import read

REACT = ("react",)
SEARCH = tool("search", "query")

CASES = {
    # ---- LangChain's JSON-blob ReAct -------------------------------------------------------------
    # langchain-ai/langchainjs#1399: Claude copies the prompt's `$JSON_BLOB` placeholder into the
    # fence above the object (the example, verbatim)
    "langchainjs1399-claude-json-blob-placeholder-line-in-the-fence": Case(
        (tool("my_action_name", "input"),),
        'Action:\n```\n$JSON_BLOB  \n{\n  "action": "my_action_name", \n  "action_input": "the action input goes here"\n}\n```',
        calls=[("my_action_name", {"input": "the action input goes here"})], hidden=("$JSON_BLOB", '"action"'),
        only=REACT,
    ),
    # langchain-ai/langchain PR #7564 (for issue #7554): ChatOpenAI writes the word `json` before
    # the blob, its fence lost (the PR's response, verbatim)
    "langchain7564-chatopenai-json-word-before-the-blob": Case(
        (tool("Calculator", "expression"),),
        'json\n{\n"action": "Calculator",\n"action_input": "25% of 300"\n}',
        calls=[("Calculator", {"expression": "25% of 300"})], hidden=('"action"',), only=REACT,
    ),
    # langchain-ai/langchainjs#2576: the conversational agent's fenced blob, an object as its
    # action_input (the AIMessage in the trace, verbatim)
    "langchainjs2576-convo-agent-fenced-blob-with-an-object-input": Case(
        (tool("request", "method", "url"),),
        '```json\n{\n    "action": "request",\n    "action_input": {\n        "method": "GET",\n'
        '        "url": "https://api.klarna.com"\n    }\n}\n```',
        calls=[("request", {"method": "GET", "url": "https://api.klarna.com"})], only=REACT,
    ),
    # langchain-ai/langchainjs PR #1203: an action_input string that holds a fenced JSON block; the
    # old parser split the reply at its backticks (the PR's example, verbatim)
    "langchainjs1203-action-input-string-holding-a-json-fence": Case(
        (tool("ToolWithJson", "input"),),
        '{"action":"ToolWithJson","action_input":"The tool input ```json\\n{\\"yes\\":true}\\n```"}',
        calls=[("ToolWithJson", {"input": 'The tool input ```json\n{"yes":true}\n```'})], only=REACT,
    ),
    # langchain-ai/langchain#14520: a structured chat step whose action_input holds a nested object
    # and a backticked table name (the reproduction, verbatim)
    "langchain14520-structured-chat-nested-task-object": Case(
        (tool("programmer_agent", "task"),),
        "Thought: The user is asking for help implementing CRUD operations for a specific table in a MySQL database "
        "using the Go language. This is a programming task so I will use the programmer_agent tool to help with "
        'this. \n\nAction:\n```\n{\n  "action": "programmer_agent",\n  "action_input": {\n    "task": {\n'
        '      "title": "Implement CRUD operations for limited_relationships_config table in MySQL using Go",\n'
        '      "description": "Write functions for adding, updating, deleting, and retrieving limited relationships '
        "configurations in a MySQL database using Go. The operations will be performed on the "
        '`limited_relationships_config` table.",\n      "type": "code"\n    }\n  }\n}\n```',
        calls=[("programmer_agent", {"task": {
            "title": "Implement CRUD operations for limited_relationships_config table in MySQL using Go",
            "description": "Write functions for adding, updating, deleting, and retrieving limited relationships "
            "configurations in a MySQL database using Go. The operations will be performed on the "
            "`limited_relationships_config` table.",
            "type": "code"}})],
        hidden=("CRUD operations for a specific table",), only=REACT,
    ),
    # langchain-ai/langchain#15069: the structured chat agent's Final Answer blob whose text holds
    # a julia code block; the parser cut it at the first closing fence (verbatim)
    "langchain15069-final-answer-blob-with-a-julia-code-block": Case(
        (SEARCH,),
        '```json\n{\n  "action": "Final Answer",\n  "action_input": "Here is some basic Oceananigans code that sets up '
        'a simple simulation environment:\\n\\n```julia\\nusing Oceananigans\\n\\n# Define the grid\\ngrid = '
        "RectilinearGrid(size=(64, 64, 64), extent=(1, 1, 1))\\n\\n# Create a nonhydrostatic model\\nmodel = "
        "NonhydrostaticModel(grid=grid)\\n\\n# The model is now ready for further configuration and running a "
        "simulation.\\n```\\n\\nThis code initializes a `NonhydrostaticModel` on a 64x64x64 `RectilinearGrid` with "
        "an extent of 1x1x1 in each direction. The model is created with default settings, which you can "
        'customize according to your simulation needs."\n}\n```',
        answer="Here is some basic Oceananigans code that sets up a simple simulation environment:\n\n```julia\n"
        "using Oceananigans\n\n# Define the grid\ngrid = RectilinearGrid(size=(64, 64, 64), extent=(1, 1, 1))\n\n"
        "# Create a nonhydrostatic model\nmodel = NonhydrostaticModel(grid=grid)\n\n# The model is now ready for "
        "further configuration and running a simulation.\n```\n\nThis code initializes a `NonhydrostaticModel` on a "
        "64x64x64 `RectilinearGrid` with an extent of 1x1x1 in each direction. The model is created with default "
        "settings, which you can customize according to your simulation needs.",
        hidden=('"action"',), only=REACT,
    ),
    # langchain-ai/langchain#4112 (a maintainer's comment): the blob names the tool's own
    # parameter, `query`, where action_input belongs (verbatim)
    "langchain4112-query-key-instead-of-action-input": Case(
        (tool("Python REPL", "query"),),
        'Action:\n{\n  "action": "Python REPL",\n  "query": "import csv\\n\\nwith open(\'customer_spending.csv\', '
        "'r') as file:\\n    reader = csv.reader(file)\\n    headers = next(reader)\\n    spending = {header: [] "
        "for header in headers}\\n    for row in reader:\\n        for i, value in enumerate(row):\\n            "
        "spending[headers[i]].append(int(value))\\n\\naverage_spending = {}\\nfor category, values in "
        "spending.items():\\n    average_spending[category] = sum(values) / len(values)\\n\\n"
        'print(average_spending)"\n}',
        calls=[("Python REPL", {"query": "import csv\n\nwith open('customer_spending.csv', 'r') as file:\n    "
                                "reader = csv.reader(file)\n    headers = next(reader)\n    spending = {header: [] "
                                "for header in headers}\n    for row in reader:\n        for i, value in "
                                "enumerate(row):\n            spending[headers[i]].append(int(value))\n\n"
                                "average_spending = {}\nfor category, values in spending.items():\n    "
                                "average_spending[category] = sum(values) / len(values)\n\nprint(average_spending)"})],
        only=REACT,
    ),
    # langchain-ai/langchain#17356: Zephyr through ChatHuggingFace echoes the structured chat prompt,
    # its placeholder blob included (the echo as the issue quotes it, trimmed after the first
    # `$JSON_BLOB` fence): no node tool runs and the prompt is never shown; see the test below
    # ---- the text ReAct -------------------------------------------------------------------------
    # langchain-ai/langchain#13730: the conversational agent's Action Input is Python code over
    # several lines; LangChain passed only its first line to the tool (the logged text, verbatim;
    # the log's wrap inside `len(df)` removed)
    "langchain13730-python-code-input-over-several-lines": Case(
        (tool("Python_REPL", "query"),),
        "Thought: Do I need to use a tool? Yes\nAction: Python_REPL\nAction Input: import pandas as pd\n"
        "df = pd.read_csv('./statics/20231123_000614_test.csv')\nline_count = len(df)\nline_count",
        calls=[("Python_REPL", {"query": "import pandas as pd\ndf = pd.read_csv('./statics/20231123_000614_test.csv')"
                                "\nline_count = len(df)\nline_count"})],
        hidden=("Do I need to use a tool",), only=REACT,
    ),
    # langchain-ai/langchain#4889: the tool's name in brackets, copied from the prompt's list, and a
    # function as the input after a blank line ("[Python REPL] is not a valid tool"; verbatim)
    "langchain4889-bracketed-tool-name-and-a-function-as-input": Case(
        (tool("Python REPL", "query"),),
        "I can write a function to generate the nth fibonacci number and then call it with n=4.\n"
        "Action: [Python REPL]\nAction Input:\n\ndef fibonacci(n):\n    if n <= 1:\n        return n\n    else:\n"
        "        return fibonacci(n-1) + fibonacci(n-2)\n\nprint(fibonacci(4))\n",
        calls=[("Python REPL", {"query": "def fibonacci(n):\n    if n <= 1:\n        return n\n    else:\n"
                                "        return fibonacci(n-1) + fibonacci(n-2)\n\nprint(fibonacci(4))"})],
        hidden=("fibonacci",), only=REACT,
    ),
    # crewAIInc/crewAI#674: phi3 through Ollama copies the tool's signature and description onto
    # the Action line ("Action '...' don't exist"; verbatim)
    "crewai674-phi3-tool-description-on-the-action-line": Case(
        (tool("Internet Search Tool", "query"),),
        "Thought: I now can give a great answer\nAction: Internet Search Tool(user_query) - Scrapes the weblinks for "
        'the query based on user input.\nAction Input: {"query": "who is Virat Kohlis son?"}\n',
        calls=[("Internet Search Tool", {"query": "who is Virat Kohlis son?"})], hidden=("Scrapes the weblinks",),
        only=REACT,
    ),
    # run-llama/llama_index#18094: `Answer:` alone after the thought, LlamaIndex's own label; the
    # streamed chat showed the labels (verbatim)
    "llamaindex18094-answer-label-after-the-thought": Case(
        (SEARCH,),
        "Thought: The user greeted again. I will respond with a greeting and ask how I can assist them.\n"
        "Answer: Hello! How can I assist you today?",
        answer="Hello! How can I assist you today?", hidden=("Thought", "greeted again"),
    ),
    # run-llama/llama_index#20088: an answer that holds `Action:` as a word is not a tool call (the
    # issue's answer; the step around it rebuilt)
    "llamaindex20088-action-label-word-inside-the-answer": Case(
        (SEARCH,),
        "Thought: I can answer without using any more tools.\nFinal Answer: The word 'Action:' has 7 characters",
        answer="The word 'Action:' has 7 characters", hidden=("without using",),
    ),
    # langchain-ai/langchain#2511: the conversational agent's answer after `AI:` (the format the
    # issue quotes; the reply rebuilt)
    "langchain2511-conversational-ai-prefix-answer": Case(
        (SEARCH,),
        "Thought: Do I need to use a tool? No\nAI: Hello! How can I help you today?",
        answer="Hello! How can I help you today?", hidden=("Do I need",), only=REACT,
    ),
    # langchain-ai/langchain#1657: OpenAIChat stops after "Do I need to use a tool? No" (the
    # reply the error quotes, verbatim): nothing to show; asked again
    "langchain1657-do-i-need-a-tool-no-and-nothing-after": Case(
        (tool("GPT Index", "query"),), "Thought: Do I need to use a tool? No\n", fallback="", only=REACT,
    ),
    # langchain-ai/langchain#4955: the answer meant for the user written as an Action Input with no
    # Action (the step as the issue shows it, its bold labels kept): asked again, nothing shown
    "langchain4955-action-input-without-an-action": Case(
        (tool("Small Talk", "query"),),
        "**Thought**: The user is initiating a small talk conversation\n"
        "**Action Input**: Hi Bob, I am Sam, your personal assistant. How can I assist you today?",
        fallback="", hidden=("Hi Bob", "small talk"), only=REACT,
    ),
    # ---- the format in Spanish ----------------------------------------------------------------------
    # jacarma/mortadelo, README.md: GPT-3.5 given a Spanish ReAct prompt writes the format in
    # Spanish; its first step, a sentence and then the action (verbatim)
    "mortadelo-gpt35-spanish-action-and-action-input": Case(
        (SEARCH,),
        "No conozco el temario de cuarto curso de primaria en Valencia, por lo que necesitaré buscar esa "
        'información en Internet.\nAcción: search\nEntrada de la acción: "temario cuarto curso primaria Valencia"\n',
        calls=[("search", {"query": "temario cuarto curso primaria Valencia"})],
        hidden=("Acción", "Entrada de la acción"),
    ),
    # the same README: its last step, a `Pensamiento:` and the `Respuesta final:` (verbatim, the
    # answer's list trimmed after two entries)
    "mortadelo-gpt35-spanish-thought-and-final-answer": Case(
        (SEARCH,),
        "Pensamiento: El decreto mencionado podría contener la información que necesito sobre las materias de "
        "cuarto curso de primaria en Valencia.\nRespuesta final: Según el Decreto 108/2014 del Consell de la "
        "Comunitat Valenciana, el temario de cuarto curso de primaria en Valencia incluye las siguientes materias:"
        "\n\n- Matemáticas\n- Valenciano",
        answer="Según el Decreto 108/2014 del Consell de la Comunitat Valenciana, el temario de cuarto curso de "
        "primaria en Valencia incluye las siguientes materias:\n\n- Matemáticas\n- Valenciano",
        hidden=("Pensamiento", "Respuesta final", "podría contener"),
    ),
    # ---- a document before a short Final Answer ------------------------------------------------
    # crewAIInc/crewAI#788: a whole markdown report, then a `Final Answer:` that only says the
    # report was written; the reporter: the answer should hold the document (the shape the issue
    # quotes; the report's lines rebuilt)
    "crewai788-report-written-before-a-short-final-answer": Case(
        (SEARCH,),
        "### Comprehensive User Research Report\n\n#### 1. Introduction\n**Product Name:** MyProduct\n\n"
        "Final Answer: The complete user research report, user personas, and wireframes/prototypes for MyProduct "
        "have been developed based on detailed user research methodologies and insights gathered from various "
        "techniques.",
        answer="### Comprehensive User Research Report\n\n#### 1. Introduction\n**Product Name:** MyProduct\n\n"
        "The complete user research report, user personas, and wireframes/prototypes for MyProduct have been "
        "developed based on detailed user research methodologies and insights gathered from various techniques.",
        only=REACT,
    ),
}

GAPS: dict[tuple[str, str], str] = {
    ("crewai788-report-written-before-a-short-final-answer", "react"): (
        "text before a Final Answer label is the step's thought, kept in the round's log, not the answer; a "
        "document written there is lost from the answer, and telling it from a thought needs a rule not made yet"
    ),
}

test_real_world_reply = reply_test(CASES, GAPS, read)


def _pieces(strategy: str, case: Case):
    for size in (None, 1, 7):
        yield read(strategy, case, size)


def test_langchain17356_an_echoed_prompt_runs_no_node_tool_and_is_never_shown():
    """langchain-ai/langchain#17356 (the echo as the issue quotes it, trimmed after its first
    placeholder fence): Zephyr answered with the structured chat prompt itself. No node tool runs
    (the placeholder names none), and none of the prompt reaches the user."""
    echo = (
        "<|system|>\nAnswer the following questions as best you can. You have access to the following tools:\n\n"
        "search: Useful for answering questions about current events.\n\nThe way you use the tools is by specifying "
        "a json blob.\nSpecifically, this json should have a `action` key (with the name of the tool to use) and a "
        "`action_input` key (with the input to the tool going here).\n\nThe only values that should be in the "
        '"action" field are: search\n\nThe $JSON_BLOB should only contain a SINGLE action, do NOT return a list of '
        "multiple actions. Here is an example of a valid $JSON_BLOB:\n\n```\n{\n  \"action\": $TOOL_NAME,\n"
        '  "action_input": $INPUT\n}\n```\n\nALWAYS use the following format:\n\nQuestion: the input question you '
        "must answer\nThought: you should always think about what to do\nAction:\n```\n$JSON_BLOB\n```"
    )
    for streamed, turn in _pieces("react", Case((SEARCH,), echo)):
        assert not isinstance(turn.decision, FinalAnswer), turn.decision
        if isinstance(turn.decision, ToolCalls):
            assert "search" not in [c.name for c in turn.decision.calls]
        assert "Answer the following questions" not in streamed and "json blob" not in streamed


def test_langchain1559_a_tool_named_with_a_verb_before_it_runs_no_other_tool():
    """langchain-ai/langchain#1559 (a comment's gpt-3.5-turbo step, verbatim): ``Action: Use
    Requests`` for the node's ``Requests`` tool. Either ``Requests`` runs with the URL or the call
    names no node tool (the model is told); nothing of the step is shown."""
    case = Case((tool("Requests", "url"),),
                'Action: Use Requests\nAction Input: "https://splatoonwiki.org/wiki/.96_Gal#Splatoon_3"')
    for streamed, turn in _pieces("react", case):
        assert isinstance(turn.decision, ToolCalls), turn.decision
        calls = [(c.name, c.arguments) for c in turn.decision.calls]
        assert calls in ([("Requests", {"url": "https://splatoonwiki.org/wiki/.96_Gal#Splatoon_3"})],
                         [("Use Requests", {"input": "https://splatoonwiki.org/wiki/.96_Gal#Splatoon_3"})]), calls
        assert "splatoonwiki" not in streamed


def test_langchainjs355_a_template_literal_input_never_runs_the_tool():
    """langchain-ai/langchainjs PR #355 (the input verbatim, the step around it rebuilt): gpt-3.5
    wrote the action_input as a JavaScript template literal, which no JSON reader takes. The
    calculator never runs with a guessed input: the call is refused with its reason for the model,
    or the reply is asked again; nothing is shown."""
    case = Case((tool("Calculator", "input"),),
                'Thought: I need to calculate\nAction:\n```json\n{\n  "action": "Calculator",\n'
                '  "action_input": `${Math.pow((new Date().getFullYear() - 1994), 0.23)}`\n}\n```')
    for streamed, turn in _pieces("react", case):
        decision = turn.decision
        assert isinstance(decision, (ToolCalls, ParseFailure)), decision
        if isinstance(decision, ToolCalls):
            assert not decision.calls and [c.name for c in decision.invalid] == ["Calculator"]
        assert "Math.pow" not in streamed


@pytest.mark.parametrize("strategy", ["react", "fc"])
def test_spanish_labels_do_not_take_a_plain_spanish_answer(strategy):
    """The Spanish labels are read at a line start only: an answer using the words in its
    sentences (``la acción``, ``una respuesta final``) is shown as written, nothing runs."""
    text = "La acción que propones es correcta.\nEsta es una respuesta final: el plazo es el lunes."
    content = text if strategy == "fc" else f"Pensamiento: respondo.\nRespuesta final: {text}"
    for streamed, turn in _pieces(strategy, Case((SEARCH,), content)):
        assert turn.decision == FinalAnswer(text), turn.decision
        assert streamed.strip() == text
