"""Answers that show call markup stay answers: a tutorial on tool calling, a code sample, a JSON
document the user asked for, the ReAct format explained, an earlier call quoted, a markdown table
with brackets, a shell session, code calling a function named like a node tool, an XML or HTML
document with a tag named like one, LaTeX. Each answer of the corpus (written in the voices of
real assistants, with node tools named by common words) goes through ReAct unlabelled and after
``Final Answer:``, and through Function Calling as plain content, whole and in pieces of 1 and 7
characters: the decision must be that text as the final answer, and the streamed text the same,
or, where a call shown in a fenced block is read as a call (a genuine step is often written so),
an outcome the run recovers from: in ReAct the example's calls exactly, nothing streamed
(``RUNS_EXAMPLE``); in Function Calling a re-prompt whose fallback is the rest of the answer, so
that once the retries run out the user has read the answer whole and once (``ASKED_AGAIN``: its
markup stands in a fence or a blockquote), or the example's calls run with nothing of their block
streamed, only the sentence before it (``RUNS_UNSHOWN``), also when text follows the block.
A mirrored set puts a genuine call after (and, in Function Calling, before) each answer: that call
must still run. Cases a reader still gets wrong in a way the run does not recover from are strict
xfails naming why the reading is kept (a real model writes exactly that to call a tool) or what is
not fixed yet.
"""

import pytest

from agent_core import prompts
from agent_core.call_markup import holds_call_markup
from agent_core.fallback import fallback_answer
from agent_core.turn import FinalAnswer, ParseFailure, ToolCalls
from tests.unit.helpers import gap_param
from tests.unit.test_real_world_2026 import Case, read, tool

TOOLS = (
    tool("search", "query"), tool("read_file", "path"), tool("get_weather", "city"), tool("python", "code"),
    tool("run", "command"), tool("answer", "text"), tool("think", "thought"), tool("final_answer", "answer"),
    tool("finish", "answer"), tool("browser", "url"), tool("bash", "command"), tool("web_search", "query"),
)

ANSWERS: dict[str, str] = {}


def a(name: str, text: str) -> None:
    assert name not in ANSWERS, name
    ANSWERS[name] = text


