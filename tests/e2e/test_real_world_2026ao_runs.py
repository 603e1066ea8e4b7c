"""The fortieth real-world pass (small local models, prompt-based tool calling) through the real
plugin. A chatty Llama's two call objects with sentences around them (vercel/ai#3521) run both
tools in both strategies (Function Calling ran only the last one and lost the first); Llama 3.x's
call objects joined by semicolons (abetlen/llama-cpp-python#1856) run each; Granite 3's
``<function_call>`` (ollama/ollama#7544) runs its call while its ``bash`` fence stays the answer;
and Hermes 2 Pro's call whose closing tag a stop word ate (mudler/LocalAI#2223) runs."""

import pytest

from tests.e2e.real_world import Reply, Tool, play_reply, reply_params

CHATTY = (
    'Sure! Let me do that for you?\n\n{"name": "get_weather", "parameters": {"city": "Paris"}}\n\n'
    "and I'll check this too\n\n"
    '{"name": "get_time", "parameters": {"city": "Paris"}}'
)

CASES = [
    # vercel/ai#3521: a chatty Llama runs both calls between its sentences
    Reply("chatty-llama-runs-both-calls-between-its-sentences", CHATTY, 7,
          "Weather and time in Paris?", "Paris: sunny, 21 C, and it is 14:05.",
          tools=(Tool("get_weather", ("city",), ("Sunny, 21 C",)), Tool("get_time", ("city",), ("14:05",))),
          calls=(("get_weather", {"city": "Paris"}), ("get_time", {"city": "Paris"})), unordered=True,
          hidden=('"parameters"',)),
    # abetlen/llama-cpp-python#1856: call objects joined by semicolons each run
    Reply("call-objects-joined-by-semicolons-each-run",
          ('{"name": "get_current_weather", "parameters": {"location": "San Francisco, CA", "unit": "fahrenheit"}}; '
           '{"name": "get_current_weather", "parameters": {"location": "Tokyo, JP", "unit": "celsius"}}'), 5,
          "Weather in San Francisco and Tokyo?", "64 F in San Francisco, 18 C in Tokyo.",
          tools=(Tool("get_current_weather", ("location", "unit"), ("64 F", "18 C")),),
          calls=(("get_current_weather", {"location": "San Francisco, CA", "unit": "fahrenheit"}),
                 ("get_current_weather", {"location": "Tokyo, JP", "unit": "celsius"})), exact=True),
    # ollama/ollama#7544: Granite's function_call tag runs ...
    Reply("granite-function-call-tag-runs",
          '<function_call> {"name": "bash", "arguments": {"command": "ls"}}', 7,
          "List the files here.", "The folder holds README.md and src.",
          tools=(Tool("bash", ("command",), ("README.md\nsrc",)),), calls=(("bash", {"command": "ls"}),),
          hidden=("function_call",)),
    # ... and its bash fence is the answer
    Reply("granite-bash-fence-is-the-answer", "```bash\nls\n```", 3,
          "List the files here.", "```bash\nls\n```", tools=(Tool("bash", ("command",)),)),
    # mudler/LocalAI#2223: a Hermes call left open by a stop word runs
    Reply("hermes-call-left-open-by-a-stop-word-runs",
          '<tool_call>\n{"arguments": {"location": "Rome"}, "name": "get_weather"}', 7,
          "Weather in Rome?", "It is 24 C in Rome.", tools=(Tool("get_weather", ("location",), ("Rome: 24 C",)),),
          calls=(("get_weather", {"location": "Rome"}),), exact=True),
]


@pytest.mark.parametrize(("case", "strategy"), reply_params(CASES))
def test_real_world_reply_through_the_plugin(run, case, strategy):
    play_reply(run, strategy, case)
