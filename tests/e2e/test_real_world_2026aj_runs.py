"""The thirty-fifth real-world pass through the real plugin. ReAct replies that agent frameworks
read wrong: an action as a fenced JSON blob followed by an Observation and a Final Answer the
model made up (huggingface/agents-course#412) runs the action and never shows the made-up
weather; an Action Input with Python's ``True`` (lamalab-org/corral#144) runs with the boolean;
an Action Input with ``#`` and ``//`` comments (FoundationAgents/MetaGPT PR #799) and one with a
line of prose after it (run-llama/llama_index#7074; its empty ``working_file`` filled in, the
node's tool requiring it) run with their fields (both were refused as
unreadable); a ``Tool call`` label line above a call written as code (Mistral through LiteLLM,
openai/openai-agents-python#1196) runs in both strategies (both had shown it as the answer); a
reply the output limit cut at ``<tool_call`` (vllm-project/vllm#55395's shape) is asked again in
both, the fragment never shown (both had shown it as the answer)."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

WEATHER = Tool("get_weather", ("city",), ("Sunny, 21 C",))

CASES = [
    # huggingface/agents-course#412: a fenced JSON action then a made-up observation runs the action only
    Reply("a-fenced-json-action-then-a-made-up-observation-runs-the-action-only",
          ("Thought: To answer the question, I need to get the current weather in London.\nAction:\n```\n"
           '{\n  "action": "get_weather",\n  "action_input": {"city": "London"}\n}\n```\n'
           "Observation: The current weather in London is partly cloudy with a temperature of 12°C.\n"
           "Thought: I now know the final answer.\n"
           "Final Answer: The current weather in London is partly cloudy with a temperature of 12°C."), 7,
          "Weather in London?", "London: sunny, 21 C.", tools=(WEATHER,),
          calls=(("get_weather", {"city": "London"}),), hidden=("partly cloudy",), strategies=("ReAct",)),
    # lamalab-org/corral#144: an Action Input with Python's True runs with the boolean
    Reply("an-action-input-with-python-true-runs-with-the-boolean",
          ("Thought: I will prepare the dataset.\n\nAction: prepare_tabular_dataset\n"
           'Action Input: {\n    "output_path": "fe2o3_dataset",\n    "normalize": True\n}'), 7,
          "Prepare the dataset.", "The dataset is ready.",
          tools=(Tool("prepare_tabular_dataset", ("output_path", "normalize")),),
          calls=(("prepare_tabular_dataset", {"output_path": "fe2o3_dataset", "normalize": True}),),
          strategies=("ReAct",)),
    # FoundationAgents/MetaGPT PR #799: an Action Input with comments runs with its fields
    Reply("an-action-input-with-comments-runs-with-its-fields",
          ('Thought: I need the weather.\nAction: get_weather\nAction Input: {\n  "city": "Beijing", # the user\'s city\n'
           '  "unit": "celsius" // metric\n}'), 7,
          "Weather in Beijing?", "Beijing: sunny, 21 C.", tools=(Tool("get_weather", ("city", "unit")),),
          calls=(("get_weather", {"city": "Beijing", "unit": "celsius"}),), hidden=("user's city",),
          strategies=("ReAct",)),
    # run-llama/llama_index#7074: an Action Input with a line of prose after it runs with its fields
    Reply("an-action-input-with-a-line-of-prose-after-it-runs-with-its-fields",
          ("Thought: I will use the code_writer tool to write the initial code.\nAction: code_writer\nAction Input: {\n"
           '  "working_file": "main.py",\n  "instructions": "do stuff",\n'
           '  "context": "some context {"key": "maybe there\'s a nested json here"}"\n}\n'
           "let's add some garbage in here too.\n"), 7,
          "Write the code.", "The code is written.",
          tools=(Tool("code_writer", ("working_file", "instructions", "context")),),
          calls=(("code_writer", {"working_file": "main.py", "instructions": "do stuff",
                                  "context": 'some context {"key": "maybe there\'s a nested json here"}'}),),
          strategies=("ReAct",)),
    # openai/openai-agents-python#1196: a Tool call label above a call written as code runs it
    Reply("a-tool-call-label-above-a-call-written-as-code-runs-it",
          'Tool call\n\ncall_rag_server({"category": "domestic", "query": "dogs", "k": "3"})', 7,
          "Tell me about dogs.", "Dogs are domestic animals.",
          tools=(Tool("call_rag_server", ("category", "query", "k")),),
          calls=(("call_rag_server", {"category": "domestic", "query": "dogs", "k": "3"}),),
          hidden=("call_rag_server(", "Tool call")),
    # vllm-project/vllm#55395: a reply the output limit cut at a call opener is asked again
    Reply("a-reply-the-output-limit-cut-at-a-call-opener-is-asked-again", "Let me check.\n<tool_call", 7,
          "Weather in Paris?", "Paris: sunny, 21 C.", tools=(WEATHER,), asked_again=True, finish_reason="length",
          hidden=("<tool",)),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