# ---- tutorials on tool calling, markup in fenced code ------------------------------------------
a("hermes-tutorial", '''Qwen2.5 and Hermes-style models wrap each tool call in `<tool_call>` tags. A reply that calls your `search` tool looks like this:

```xml
<tool_call>
{"name": "search", "arguments": {"query": "weather in Paris"}}
</tool_call>
```

Your server's parser takes the JSON out of the tags and puts it in `tool_calls`.''')
a("hermes-tutorial-two-calls", '''To call two tools in one turn, the model writes two blocks one after the other:

```
<tool_call>
{"name": "get_weather", "arguments": {"city": "Paris"}}
</tool_call>
<tool_call>
{"name": "get_weather", "arguments": {"city": "Berlin"}}
</tool_call>
```

vLLM's `hermes` parser returns both as separate entries.''')
a("openai-tool-calls-json", '''Here's what the assistant message looks like in the Chat Completions API when the model calls a tool:

```json
{
  "role": "assistant",
  "content": null,
  "tool_calls": [
    {
      "id": "call_abc123",
      "type": "function",
      "function": {
        "name": "get_weather",
        "arguments": "{\\"city\\": \\"Paris\\"}"
      }
    }
  ]
}
```

Note that `arguments` is a **string** containing JSON, not an object — you have to `json.loads` it.''')
a("openai-tool-definition", '''Define the tool like this and pass it in the `tools` array:

```json
{
  "type": "function",
  "function": {
    "name": "search",
    "description": "Search the web",
    "parameters": {
      "type": "object",
      "properties": {"query": {"type": "string"}},
      "required": ["query"]
    }
  }
}
```''')
a("anthropic-invoke-tutorial", '''Claude's older prompt-based tool use format looked like this:

```xml
<function_calls>
<invoke name="get_weather">
<parameter name="city">Paris</parameter>
</invoke>
</function_calls>
```

With the Messages API you no longer write this by hand; you get `tool_use` content blocks instead.''')
a("anthropic-tool-use-block", '''The response contains a `tool_use` block:

```json
{
  "type": "tool_use",
  "id": "toolu_01A09q90qw90lq917835lq9",
  "name": "get_weather",
  "input": {"city": "San Francisco"}
}
```

You reply with a `tool_result` block carrying the same `tool_use_id`.''')
a("pythonic-tutorial", '''Llama 3.2 and Llama 4 can use the *pythonic* tool format. The model answers with a Python list of calls:

```python
[get_weather(city="Paris"), search(query="Eiffel Tower opening hours")]
```

vLLM parses it with `--tool-call-parser pythonic`.''')
a("pythonic-inline", 'In the pythonic format the model writes a list such as `[get_weather(city="Paris")]` and nothing else; the server turns it into a tool call.')
a("qwen3-coder-tutorial", '''Qwen3-Coder uses an XML-ish format instead of JSON:

```
<tool_call>
<function=read_file>
<parameter=path>
src/main.py
</parameter>
</function>
</tool_call>
```

That is why you need `--tool-call-parser qwen3_coder` rather than `hermes`.''')
a("hermes-whole-call-inline", 'A Hermes-style model wraps the call in tags: `<tool_call>{"name": "search", "arguments": {"query": "weather in Paris"}}</tool_call>` is one call, and the server returns it in `tool_calls`.')
a("tool-calls-wrapper-inline", 'Some templates group parallel calls, as in `<tool_calls><tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call></tool_calls>`, and the parser reads each inner block.')
a("tool-calls-wrapper-spaced-inline", 'The grouped form is `<tool_calls> <tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}}</tool_call> </tool_calls>` with spaces kept.')
a("function-equals-inline", "Qwen3-Coder writes `<function=read_file>` followed by `<parameter=path>` blocks; a generic Hermes parser will not understand it.")
a("mistral-tutorial", '''Mistral models emit the special token `[TOOL_CALLS]` followed by a JSON list:

```
[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]
```

Newer tokenizers (v11+) write `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}` instead.''')
a("mistral-inline", 'If you see `[TOOL_CALLS]` in the content, your server is not running the Mistral tool parser. Start vLLM with `--tool-call-parser mistral`.')
a("llama-python-tag-tutorial", '''Llama 3.1 uses `<|python_tag|>` for built-in tools:

```
<|python_tag|>brave_search.call(query="latest news")<|eom_id|>
```

and plain JSON for custom tools:

```json
{"name": "get_weather", "parameters": {"city": "Paris"}}
```''')
a("llama-python-tag-inline", "When Ollama passes `<|python_tag|>` through to the content, the model tried to call a built-in tool; set `tools` in the request or strip the token.")
a("deepseek-tokens-tutorial", '''DeepSeek V3 wraps calls in special tokens:

```
<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather
```json
{"city": "Paris"}
```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
```

If these tokens show up in your chat, the server's tool parser is off.''')
a("react-format-explained", '''The ReAct format alternates reasoning and acting. A typical step looks like this:

```
Thought: I need to find the current weather in Paris.
Action: get_weather
Action Input: {"city": "Paris"}
Observation: 18°C, light rain
Thought: I now know the final answer.
Final Answer: It is 18°C and raining in Paris.
```

The framework stops generation at `Observation:`, runs the tool, and appends the result.''')
a("react-format-inline", 'In ReAct the model writes `Action: search` and `Action Input: {"query": "..."}` on separate lines, then waits for an `Observation:`.')
a("react-langchain-json-blob", '''LangChain's structured chat agent expects a JSON blob in a fenced block:

```
Action:
```json
{
  "action": "search",
  "action_input": "LangChain docs"
}
```
```

Use `"action": "Final Answer"` to finish.''')
a("react-prompt-template", '''Here's a minimal ReAct prompt you can adapt:

```text
Answer the following questions as best you can. You have access to the following tools:

{tools}

Use the following format:

Question: the input question you must answer
Thought: you should always think about what to do
Action: the action to take, should be one of [{tool_names}]
Action Input: the input to the action
Observation: the result of the action
... (this Thought/Action/Action Input/Observation can repeat N times)
Thought: I now know the final answer
Final Answer: the final answer to the original input question

Begin!

Question: {input}
Thought:{agent_scratchpad}
```''')
a("json-rpc-mcp-fenced", '''An MCP client calls a tool with a JSON-RPC request like this:

```json
{
  "jsonrpc": "2.0",
  "id": 2,
  "method": "tools/call",
  "params": {
    "name": "search",
    "arguments": {"query": "rust async"}
  }
}
```

The server answers with a `result` holding `content` items.''')
a("json-rpc-named-method-fenced", '''Example request to a JSON-RPC server exposing a `search` method:

```json
{"jsonrpc": "2.0", "method": "search", "params": {"query": "x"}, "id": 1}
```

And the response:

```json
{"jsonrpc": "2.0", "result": ["a", "b"], "id": 1}
```''')
a("gemini-function-call-json", '''Gemini returns the call as a `functionCall` part:

```json
{
  "candidates": [{
    "content": {
      "parts": [{"functionCall": {"name": "get_weather", "args": {"city": "Tokyo"}}}],
      "role": "model"
    }
  }]
}
```''')
a("tool-element-cline-tutorial", '''Cline's system prompt teaches tools as XML elements named after the tool:

```xml
<read_file>
<path>src/app.ts</path>
</read_file>
```

Each parameter is a child element. Only one tool call per message is allowed.''')
a("tool-element-inline", "In Roo-Code's format you'd write `<read_file><path>src/app.ts</path></read_file>` and wait for the result.")
a("harmony-tutorial", '''gpt-oss uses the Harmony format. A tool call is a message on the `commentary` channel addressed to the tool:

```
<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>
```

The final answer goes on the `final` channel.''')
a("glm-tutorial", '''GLM-4.5 writes arguments as key/value tags:

```
<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>Paris</arg_value>
</tool_call>
```''')
a("kimi-tutorial", '''Kimi K2 marks the calls with section tokens:

```
<|tool_calls_section_begin|><|tool_call_begin|>functions.search:0<|tool_call_argument_begin|>{"query": "x"}<|tool_call_end|><|tool_calls_section_end|>
```''')
a("functionary-tutorial", '''Functionary v3 writes the recipient after `>>>`:

```
>>>get_weather
{"city": "Paris"}
```''')
a("smolagents-code-action", '''smolagents' CodeAgent writes its actions as Python:

```py
results = web_search(query="population of Paris 2024")
print(results)
final_answer("About 2.1 million")
```

`final_answer` ends the run.''')
a("phi4-functools-inline", 'Phi-4-mini writes `functools[{"name": "search", "arguments": {"query": "x"}}]` when it calls a tool.')
a("nemotron-toolcall-fenced", '''Nemotron wraps calls in `<TOOLCALL>`:

```
<TOOLCALL>[{"name": "search", "arguments": {"query": "x"}}]</TOOLCALL>
```''')
a("granite-tutorial", '''Granite 3.0 prefixes calls with a special token:

```
<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Boston"}}]
```''')
a("internlm-tutorial", '''InternLM2 uses action tokens:

```
<|action_start|><|plugin|>
{"name": "search", "parameters": {"query": "x"}}<|action_end|>
```''')
a("qwen-agent-tutorial", '''Qwen-Agent's own template marks calls with flower symbols:

```
✿FUNCTION✿: search
✿ARGS✿: {"query": "x"}
✿RESULT✿: ...
✿RETURN✿: the answer
```''')
a("command-r-tutorial", '''Command R7B wraps its plan and calls:

```
<|START_THINKING|>I will search.<|END_THINKING|><|START_ACTION|>[
    {"tool_call_id": "0", "tool_name": "search", "parameters": {"query": "x"}}
]<|END_ACTION|>
```''')
a("tool-call-in-yaml", '''In the workflow file, declare the call like this:

```yaml
steps:
  - name: lookup
    tool_calls:
      - name: search
        arguments:
          query: "quarterly revenue"
  - name: summarize
    run: python summarize.py
```''')
a("tool-call-in-js", '''With the OpenAI Node SDK:

```js
const response = await client.chat.completions.create({
  model: "gpt-4o",
  messages,
  tools: [{ type: "function", function: { name: "get_weather", parameters: schema } }],
});
const call = response.choices[0].message.tool_calls?.[0];
if (call?.function.name === "get_weather") {
  const args = JSON.parse(call.function.arguments);
  console.log(await getWeather(args.city));
}
```''')
a("tool-call-in-python-sdk", '''```python
from openai import OpenAI
import json

client = OpenAI()
resp = client.chat.completions.create(model="gpt-4o", messages=messages, tools=tools)
for call in resp.choices[0].message.tool_calls or []:
    args = json.loads(call.function.arguments)
    if call.function.name == "search":
        result = search(**args)
    messages.append({"role": "tool", "tool_call_id": call.id, "content": json.dumps(result)})
```

Then call the model again with the updated `messages`.''')
a("hermes-system-prompt", '''The Hermes function-calling system prompt ends like this:

```
For each function call return a json object with function name and arguments within <tool_call></tool_call> XML tags as follows:
<tool_call>
{"name": <function-name>, "arguments": <args-dict>}
</tool_call>
```''')

# ---- JSON documents the user asked for --------------------------------------------------------
a("package-json", '''Here's a minimal `package.json`:

```json
{
  "name": "search",
  "version": "1.0.0",
  "main": "index.js",
  "scripts": {"start": "node index.js", "test": "jest"}
}
```''')
a("package-json-bare", '''{
  "name": "my-app",
  "version": "0.1.0",
  "private": true,
  "dependencies": {"react": "^18.2.0"}
}''')
a("tool-schema-fenced", '''Here is the function schema for your `search` tool:

```json
{
  "name": "search",
  "description": "Search the knowledge base",
  "parameters": {
    "type": "object",
    "properties": {
      "query": {"type": "string", "description": "What to look for"},
      "top_k": {"type": "integer", "default": 5}
    },
    "required": ["query"]
  }
}
```''')
a("json-user-record", '''```json
{"id": 42, "name": "Ada Lovelace", "email": "ada@example.com", "roles": ["admin", "editor"]}
```''')
a("json-array-of-people", '''[
  {"name": "Alice", "age": 30},
  {"name": "Bob", "age": 25}
]''')
a("json-config-with-action", '''Here is the GitHub Actions-like config in JSON:

```json
{
  "action": "deploy",
  "action_input": {"env": "staging"},
  "on": ["push"]
}
```''')
a("json-event-payload", '''A typical webhook payload:

```json
{
  "event": "tool.called",
  "data": {"name": "get_weather", "arguments": {"city": "Paris"}, "duration_ms": 312}
}
```''')
a("json-openapi-snippet", '''```json
{
  "openapi": "3.0.0",
  "paths": {
    "/search": {
      "get": {"operationId": "search", "parameters": [{"name": "query", "in": "query"}]}
    }
  }
}
```''')
a("json-translation-bare", '{"greeting": "Bonjour", "farewell": "Au revoir", "thanks": "Merci"}')
a("json-array-of-strings-bare", '["search", "read_file", "get_weather"]')
a("json-dataset-row", '''Sure — one row per line (JSONL):

```jsonl
{"prompt": "What's the weather in Paris?", "completion": "<tool_call>{\\"name\\": \\"get_weather\\", \\"arguments\\": {\\"city\\": \\"Paris\\"}}</tool_call>"}
{"prompt": "Find docs on asyncio", "completion": "<tool_call>{\\"name\\": \\"search\\", \\"arguments\\": {\\"query\\": \\"asyncio docs\\"}}</tool_call>"}
```''')
a("json-finetune-sample", '''Here's a training example in ShareGPT format with a tool call:

```json
{
  "conversations": [
    {"from": "human", "value": "Weather in Rome?"},
    {"from": "function_call", "value": "{\\"name\\": \\"get_weather\\", \\"arguments\\": {\\"city\\": \\"Rome\\"}}"},
    {"from": "observation", "value": "{\\"temp\\": 24}"},
    {"from": "gpt", "value": "It's 24°C in Rome."}
  ]
}
```''')
a("json-schema-answer-tool", '''```json
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "answer",
  "type": "object",
  "properties": {"text": {"type": "string"}, "confidence": {"type": "number"}}
}
```''')
a("json-geojson", '''```json
{"type": "Feature", "geometry": {"type": "Point", "coordinates": [2.3522, 48.8566]}, "properties": {"name": "Paris"}}
```''')

# ---- code calling functions named like the node's tools ---------------------------------------
a("py-search-function", '''Here's a simple binary search:

```python
def search(items, target):
    lo, hi = 0, len(items) - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1

print(search([1, 3, 5, 7], 5))  # 2
```''')
a("py-read-file", '''```python
def read_file(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()

content = read_file("config.yaml")
```

`encoding="utf-8"` avoids surprises on Windows.''')
a("py-get-weather-requests", '''```python
import requests

def get_weather(city: str) -> dict:
    r = requests.get("https://api.example.com/weather", params={"q": city}, timeout=10)
    r.raise_for_status()
    return r.json()

print(get_weather(city="Paris"))
```''')
a("py-run-subprocess", '''Use `subprocess.run`:

```python
import subprocess

result = subprocess.run(["ls", "-la"], capture_output=True, text=True, check=True)
print(result.stdout)
```''')
a("py-one-line-call-fenced", '''```python
get_weather(city="Paris")
```

That returns a dict with `temp` and `conditions`.''')
a("py-list-of-calls-fenced", '''```python
results = [search(query=q) for q in ["cats", "dogs"]]
```''')
a("py-finish-function", '''In your agent loop, define a sentinel:

```python
def finish(answer: str) -> None:
    raise StopAgent(answer)

finish(answer="done")
```''')
a("py-final-answer-function", '''```python
@tool
def final_answer(answer: str) -> str:
    """Return the final answer to the user."""
    return answer
```''')
a("py-think-decorator", '''```python
def think(thought: str) -> str:
    """A no-op tool that lets the model write down its reasoning."""
    return thought
```

Anthropic calls this the "think" tool; it helps on long tool chains.''')
a("py-browser-playwright", '''```python
from playwright.sync_api import sync_playwright

with sync_playwright() as p:
    browser = p.chromium.launch()
    page = browser.new_page()
    page.goto("https://example.com")
    print(page.title())
    browser.close()
```''')
a("py-repl-session", '''```pycon
>>> from mylib import search
>>> search(query="hello")
['hello world', 'hello there']
>>> len(_)
2
```''')
a("js-search-function", '''```javascript
function search(arr, x) {
  return arr.findIndex((v) => v === x);
}
console.log(search([1, 2, 3], 2)); // 1
```''')
a("ts-read-file", '''```ts
import { readFile } from "node:fs/promises";

export async function read_file(path: string): Promise<string> {
  return readFile(path, "utf8");
}
```''')
a("inline-call-in-prose", 'Call `get_weather(city="Paris")` first, then pass the result to `format_report()`.')
a("inline-search-in-prose", 'The helper `search(query, top_k=5)` returns the five best matches; `read_file(path)` loads one of them.')
a("prose-mentions-tool-names", "I can use the search tool to look this up, or read_file if you give me a path. Which would you prefer?")
a("rust-fn-run", '''```rust
fn run(cmd: &str) -> std::io::Result<String> {
    let out = std::process::Command::new("sh").arg("-c").arg(cmd).output()?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}
```''')
a("go-func-search", '''```go
func search(items []int, x int) int {
	for i, v := range items {
		if v == x {
			return i
		}
	}
	return -1
}
```''')
a("sql-query", '''```sql
SELECT name, COUNT(*) AS calls
FROM tool_calls
WHERE name IN ('search', 'read_file')
GROUP BY name;
```''')
a("py-python-tool-code", '''You can run this with the `python` tool:

```python
import math
print(math.sqrt(2))
```

It prints `1.4142135623730951`.''')
a("py-decorator-tools-list", '''```python
tools = [search, read_file, get_weather]
agent = Agent(model="gpt-4o", tools=tools)
agent.run("What's the weather in Paris?")
```''')

# ---- shell sessions --------------------------------------------------------------------------
a("bash-session", '''```bash
$ pip install requests
$ python -c "import requests; print(requests.__version__)"
2.31.0
```''')
a("bash-curl-tool-call", '''Test the endpoint with curl:

```bash
curl http://localhost:8000/v1/chat/completions \\
  -H "Content-Type: application/json" \\
  -d '{"model": "qwen", "messages": [{"role": "user", "content": "hi"}], "tools": [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]}'
```''')
a("bash-run-command", '''Run:

```sh
run --config config.yaml
search --query "foo"
```''')
a("shell-output-with-brackets", '''```console
$ ls
[a-z].txt  notes.md
$ cat notes.md
[TODO] call search(query="x")
```''')
a("bash-vllm-serve", '''```bash
vllm serve Qwen/Qwen2.5-7B-Instruct \\
  --enable-auto-tool-choice \\
  --tool-call-parser hermes
```

Without `--enable-auto-tool-choice` the `<tool_call>` tags stay in the content.''')
a("powershell", '''```powershell
Get-ChildItem -Path C:\\logs -Filter *.log | Select-String -Pattern "[ERROR]"
```''')

# ---- markdown tables, lists and brackets ------------------------------------------------------
a("table-with-brackets", '''| Format | Example |
|---|---|
| pythonic | `[get_weather(city="Paris")]` |
| Hermes | `<tool_call>{...}</tool_call>` |
| Mistral | `[TOOL_CALLS]` |''')
a("table-plain-brackets", '''| Task | Status |
|---|---|
| [x] search index | done |
| [ ] read_file cache | pending |''')
a("checklist", '''- [x] Set up the search index
- [x] Add the `read_file` tool
- [ ] Write tests for get_weather''')
a("markdown-links", "See [the search docs](https://example.com/search) and [read_file](https://example.com/read_file) for details.")
a("bracket-citations", "Paris is the capital of France [1]. Its population is about 2.1 million [2][3].")
a("bracket-list-bare", "[1, 2, 3, 4]")
a("bracketed-words", "[search, read_file, get_weather]")
a("footnote-refs", "The model writes a call[^1].\n\n[^1]: In the pythonic format: `[search(query=\"x\")]`.")
a("table-tool-names", '''| Tool | Input | Output |
|---|---|---|
| search | `{"query": "..."}` | list of hits |
| read_file | `{"path": "..."}` | file text |
| get_weather | `{"city": "..."}` | temperature |''')

# ---- XML / HTML with tool-named tags ----------------------------------------------------------
a("html-search-element", '''Use the new HTML `<search>` element to wrap a search form:

```html
<search>
  <form action="/search">
    <input name="q" type="search">
    <button>Go</button>
  </form>
</search>
```''')
a("html-search-element-bare", '''<search>
  <form action="/search">
    <input name="query" type="search">
  </form>
</search>''')
a("xml-config-search", '''```xml
<config>
  <search>
    <query>default</query>
    <limit>10</limit>
  </search>
</config>
```''')
a("xml-answer-doc", '''```xml
<quiz>
  <question>What is 2+2?</question>
  <answer>4</answer>
</quiz>
```''')
a("xml-answer-bare", '''<quiz>
  <question>What is 2+2?</question>
  <answer>4</answer>
</quiz>''')
a("xml-think-tag-doc", '''In Anthropic's prompting guide you ask Claude to reason inside tags:

```xml
<thinking>
First, list the constraints.
</thinking>
<answer>
The schedule works.
</answer>
```''')
a("svg-run", '''```svg
<svg width="100" height="100">
  <circle cx="50" cy="50" r="40" fill="red" />
  <text x="20" y="55">run</text>
</svg>
```''')
a("xml-maven-finish", '''```xml
<plugin>
  <artifactId>exec-maven-plugin</artifactId>
  <executions>
    <execution>
      <id>run</id>
      <goals><goal>java</goal></goals>
    </execution>
  </executions>
</plugin>
```''')
a("xml-tool-named-browser", '''```xml
<browser>
  <url>https://example.com</url>
</browser>
```

That is the shape the agent expects for the `browser` tool.''')
a("xml-rss", '''```xml
<rss version="2.0">
  <channel>
    <title>Weather</title>
    <item><title>get_weather</title><link>https://x.example/w</link></item>
  </channel>
</rss>
```''')
a("xml-inline-in-sentence", 'Wrap the query in `<search><query>cats</query></search>` tags if you use the XML format.')

# ---- LaTeX -----------------------------------------------------------------------------------
a("latex-interval", r'''The solution set is $x \in [0, 1]$, and the function is
$$
f(x) = \begin{cases} x^2 & x \in [0,1] \\ 1 & \text{otherwise} \end{cases}
$$''')
a("latex-display-brackets", r'''\[
\int_0^1 x^2\,dx = \left[\frac{x^3}{3}\right]_0^1 = \frac{1}{3}
\]''')
a("latex-matrix", r'''$$
A = \begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}, \quad \det(A) = -2
$$''')
a("latex-answer-env", r'''```latex
\begin{answer}
The limit is $\lim_{n\to\infty} (1 + 1/n)^n = e$.
\end{answer}
```''')
a("latex-inline-func", r"Write it as $\operatorname{search}(q) = \arg\max_{d} s(q, d)$, where $s$ is the score.")

# ---- quoting earlier calls -------------------------------------------------------------------
a("quote-previous-call-inline", 'I called `search` with `{"query": "Paris population"}` and it returned 2.1 million (2023 estimate).')
a("quote-previous-call-fenced", '''Here's exactly what I sent to the weather tool:

```json
{"name": "get_weather", "arguments": {"city": "Paris"}}
```

It answered 18°C and light rain.''')
a("quote-previous-hermes", '''For the record, my previous step was:

```
<tool_call>
{"name": "read_file", "arguments": {"path": "README.md"}}
</tool_call>
```

The file was empty, so there is nothing to summarize.''')
a("quote-previous-react", '''Here is the trace of what I did:

```
Thought: I should check the weather.
Action: get_weather
Action Input: {"city": "Paris"}
Observation: 18°C, light rain
```

So: bring an umbrella.''')
a("explain-failed-call", 'The call `read_file(path="/etc/shadow")` failed with "permission denied", so I could not read that file.')
a("quote-call-list-summary", '''Summary of the calls I made:

1. `search(query="Paris weather")` → 3 results
2. `get_weather(city="Paris")` → 18°C
3. `read_file(path="notes.md")` → not found''')

# ---- prose and headings that look like labels -------------------------------------------------
a("heading-action-items", '''## Action items

- Action: migrate the search index by Friday
- Owner: Dana''')
a("prose-thought-word", "My thought: the search results are outdated, so I would not rely on them.")
a("prose-final-answer-word", "The final answer depends on the tax year; for 2024 it's €1,250.")
a("prose-answer-colon-inline", "Short answer: yes. Long answer: it depends on your `search` settings.")
a("prose-think-tag-mention", "Reasoning models like DeepSeek-R1 wrap their reasoning in `<think>` and `</think>` tags before the answer.")
a("prose-final-answer-backticks", "In ReAct the loop ends when the model writes `Final Answer:` followed by the answer.")
a("prose-observation-backticks", "The `Observation:` line is filled in by the framework, never by the model.")

# ---- YAML, config and other languages ----------------------------------------------------------
a("yaml-dify-tool", '''```yaml
identity:
  name: get_weather
  author: me
parameters:
  - name: city
    type: string
    required: true
```''')
a("yaml-compose-run", '''```yaml
services:
  search:
    image: opensearchproject/opensearch:2
    command: ["run", "--port", "9200"]
```''')
a("yaml-openai-actions", '''```yaml
actions:
  - action: search
    action_input:
      query: "{{ input }}"
```''')
a("toml-config", '''```toml
[tool.search]
enabled = true
backend = "bm25"

[[tool.calls]]
name = "get_weather"
arguments = { city = "Paris" }
```''')
a("dockerfile", '''```dockerfile
FROM python:3.12-slim
RUN pip install search-engine
CMD ["python", "-m", "search", "--run"]
```''')
a("makefile", '''```make
run:
	python main.py --tool search

test:
	pytest -q
```''')
a("ini-file", '''```ini
[search]
query = default
[answer]
format = markdown
```''')
a("regex-answer", r'To match a Hermes call, use `<tool_call>\s*(\{.*?\})\s*</tool_call>` with the `re.S` flag.')
a("regex-fenced", r'''```python
import re
CALL = re.compile(r"\[(\w+)\((.*?)\)\]")
print(CALL.findall('[search(query="x")]'))
```''')
a("csv-answer", '''```csv
name,arguments
search,"{""query"": ""x""}"
get_weather,"{""city"": ""Paris""}"
```''')
a("graphql", '''```graphql
query {
  search(query: "cats", first: 5) {
    edges { node { title } }
  }
}
```''')
a("prolog-like", '''```prolog
answer(X) :- search(X, Results), member(X, Results).
```''')
a("lisp", '''```lisp
(defun search (query) (find query *index* :test #'string=))
(search "cats")
```''')

# ---- agent framework docs ------------------------------------------------------------------
a("langchain-tool-decorator", '''```python
from langchain_core.tools import tool

@tool
def search(query: str) -> str:
    """Search the web."""
    return tavily.search(query)

llm_with_tools = llm.bind_tools([search])
msg = llm_with_tools.invoke("What is LangGraph?")
print(msg.tool_calls)  # [{'name': 'search', 'args': {'query': 'LangGraph'}, 'id': '...'}]
```''')
a("crewai-agent-log", '''CrewAI prints each step like this:

```
# Agent: Researcher
## Thought: I need to search for recent papers.
## Using tool: search
## Tool Input:
"{\\"query\\": \\"agentic RAG 2024\\"}"
## Tool Output:
...
```''')
a("autogen-function-call", '''AutoGen shows suggested calls as:

```
***** Suggested tool call (call_1): get_weather *****
Arguments:
{"city": "Paris"}
*****************************************************
```''')
a("dify-agent-log", '''The Dify agent log for that run shows:

```
ROUND 1
├── Thought: I need the weather.
├── CALL get_weather  {"city": "Paris"}
└── Observation: 18°C
```''')
a("openai-responses-function-call", '''In the Responses API, the output item is:

```json
{"type": "function_call", "call_id": "call_123", "name": "search", "arguments": "{\\"query\\": \\"x\\"}"}
```''')
a("ollama-api-response", '''Ollama's `/api/chat` returns:

```json
{
  "model": "llama3.1",
  "message": {
    "role": "assistant",
    "content": "",
    "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Toronto"}}}]
  },
  "done": true
}
```''')
a("mcp-tools-list", '''```json
{
  "tools": [
    {"name": "read_file", "description": "Read a file", "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}},
    {"name": "search", "description": "Search", "inputSchema": {"type": "object", "properties": {"query": {"type": "string"}}}}
  ]
}
```''')
a("vercel-ai-sdk", '''```ts
const result = await generateText({
  model: openai("gpt-4o"),
  tools: { get_weather: tool({ parameters: z.object({ city: z.string() }), execute: async ({ city }) => fetchWeather(city) }) },
  prompt: "Weather in Paris?",
});
```''')

# ---- answers that discuss final_answer / finish / answer / think tools ---------------------------
a("finish-bracket-explained", 'In the original ReAct paper, the episode ends with `Finish[answer]`, e.g. `Finish[Paris]`.')
a("finish-bracket-fenced", '''```
Thought 3: The answer is Paris.
Action 3: Finish[Paris]
```''')
a("final-answer-tool-json", '''To end the run, the model must call the `final_answer` tool:

```json
{"name": "final_answer", "arguments": {"answer": "42"}}
```''')
a("answer-tool-schema", '''```python
answer_tool = {
    "type": "function",
    "function": {
        "name": "answer",
        "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
    },
}
```''')
a("think-tool-doc", '''Anthropic's "think" tool is declared as:

```json
{
  "name": "think",
  "description": "Use the tool to think about something.",
  "input_schema": {"type": "object", "properties": {"thought": {"type": "string"}}, "required": ["thought"]}
}
```''')
a("browser-tool-explained", 'The `browser` tool takes a `url` and returns the page text; for example `browser(url="https://example.com")`.')

# ---- multilingual --------------------------------------------------------------------------
a("chinese-tutorial", '''要调用工具，模型会输出如下格式：

```json
{"name": "search", "arguments": {"query": "北京天气"}}
```

服务端解析后放入 `tool_calls` 字段。''')
a("chinese-react", '''ReAct 格式示例：

```
思考：我需要查询天气。
行动：get_weather
行动输入：{"city": "北京"}
```''')
a("japanese-inline", '`search(query="東京")` を呼ぶと、検索結果のリストが返ります。')
a("german-prose-code", '''Die Funktion `read_file("daten.csv")` liest die Datei ein:

```python
daten = read_file("daten.csv")
```''')
a("french-json", '''Voici l'objet demandé :

```json
{"ville": "Paris", "température": 18, "ciel": "pluvieux"}
```''')

# ---- mixed long answers ---------------------------------------------------------------------
a("long-debug-answer", '''The model isn't broken — the server is returning the raw call text. Look at the content you got:

```
<tool_call>
{"name": "search", "arguments": {"query": "dify plugins"}}
</tool_call>
```

That means the tool parser isn't enabled. Two fixes:

1. Start vLLM with `--enable-auto-tool-choice --tool-call-parser hermes`.
2. Or parse it yourself:

```python
import json, re
m = re.search(r"<tool_call>\\s*(\\{.*?\\})\\s*</tool_call>", text, re.S)
call = json.loads(m.group(1)) if m else None
```

After that, `call["name"]` is `"search"` and you can dispatch it.''')
a("long-comparison", '''### Tool-call formats compared

**OpenAI / JSON**

```json
{"name": "get_weather", "arguments": {"city": "Paris"}}
```

**Pythonic (Llama 3.2)**

```python
[get_weather(city="Paris")]
```

**XML (Claude legacy)**

```xml
<invoke name="get_weather"><parameter name="city">Paris</parameter></invoke>
```

Pick the one your parser supports; JSON is the most portable.''')
a("long-code-review", '''A few issues in your agent loop:

1. You never check `finish_reason == "tool_calls"`:

```python
if choice.finish_reason == "tool_calls":
    for call in choice.message.tool_calls:
        run(call)
```

2. `run(call)` should return the output so you can append it:

```python
def run(call):
    fn = TOOLS[call.function.name]
    return fn(**json.loads(call.function.arguments))
```

3. Add a max-iterations guard so the loop ends.''')
a("long-react-debug", '''Your parser fails because the model writes the input on the same line as the action:

```
Action: search[what is the capital of France]
```

but your regex expects:

```
Action: search
Action Input: what is the capital of France
```

Either change the prompt or make the regex accept both.''')
a("answer-with-json-and-table", '''Here's the summary you asked for, as JSON and as a table.

```json
[{"tool": "search", "calls": 12}, {"tool": "read_file", "calls": 4}]
```

| tool | calls |
|---|---|
| search | 12 |
| read_file | 4 |''')
a("markdown-details-block", '''<details>
<summary>Example tool call</summary>

```json
{"name": "search", "arguments": {"query": "x"}}
```

</details>''')
a("blockquote-call", '''> <tool_call>
> {"name": "search", "arguments": {"query": "x"}}
> </tool_call>

The quoted block above is what the model printed; your client should have parsed it.''')
a("indented-code-call", '''The raw output was:

    <tool_call>
    {"name": "search", "arguments": {"query": "x"}}
    </tool_call>

which means the parser was not enabled.''')
a("tilde-fence-call", '''~~~json
{"name": "get_weather", "arguments": {"city": "Oslo"}}
~~~

That's the body of the call.''')
a("four-backtick-fence", '''````markdown
```json
{"name": "search", "arguments": {"query": "x"}}
```
````''')


# ---- what the reading rules give instead of the answer ----------------------------------------
#
# Only a `<tool_call>` in a code span is never a call. A call in a fenced block is read as one,
# wherever the block stands and whatever prose follows it: a genuine step is commonly a fenced
# JSON blob and a sentence ("I will wait for the result."), in ReAct without its `Action:` label,
# and an answer taken for it ends the run with junk. So an answer that shows a call in a fence is
# not always the answer at once; what it gives instead is accepted when the run recovers from it:

RUNS_EXAMPLE: dict[tuple[str, str], tuple[tuple[str, dict], ...]] = {
    ("hermes-tutorial", "react"): (("search", {"query": "weather in Paris"}),),
    ("hermes-tutorial-two-calls", "react"): (("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Berlin"})),
    ("openai-tool-calls-json", "react"): (("get_weather", {"city": "Paris"}),),
    ("anthropic-tool-use-block", "react"): (("get_weather", {"city": "San Francisco"}),),
    ("qwen3-coder-tutorial", "react"): (("read_file", {"path": "src/main.py"}),),
    ("llama-python-tag-tutorial", "react"): (("get_weather", {"city": "Paris"}),),  # brave_search is no node tool
    ("react-format-explained", "react"): (("get_weather", {"city": "Paris"}),),
    ("react-langchain-json-blob", "react"): (("search", {"query": "LangChain docs"}),),
    ("json-rpc-named-method-fenced", "react"): (("search", {"query": "x"}),),
    ("glm-tutorial", "react"): (("get_weather", {"city": "Paris"}),),
    ("internlm-tutorial", "react"): (("search", {"query": "x"}),),
    ("command-r-tutorial", "react"): (("search", {"query": "x"}),),
    ("json-config-with-action", "react"): (("deploy", {"env": "staging"}),),  # an action blob: the model is told no such tool
    ("openai-responses-function-call", "react"): (("search", {"query": "x"}),),
    ("quote-previous-call-fenced", "react"): (("get_weather", {"city": "Paris"}),),
    ("quote-previous-hermes", "react"): (("read_file", {"path": "README.md"}),),
    ("quote-previous-react", "react"): (("get_weather", {"city": "Paris"}),),
    ("chinese-tutorial", "react"): (("search", {"query": "北京天气"}),),
    ("chinese-react", "react"): (("get_weather", {"city": "北京"}),),
    ("long-debug-answer", "react"): (("search", {"query": "dify plugins"}),),
    ("long-comparison", "react"): (("get_weather", {"city": "Paris"}),),  # one call shown in three formats
    ("markdown-details-block", "react"): (("search", {"query": "x"}),),
    ("indented-code-call", "react"): (("search", {"query": "x"}),),
    ("tilde-fence-call", "react"): (("get_weather", {"city": "Oslo"}),),
    ("four-backtick-fence", "react"): (("search", {"query": "x"}),),
    # each step's input ends with the block it stands in, not at the prose after it
    ("long-react-debug", "react"): (("search", {"query": "what is the capital of France"}),) * 2,
}
"""ReAct replies whose shown call runs as the turn's action: exactly the example's calls, and
nothing of the reply streamed yet. Recoverable: the example costs one observation, then the model
answers."""

ASKED_AGAIN: tuple[tuple[str, str], ...] = (
    ("markdown-details-block", "fc"),
    ("langchain-tool-decorator", "fc"), ("mcp-tools-list", "fc"), ("answer-tool-schema", "fc"),
    ("blockquote-call", "fc"), ("four-backtick-fence", "fc"),
)
"""Function Calling replies asked again as unreadable call markup, all of it in a fenced block
or a blockquote. Recoverable: the fallback is what the user has not read of the reply, so the text
streamed before the markup and the fallback make the answer, whole and once, when the retries run
out (``function_calling.turn._unreadable``)."""

RUNS_UNSHOWN: dict[tuple[str, str], tuple[tuple[str, dict], ...]] = {
    ("hermes-tutorial", "fc"): (("search", {"query": "weather in Paris"}),),  # the `<tool_call>` named before is text
    ("hermes-tutorial-two-calls", "fc"): (("get_weather", {"city": "Paris"}), ("get_weather", {"city": "Berlin"})),
    ("qwen3-coder-tutorial", "fc"): (("read_file", {"path": "src/main.py"}),),
    ("react-langchain-json-blob", "fc"): (("search", {"input": "LangChain docs"}),),
    ("glm-tutorial", "fc"): (("get_weather", {"city": "Paris"}),),
    ("quote-previous-hermes", "fc"): (("read_file", {"path": "README.md"}),),
    ("long-debug-answer", "fc"): (("search", {"query": "dify plugins"}),),
    ("indented-code-call", "fc"): (("search", {"query": "x"}),),
}
"""Function Calling replies whose call shown after a sentence, in a fence or an indented block,
runs as the turn's calls, also when text follows the block (a genuine call is often written as a
fenced blob and a sentence), and nothing of the block streamed before it runs (the gate holds a
fence line whose first content line opens ``<tool_call>``/``<tool_code>`` or an ``Action:``
call): the user reads the sentence, then the model's next answer. Recoverable: the example costs
one observation, as in ReAct (``RUNS_EXAMPLE``)."""

XFAIL: dict[tuple[str, str], str] = {
    ("hermes-system-prompt", "react"): (
        "not fixed: a template's placeholders (`<function-name>`, `<args-dict>`) are read as a call to a tool of "
        "that name"
    ),
    ("final-answer-tool-json", "react"): (
        "kept: ReAct runs a json fence calling a node tool whatever the text before it says; here the node's own "
        "`final_answer` tool (a node tool of that name is called, not taken as the answer)"
    ),
    ("finish-bracket-fenced", "react"): "kept: `Action 3: Finish[Paris]` is the ReAct paper's finishing step",
    ("finish-bracket-fenced", "react-final"): "kept: `Action 3: Finish[Paris]` is the ReAct paper's finishing step",
    ("yaml-openai-actions", "react"): "not fixed: `- action: search` in a YAML block reads as ReAct's Action label",
    ("yaml-openai-actions", "react-final"): "not fixed: `- action: search` in a YAML block reads as ReAct's Action label",
    ("heading-action-items", "react"): (
        "kept: `- Action: <phrase>` is a ReAct action naming an unknown tool; the model is told so and answers again"
    ),
    **{(name, "fc"): (
        "kept: xLAM writes its calls as a json fence of call objects after a sentence; such a fence that ends the "
        "reply, is its only code block and names node tools runs unless a word before it presents an example "
        "(docs/real-world-cases.md); the sentence before it was shown"
    ) for name in ("openai-responses-function-call", "final-answer-tool-json")},
}
"""Strict xfails: cases still wrong in a way the run does not recover from (the answer hidden or
cut, calls the answer never showed), with the reason."""

MODES = {"react": ("react", ""), "react-final": ("react", "Final Answer: "), "fc": ("fc", "")}


def _params(keys):
    for name, mode in keys:
        yield gap_param(name, mode, gap=XFAIL.get((name, mode)), id=f"{name}-{mode}")


_RECOVERABLE = {*RUNS_EXAMPLE, *ASKED_AGAIN, *RUNS_UNSHOWN}
_SHOWN = [(name, mode) for name in ANSWERS for mode in MODES if (name, mode) not in _RECOVERABLE]


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "mode"), list(_params(_SHOWN)))
def test_an_answer_showing_markup_is_shown_intact(name, mode, size):
    text = ANSWERS[name]
    strategy, label = MODES[mode]
    streamed, turn = read(strategy, Case(TOOLS, label + text), size)
    assert turn.decision == FinalAnswer(text.strip())
    assert streamed.strip() == text.strip()


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "mode"), list(_params(RUNS_EXAMPLE)))
def test_a_shown_call_run_in_react_is_exactly_the_example(name, mode, size):
    """Recoverable: the example's calls run, no other; the user has seen nothing of the reply."""
    text = ANSWERS[name]
    strategy, label = MODES[mode]
    streamed, turn = read(strategy, Case(TOOLS, label + text), size)
    assert isinstance(turn.decision, ToolCalls)
    assert not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == list(RUNS_EXAMPLE[name, mode])
    assert streamed == ""


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "mode"), list(_params(ASKED_AGAIN)))
def test_a_shown_call_asked_again_in_function_calling_keeps_the_answer(name, mode, size):
    """Recoverable: the reply is asked again, and once the retries run out the user has read it
    whole, once: the text streamed before the markup, then the fallback right after it."""
    text = ANSWERS[name]
    strategy, label = MODES[mode]
    streamed, turn = read(strategy, Case(TOOLS, label + text), size)
    assert isinstance(turn.decision, ParseFailure) and turn.decision.problem == prompts.TOOL_CALL_UNREADABLE
    assert turn.decision.continues == bool(streamed)
    assert streamed + fallback_answer(turn) == text.strip()


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "mode"), list(_params(RUNS_UNSHOWN)))
def test_a_shown_call_run_in_function_calling_streams_nothing_of_its_block(name, mode, size):
    """Recoverable: the example's calls run, no other; the user has read the sentence before the
    block and no line of it."""
    text = ANSWERS[name]
    strategy, label = MODES[mode]
    streamed, turn = read(strategy, Case(TOOLS, label + text), size)
    assert isinstance(turn.decision, ToolCalls)
    assert not turn.decision.invalid
    assert [(c.name, c.arguments) for c in turn.decision.calls] == list(RUNS_UNSHOWN[name, mode])
    assert "```" not in streamed and text.startswith(streamed) and streamed.strip()  # code spans of the sentence only
    assert not holds_call_markup(streamed) and "{" not in streamed


def test_the_expectations_name_cases_of_the_corpus():
    assert {name for name, _ in {*_RECOVERABLE, *XFAIL}} <= set(ANSWERS)
    assert {mode for _, mode in {*_RECOVERABLE, *XFAIL}} <= set(MODES)
    assert not set(RUNS_EXAMPLE) & set(ASKED_AGAIN) and not set(ASKED_AGAIN) & set(RUNS_UNSHOWN)
    assert all(mode != "fc" for _, mode in RUNS_EXAMPLE) and all(mode == "fc" for _, mode in ASKED_AGAIN)
    assert all(mode == "fc" for _, mode in RUNS_UNSHOWN)


def test_the_corpus_is_large_and_names_common_word_tools():
    assert len(ANSWERS) >= 150
    everything = "\n".join(ANSWERS.values())
    for name in ("search", "read_file", "get_weather", "python", "run", "answer", "think", "final_answer", "finish", "browser"):
        assert name in everything


# ---- a genuine call beside an answer still runs -----------------------------------------------

HERMES_CALL = '<tool_call>\n{"name": "web_search", "arguments": {"query": "mirror"}}\n</tool_call>'
REACT_CALL = 'Action: web_search\nAction Input: {"query": "mirror"}'
MIRRORS = {
    "fc-after": ("fc", lambda text: f"{text}\n\n{HERMES_CALL}"),
    "fc-before": ("fc", lambda text: f"{HERMES_CALL}\n\n{text}"),
    "react-after": ("react", lambda text: f"{text}\n\n{REACT_CALL}"),
}
_STEPS_SHOWN = (
    "kept: ReAct steps shown in an earlier fenced block (with an Observation, a Final Answer or Finish in it) end "
    "the turn before the genuine action; reading on past a fenced Observation would also run the steps a model "
    "writes after an observation it made up"
)
MIRROR_XFAIL: dict[tuple[str, str], str] = {
    ("finish-bracket-fenced", "react-after"): _STEPS_SHOWN,
    ("react-format-explained", "react-after"): _STEPS_SHOWN,
    ("quote-previous-react", "react-after"): _STEPS_SHOWN,
    ("react-prompt-template", "react-after"): _STEPS_SHOWN,
}


def _mirror_params():
    for name in ANSWERS:
        for mirror in MIRRORS:
            yield gap_param(name, mirror, gap=MIRROR_XFAIL.get((name, mirror)), id=f"{name}-{mirror}")


@pytest.mark.parametrize("size", [None, 1, 7])
@pytest.mark.parametrize(("name", "mirror"), list(_mirror_params()))
def test_a_genuine_call_beside_an_answer_still_runs(name, mirror, size):
    """The genuine call runs; a call the answer shows in a fence may run with it (see
    ``RUNS_EXAMPLE``): a genuine call is never lost."""
    strategy, build = MIRRORS[mirror]
    _, turn = read(strategy, Case(TOOLS, build(ANSWERS[name])), size)
    assert isinstance(turn.decision, ToolCalls)
    assert ("web_search", {"query": "mirror"}) in [(c.name, c.arguments) for c in turn.decision.calls]


# ---- where the wave-33 readings stop: a genuine call is still read -----------------------------

FLAT_CALL = 'Thought: I will look it up.\n```json\n{"action": "search", "query": "Paris"}\n```'


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_flat_call_object_whose_keys_are_the_tools_parameters_still_runs(size):
    """Only keys that are none of the tool's parameters make a record (``{"tool": ..., "calls": 12}``)."""
    _, turn = read("react", Case(TOOLS, FLAT_CALL), size)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "Paris"})]


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_call_object_with_a_description_but_real_arguments_still_runs(size):
    """A declaration is a name, a description and a parameter *schema*; plain arguments are a call."""
    text = '```json\n{"name": "search", "description": "look it up", "arguments": {"query": "Paris"}}\n```'
    _, turn = read("react", Case(TOOLS, text), size)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "Paris"})]


@pytest.mark.parametrize("strategy", ["fc", "react"])
@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_tool_call_after_prose_still_runs_one_in_a_string_does_not(strategy, size):
    genuine = 'Let me search.\n<tool_call>\n{"name": "search", "arguments": {"query": "Paris"}}\n</tool_call>'
    _, turn = read(strategy, Case(TOOLS, genuine), size)
    assert [(c.name, c.arguments) for c in turn.decision.calls] == [("search", {"query": "Paris"})]
    quoted = 'The model printed "<tool_call>{\\"name\\": \\"search\\"}</tool_call>" as text.'
    streamed, turn = read(strategy, Case(TOOLS, quoted), size)
    assert turn.decision == FinalAnswer(quoted) and streamed == quoted


@pytest.mark.parametrize("size", [None, 1, 7])
def test_a_fenced_thought_alone_is_still_asked_again(size):
    """Steps shown in a block are the answer only after prose that introduces them: a reply that is
    only a fenced ``Thought:`` is a step cut short."""
    _, turn = read("react", Case(TOOLS, "```\nThought: I need to search first.\n```"), size)
    assert isinstance(turn.decision, ParseFailure)


@pytest.mark.parametrize("size", [None, 1, 7])
def test_an_unfenced_action_naming_a_phrase_is_still_a_call_of_an_unknown_tool(size):
    """The template rule needs every label in a block after prose; elsewhere the model is told."""
    text = "Thought: plan.\nAction: the action to take next\nAction Input: x"
    _, turn = read("react", Case(TOOLS, text), size)
    assert isinstance(turn.decision, ToolCalls)
