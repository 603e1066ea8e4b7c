"""Every text the model reads that this plugin wrote, in one place.

Wording here is model-facing: short, specific, and saying what to do next.
User-facing messages (shown in the chat when a run cannot finish) are at the end.
"""

# --- knowledge context -------------------------------------------------------------

KNOWLEDGE_HEADER = (
    "Use the following knowledge to answer. Each source is numbered; "
    "if the knowledge does not contain the answer, say so rather than guessing."
)
KNOWLEDGE_SOURCE = "[{position}] {title}\n{content}"
KNOWLEDGE_CUT = "\n[... the rest of the knowledge ({chars} characters) is left out: it does not fit the model's context window]"

# --- the loop's notes to the model -------------------------------------------------

ITERATION_LIMIT_NOTE = (
    "You have used the {rounds} of tool calls allowed for this task. "
    "Do not call any more tools. Answer the user now with what you have learned; "
    "if something is still unknown, say what and why."
)
TIME_LIMIT_NOTE = (
    "Time for this task is almost up: another round of tool calls would not finish in time. "
    "Do not call any more tools. Answer the user now with what you have learned; "
    "if something is still unknown, say what and why."
)
SIZE_LIMIT_NOTE = (
    "This conversation has grown almost too large to send: another round of tool calls would not fit. "
    "Do not call any more tools. Answer the user now with what you have learned; "
    "if something is still unknown, say what and why."
)
TOOL_UNDESCRIBED = "A tool whose declaration gives no description."
"""What the model reads of a tool whose declaration has no description, label or name
(``tool_schema._tool_description``): never an empty description, which Amazon Bedrock refuses."""
UNKNOWN_TOOL = (
    "Error: there is no tool named {name!r}. Available tools: {available}. "
    "Call one of these by its exact name, or answer without a tool."
)
NO_TOOLS_AVAILABLE = "none (answer directly)"
INVALID_ARGUMENTS = "Error: the call to {name!r} was not run: {error} Send the call again with corrected arguments."
REQUEST_TOO_LARGE_FOR_TOOL = (
    "Error: the call to {name!r} was not run: with the values set for it in the node, its request "
    "would take {size} bytes, more than a tool call may carry ({limit} bytes). This tool cannot be "
    "run from here; answer without it."
)
NOT_RUN_AT_TIME_LIMIT = (
    "Error: the call to {name!r} was not run: the time this run keeps for tool calls ran out while "
    "it waited for other calls of the same reply to finish. Answer with what you have."
)
REPEATED_CALL = (
    "Error: the call to {name!r} was not run again: you already made this exact call "
    "{count} times and its result is above. Use that result, change the arguments, or answer."
)
OBSERVATION_SHORTENED = "\n[shortened to save context: {tokens} tokens left out]"
TOOL_CALL_UNREADABLE = (
    "Your last reply contained tool-call markup that could not be read (unknown tool name or "
    "broken format). Use the native tool-calling interface with one of the available tools, "
    "or answer in plain text."
)
TOOL_CALL_UNREADABLE_REACT = (
    "Your last reply contained tool-call markup that could not be read (unknown tool name or "
    "broken format). Call a tool with an Action line naming one of the available tools and an "
    "Action Input, or give your Final Answer in plain text."
)
EMPTY_REPLY = "Your last reply was empty. Answer the user's question, or call one of the tools."
ONLY_REASONING_REPLY = (
    "Your last reply had reasoning but no answer and no tool call. Answer the user's question, or call one of the tools."
)
TOOL_CALL_MISSING = (
    "Your last reply said it would call a tool, but no tool call came through. "
    "Call the tool again, or answer without it."
)

REACT_FALLBACK_NOTE = (
    "The model {model} declares no native tool calling, so this run calls tools with ReAct steps "
    "({step_format}: {how})."
)
REACT_TOOLS_DROPPED_NOTE = (
    "The model plugin {provider} never sends tools to the model {model}, so this run calls tools "
    "with ReAct steps ({step_format}: {how})."
)
REACT_TOOLS_REFUSED_NOTE = (
    "The model {model} refused native tool calling ({error}), so this run calls tools with ReAct "
    "steps ({step_format}: {how})."
)
REACT_STEP_FORMATS = {
    "text": "Thought / Action / Observation written as text",
    "json_schema": "one JSON object per step, decoded against the tools' schemas",
}

# --- user-facing endings ------------------------------------------------------------

STOPPED_WITHOUT_ANSWER = (
    "The agent stopped after {rounds} without a final answer from the model. "
    "Try again, allow more iterations, or check the agent log for the last tool results."
)


def rounds(count: int) -> str:
    """``count`` rounds as the ``{rounds}`` of the texts above say it: "1 round", "3 rounds"."""
    return f"{count} round" if count == 1 else f"{count} rounds"


MODEL_FAILED = "The model call failed in round {round}: {error}"
UNREADABLE_REPLIES = "The model's replies could not be understood after {attempts} attempts: {problem}"

# --- ReAct format -------------------------------------------------------------------

REACT_TOOLS_HEADER = "You can use these tools (name: description; arguments as a JSON schema):"
REACT_TOOL_LINE = "- {name}: {description}; arguments: {schema}"
REACT_FORMAT = """To use a tool, reply in exactly this format and then stop:
Thought: what you will do next and why
Action:
```json
{{"action": "<one of: {names}>", "action_input": {{<arguments as JSON>}}}}
```
The tool's result comes back to you as "Observation: ...". Use one action at a time.

When you can answer, reply:
Thought: I know the answer.
Final Answer: <your answer to the user>"""
REACT_NO_TOOLS = "No tools are available: reply with\nThought: <your reasoning>\nFinal Answer: <your answer>"
REACT_CONTINUE = (
    "(A note from the agent, not from the user: the user has not written again.) "
    "Go on with the user's question using the Observation above: reply with your next Thought "
    "and either an Action or your Final Answer."
)
REACT_CONTINUE_ANSWER_NOW = (
    "(A note from the agent, not from the user: the user has not written again.) "
    "No more tools can be used: reply with your Thought and then your Final Answer to the "
    "user's question, using the Observations above."
)
"""``REACT_CONTINUE`` once the run must answer (the iteration limit, repeated calls, the time
limit): the last message the model reads agrees with the system prompt's limit note instead of
inviting an Action."""
REACT_FORMAT_PROBLEM = (
    "Your reply did not follow the format: {problem} "
    "Reply with a Thought and then either an Action (a JSON blob) or a Final Answer."
)
REACT_ANSWER_SCHEMA = (
    "Your Final Answer must be JSON and nothing else: write \"Final Answer:\" followed by one JSON "
    "value (no code fence, no other text) that validates against this JSON schema:\n{schema}"
)
"""The note of a ReAct prompt (text steps) when the node's model parameters set a JSON schema
(``agent_core.answer_schema``)."""
# what was wrong with a ReAct reply (fills REACT_FORMAT_PROBLEM)
PROBLEM_EMPTY = "The reply was empty."
PROBLEM_ONLY_REASONING = "The reply contained only reasoning and no Action or Final Answer."
PROBLEM_THOUGHT_ONLY = "The reply had a Thought but neither an Action nor a Final Answer."
PROBLEM_ORPHAN_INPUT = "Action_input written without an Action line."
PROBLEM_NO_NAME = "Action line without a tool name."
PROBLEM_NONE_EMPTY = "Action was None (no tool) but no answer text was given."
PROBLEM_EMPTY_ANSWER = "Final Answer was empty."
PROBLEM_INVENTED_OBSERVATION = (
    "Observation written without an Action; observations come from tools, not from you."
)
PROBLEM_NOT_JSON = "Action is not valid JSON: {snippet}"
PROBLEM_NO_TOOL_IN_JSON = (
    'Action JSON names no tool (expected {{"action": <tool name>, "action_input": {{...}}}}): {snippet}'
)
PROBLEM_UNREADABLE_BLOCK = "Action block could not be read: {snippet}"
REACT_COMPLETION_QUESTION = "Question: {text}"
REACT_COMPLETION_ANSWER = "Final Answer: {text}"

# Completion models (base models continuing a text) copy what they see, so their prompt has no
# placeholder to copy (a tiny model wrote "Final Answer: <your answer to the user>" verbatim):
# the answer format, one worked example whose observation is answered (with a made-up tool
# whose name is not a word of its question), the tools, then one concrete call per tool, last,
# so the nearest "Action:" lines name real tools. Measured on Gemma 3 270M: bench/README.md.
REACT_COMPLETION_INTRO = "Answer the question. Use a tool when it helps."
REACT_COMPLETION_TOOLS_HEADER = "Tools:"
REACT_COMPLETION_TOOL_LINE = "- {name}: {description}"
REACT_COMPLETION_CALLS_HEADER = (
    "To use a tool, write Thought, Action and Action Input, then stop: the result comes back as an Observation. "
    "Examples:"
)
REACT_COMPLETION_CALL = """Question: {task}: {values}
Thought: I will use {name}.
Action: {name}
Action Input: {arguments}"""
REACT_COMPLETION_WORKED = """After the Observation, answer from it. Example:
Question: What is the weather in Rome?
Thought: I will use weather.
Action: weather
Action Input: {"city": "Rome"}
Observation: Rome: 24 °C, sunny
Thought: I know the final answer.
Final Answer: It is 24 °C and sunny in Rome."""
REACT_COMPLETION_ANSWER_FORMAT = """When you know the answer, write:
Thought: I know the final answer.
Final Answer: the answer"""
REACT_COMPLETION_ACTION = "Action: {name}\nAction Input: {arguments}"

# --- why a tool call cannot run (fills INVALID_ARGUMENTS; each ends with a period) ---

MSG_NOT_JSON = "its arguments are not valid JSON ({detail})."
MSG_TRUNCATED = "its arguments JSON is incomplete: {detail}."
# why a repaired JSON text is not used (agent_core.json_args.repair_problem); inside MSG_NOT_JSON's detail
REPAIR_NOT_CONTAINER = "it is not an object or array"
REPAIR_WRONG_KIND = "it does not hold the object or array it opens"
REPAIR_NOTHING = "nothing could be read from it"
REPAIR_INVENTED = "a value is missing"
REPAIR_LOST_WORD = "reading it would lose {word!r}"
REPAIR_CUT_LITERAL = "{word!r} is not a value (true, false or null cut short?)"
REPAIR_TOO_DEEP = "it is nested too deeply"
REPAIR_MERGED = "{text!r} in a value opens another object of the same keys (two calls joined? the first cut?)"
MSG_NOT_OBJECT = "its arguments must be a JSON object with one key per parameter, not {kind}."
MSG_TOO_DEEP = (
    "its arguments are nested more than {limit} levels deep; no tool takes that, "
    "so pass the value flatter (or as a string)."
)
MSG_DECLARATIONS_LISTED = (
    "its arguments are a list of the tool's parameter declarations (its schema) instead of values; "
    "write one JSON object that maps each parameter's name to its value."
)
MSG_SEVERAL_OBJECTS = "its arguments contain {count} JSON objects one after another; make one tool call per object."
MSG_CUT_BY_LENGTH = (
    "its arguments were cut off by the output length limit ({detail}); "
    "keep them shorter or split the work into smaller calls."
)
MSG_MALFORMED = "its arguments JSON is malformed: {detail}."
MSG_HEAD_LOST = (
    "its arguments arrived without their beginning ({start!r}... does not open with '{{'; the first "
    "piece of the call was likely lost on the way), so nothing was guessed or run."
)
MSG_NO_NAME = "the tool call has no function name."
MSG_MISSING = "missing required parameter {names}."
MSG_SCHEMA_ECHO = (
    "its arguments repeat the tool's parameter schema ({keys}) instead of giving values; "
    "write the values themselves, for example {example}."
)
MSG_SECRET_IN_ARGUMENTS = (
    "argument {names} holds the value of a secret parameter of the node's tools, which is never "
    "passed in a call's arguments (each tool gets its own secret from the node's settings); leave it out."
)
MSG_NOT_OPTION = "parameter {name!r} must be one of {options} (got {value!r})."
MSG_NOT_NUMBER = "parameter {name!r} must be a number (got {value!r})."
MSG_NOT_BOOLEAN = "parameter {name!r} must be true or false (got {value!r})."
MSG_NOT_KIND = "parameter {name!r} must be {kinds} (got {value})."

# --- tool observations (what the model reads of a tool's output) ---------------------


NO_OUTPUT = "The tool {tool!r} ran and returned no output."
TOOL_FAILED = (
    "Error: the tool {tool!r} failed: {error}. "
    "Call it again (with corrected arguments) if that can help, or answer without it."
)
OUTPUT_BEFORE_FAILURE = "Output received before the failure:"
CUT_NOTE = (
    "[{dropped} tokens were cut from the middle of this result to fit the context; "
    "the full result is in the agent log. Ask for a narrower result if you need the missing part.]"
)
CUT_NOTE_LOG_CUT = (
    "[{dropped} tokens were cut from this result to fit the context; the agent log keeps its "
    "first {limit} characters. Ask for a narrower result if you need the missing part.]"
)
RESULT_TAIL_NOTE = "[... {dropped} characters not kept; the result's last lines follow]"
"""Between the stored head of a result too long to keep and its last lines (a long log ends
with its error or exit status)."""
INVALID_RESPONSE = "(the tool returned an invalid response: {count} unreadable message(s) skipped: {kinds})"
RESULT_LINK = "result link: {url}."
RESULT_LINK_FORWARDED = "result link: {url}. The file was also sent to the user."
IMAGE_SENT = "An image was sent to the user: {what}."
IMAGE_NOT_FETCHABLE = (
    "An image from the tool{what} was not sent to the user: Dify fetches images from http(s) "
    "addresses only, and its address {scheme}."
)
FILE_SENT = "A file was sent to the user: {what}."
FILE_NOT_SHOWN = "The tool returned a file ({what}) without an address, so it could not be shown to the user."
# a forwarded Dify file (a /files/ path, a tool_file_id, a signed "sign=" query): its address is
# internal and expires within minutes, so the model reads its name only (agent_core.observation)
FILE_SHOWN = (
    "A file was sent to the user: {what}. It is shown with your answer: "
    "do not write a link or address for it."
)
IMAGE_SHOWN = (
    "An image was sent to the user: {what}. It is shown with your answer: "
    "do not write a link, address or image markdown for it."
)
FILE_INCOMPLETE = (
    "The tool's file {what} arrived incomplete ({received} of {total} bytes) and was not sent to the user."
)
FILE_TOO_LARGE = "The tool's file {what} is too large to send to the user ({size} bytes; the limit is {limit} bytes)."
INLINE_DATA = "inline data ({chars} characters)"
REDACTED = "[REDACTED]"

# --- a model that repeats the same call (agent_core.loop, REPEAT_LIMIT) ---------------

REPEATED_CALLS_NOTE = (
    "You are repeating yourself: you called {names} again with the same arguments after "
    "{count} identical calls, and those calls were not run again. Do not call any more tools. "
    "Answer the user now with what the results above tell you; if something is still unknown, say what and why."
)
STOPPED_REPEATING = (
    "The agent stopped because the model kept repeating the same tool call ({names}) with the same "
    "arguments instead of answering. Try again or rephrase the request; the agent log shows the results it got."
)

# --- a model that keeps replying with nothing (agent_core.loop, MAX_PARSE_RETRIES; user-facing) ---

EMPTY_REPLIES = (
    "The model returned no answer and no tool call {attempts} times in a row, so the agent stopped. "
    "Try again, or check the model's settings (for example its maximum output tokens)."
)

# --- a reply the model provider's content or safety filter stopped (agent_core.loop; user-facing) ---

FILTERED_REPLIES = (
    "The model provider's content filter stopped the model's reply before it said anything "
    "({attempts} times in a row, finish reason \"{reason}\"), so the agent stopped. Rephrase the "
    "request, or check the provider's content filter settings for this model."
)
ANSWER_FILTERED = (
    "[The answer above is incomplete: the model provider's content filter stopped it here "
    "(finish reason \"{reason}\").]"
)
BROKEN_REPLIES = (
    "The model plugin could not read the model's reply and stopped before any of it arrived "
    "({attempts} times in a row, finish reason \"{reason}\"), so the agent stopped. Try again, or "
    "check the model server's output (a piece of text it sent was not valid JSON)."
)
ANSWER_STREAM_BROKEN = (
    "[The answer above is incomplete: the model plugin could not read the rest of the model's "
    "reply and stopped here (finish reason \"{reason}\").]"
)

# --- conversation memory ------------------------------------------------------------

EMPTY_TOOL_RESULT = "(the tool returned no output)"
"""Stands in for an empty tool result replayed from memory (providers reject empty messages: dify27440)."""

# --- a ReAct reply with neither an action nor an answer (agent_core.react.turn) -----------------

NO_ACTION_OR_ANSWER = "it had neither an Action nor a Final Answer."

# --- a model that goes silent (agent_core.model_call; user-facing inside MODEL_FAILED) ---------

MODEL_SILENT = "no reply from the model for {seconds:g} seconds"

# --- the log tree (agent_core.loop; shown in Dify's log view) ---------------------------------

ROUND_PREVIEW_CUT = "\n[... {cut} more characters: the CALL node holds the whole output]"
AFTER_ANSWER_CUT = "\n[... {cut} more characters not shown]"

# --- replies cut by the model's output limit (finish_reason "length"; agent_core.loop) ----------

REPLY_CUT = (
    "Your last reply was cut off by the output limit before it was complete, so nothing in it was run. "
    "Reply again, shorter: one tool call with short arguments, or a shorter answer."
)
TEXT_CALL_RESULT = "Result of your call to {name}:\n{observation}"
"""How the result of a call the model wrote in its text reaches it when the call cannot go
back as a native call (its provider rebuilds the message from its own record: see
``function_calling.prompt.render_round``)."""

CONTINUE_CUT_ANSWER = (
    "Your answer was cut off by the output limit. Continue it exactly where it stopped, without repeating "
    "anything and without calling tools."
)
QUERY_FILE_TOO_LARGE = "{name} ({size} bytes) is larger than {limit} bytes: the model is told of it as text"
QUERY_FILE_NOT_FETCHED = "{name} could not be fetched ({error}): the model is told of it as text"
QUERY_IMAGE_NO_VISION = (
    "{name}: the model does not declare vision (image input) in its schema, so it is told of each image "
    "as text; pick a vision model for it to see images"
)
QUERY_DOCUMENT_NO_DOCUMENT = (
    "{name}: the model does not declare document input in its schema, so it is told of each document "
    "as text; pick a model that reads documents for it to see them"
)
ALLOWED_TOOLS_UNKNOWN = "allowed_tools names tools the node does not have, left out: {names}"
STEP_INTERRUPTED = "Your reply broke off with an error ({error}). {problem}"
MODEL_PAST_DEADLINE = "the run's time limit came while the model was still replying"
STOPPED_MID_REPLY_AT_TIME_LIMIT = (
    "The agent stopped because its time ran out ({seconds:g} s for the whole run) while the model was still "
    "replying. Try again, or raise the run's time limit (run_timeout) if Dify allows a longer run."
)
STOPPED_AT_SIZE_LIMIT = (
    "The agent stopped because the run's rounds grew too large for another request to the model "
    "(one daemon line) before the model answered. Try again with a model that writes less in each "
    "round, or with fewer rounds."
)
STOPPED_AT_TIME_LIMIT = (
    "The agent stopped because its time ran out ({seconds:g} s for the whole run) before the model answered. "
    "Try again, or raise the run's time limit (run_timeout) if Dify allows a longer run."
)
CALLS_CUT = (
    "Error: the call to {name!r} was not run: your reply was cut off by the output limit before it "
    "was complete, so none of its calls ran (a cut reply may miss calls or arguments). Call again, "
    "with shorter arguments or fewer calls at once."
)
STOPPED_AT_OUTPUT_LIMIT = (
    "The agent stopped: the model's replies were cut off by its output limit twice in a row, before "
    "a complete answer or tool call, so nothing in them was run. Raise the model's maximum output "
    "tokens, or ask for less at once."
)
ANSWER_CUT_OFF = (
    "[The answer above is incomplete: the model reached its output limit twice. "
    "Raise the model's maximum output tokens, or ask for a shorter answer.]"
)
ANSWER_REST_MISSING = (
    "[The answer above is incomplete: the model reached its output limit, and asked for the rest it "
    "gave none. Raise the model's maximum output tokens, or ask for a shorter answer.]"
)
ANSWER_CUT_TOO_LARGE = (
    "[The answer above is incomplete: the model reached its output limit, and the answer so far is too "
    "large to send back to the model to ask for the rest. Raise the model's maximum output tokens, or ask "
    "for a shorter answer.]"
)
ANSWER_CUT_NO_TIME = (
    "[The answer above is incomplete: the model reached its output limit, and the run has no time "
    "left to ask for the rest. Raise the model's maximum output tokens, or ask for a shorter answer.]"
)

# --- calls beyond the most one round runs (agent_core.round_cap, MAX_CALLS_PER_ROUND) ----------

CALL_NOT_RUN = (
    "Error: the call to {name!r} was not run: your reply asked for more tool calls than one round runs "
    "({limit}). Call it again in your next reply if you still need it."
)
"""The tool message of each native call beyond the limit (every call needs its own)."""
CALLS_NOT_RUN = (
    "{count} more tool calls of your reply were not run ({names}): one round runs at most {limit}. "
    "Ask again in your next reply for those you still need."
)
"""Said once, after the round's last result, where calls need no tool message each (ReAct
actions, calls written in the text)."""
ACTIONS_AFTER_OBSERVATION = (
    "Your reply went on after this action without waiting for its result (with an Observation or a Final Answer "
    "you wrote yourself); observations come only from tools, so what followed it was not read, and the {count} "
    "action(s) written there were not run ({names}). "
    "Call them again in your next reply if you still need them, now that you have the real result."
)
"""Said once, after the round's last observation, when a ReAct reply made up a result after its
actions (an ``Observation:``, or a ``Final Answer:`` written before any result) and wrote more
actions after it (``ReactTurn.after_actions``): those acted on the made-up result, so they are
named, not run."""
CALLS_NOT_RUN_LOG = (
    "{count} more tool calls of the model's reply were not run ({names}): one round runs at most {limit}. "
    "The model was told, and may ask for them again."
)

# --- a tool whose declaration does not validate (agent_core.params; shown in the log tree) ------

TOOL_DROPPED = (
    "The tool {name!r} was left out of this run: Dify sent a declaration the plugin cannot read. "
    "Check the tool's settings in the Agent node."
)
TOOL_TOO_LARGE_DROPPED = (
    "The tool {name!r} was left out of this run: its declaration (description and parameters) is "
    "too large to send to the model. Shorten its description or its parameters' options."
)
TOOL_DECLARATION_TOO_LARGE = (
    "declaration: {size} bytes, more than one tool's declaration may take in a request to the "
    "model ({limit} bytes)"
)

# --- a forwarded tool message that holds a secret (agent_core.observation) --------------------

EMPTY_QUERY = "(The user sent an empty message. Follow your instructions.)"
"""The user's turn when the node's query is empty: providers such as Anthropic and Bedrock
refuse an empty message, and the instruction may hold the whole task."""
MEMORY_UNREADABLE = "The conversation memory could not be read ({what}), so it was left out."
MEMORY_MESSAGES_LEFT_OUT = "{count} message(s) of the conversation memory could not be read and were left out."
COMPLETION_PARAMS_TOO_DEEP = (
    "{count} of the model's completion parameters ({names}) nest more than {limit} levels deep, "
    "more than a request to the model may carry, so they were left out."
)
MODEL_SCHEMA_UNREADABLE = (
    "The model's schema sent by Dify could not be read ({error}), so its features and context size are "
    "taken as unknown."
)
ANSWER_SCHEMA_UNREADABLE = (
    "The model's json_schema parameter could not be read as a JSON schema ({problem}), so it goes to "
    "the model as set and the final answer is not asked for in it."
)
# why a final answer does not follow the user's JSON schema (agent_core.answer_schema)
ANSWER_NOT_JSON = "it is not one JSON value: write the JSON alone after the Final Answer label."
ANSWER_WRONG_TYPE = "it is a JSON {kind}, not {expected}."
ANSWER_MISSING_FIELDS = "it lacks the required field(s) {names}."
ANSWER_NOT_IN_SCHEMA = "The final answer does not follow the JSON schema asked for: {problem}"
WITHHELD = "A result of the tool ({kind}) was not sent to the user: its address or name contains a secret value."
WITHHELD_CONTENT = "The tool's file {what} was not sent to the user: its content contains a secret value."
FILE_PART_WITHHELD = "[Attached {kind} not sent: its address or name contains a secret value]"
CITATIONS_LEFT_OUT = (
    "The tool sent {count} citations; the first {kept} (the best ranked) were passed on to the user, "
    "the rest left out."
)
WITHHELD_TOO_LARGE = (
    "A result of the tool ({kind}) was not sent to the user: its address or details take {size} bytes, "
    "more than one message to Dify may carry."
)

# --- ReAct steps as JSON objects (step_format json_schema; agent_core.react.json_prompt) ------
#
# The decoder only lets the model write a step the schema allows, so the prompt teaches what to
# put in it, not the syntax: which tool for which question (one worked call per tool, with the
# tool's own purpose as the question), and that the answer repeats what the observation says (a
# worked example with a made-up tool whose name is no word of its question). Measured on the
# in-box model: bench/README.md, "Constrained steps".

JSON_STEP_INTRO = (
    "Answer the question in steps. Each step is one JSON object: "
    '{{"action": <one of: {names}>, "action_input": <its arguments>}}. '
    "A tool's result comes back as an Observation. "
    'When you know the answer, write {{"action": "final_answer", "action_input": {{"answer": <the answer>}}}}, '
    "using the numbers and words of the Observation."
)
JSON_STEP_NO_TOOLS = (
    "Answer the question in one JSON object: "
    '{"action": "final_answer", "action_input": {"answer": <your answer>}}.'
)
JSON_STEP_TOOLS_HEADER = "Tools (name: description; arguments as a JSON schema):"
JSON_STEP_TOOL_LINE = "- {name}: {description}; arguments: {schema}"
JSON_STEP_EXAMPLES_HEADER = "Examples:"
JSON_STEP_QUESTION = "Question: {text}"
JSON_STEP_OBSERVATION = "Observation: {text}"
JSON_STEP_WORKED = [
    ("Question", "What is the weather in Rome?"),
    ("step", '{"action": "weather", "action_input": {"city": "Rome"}}'),
    ("Observation", "Rome: 24 °C, sunny"),
    ("step", '{"action": "final_answer", "action_input": {"answer": "Rome: 24 °C, sunny"}}'),
]
"""The worked example: its tool is not one of the node's, its answer copies the observation."""
JSON_STEP_ANSWER_SCHEMA = (
    'The final answer here is not {{"answer": ...}}: write {{"action": "final_answer", "action_input": '
    "<one JSON value that validates against this JSON schema>}}, the answer itself as that value. "
    "JSON schema of the final answer:\n{schema}"
)
"""The note of a JSON-steps prompt when the node's model parameters set a JSON schema: the
final-answer branch of the step schema is then the user's schema."""
JSON_STEP_NO_ACTION = 'The step has no "action": name one of the tools, or "final_answer".'
JSON_STEP_UNREADABLE = "The step is not one JSON object ({problem})."
JSON_STEP_FORMAT_PROBLEM = "Your last step could not be used: {problem} Reply with one JSON step."
STRUCTURED_OUTPUT_UNAVAILABLE = (
    "Dify could not call the model with a JSON schema ({error}); the run goes on with text steps."
)

SETTINGS_UNREADABLE = (
    "The Agent node's settings could not be read ({problems}). Check the node's model, tools, "
    "memory and inputs."
)
REQUEST_TOO_LARGE = (
    "The request to the model would be {size} bytes, more than the plugin daemon accepts in one "
    "line ({limit} bytes), even with the conversation history and tool results shortened: the "
    "query, instruction, knowledge context, tool declarations, the model's settings (its name, "
    "completion parameters or stop sequences) or the model's own replies are too large. Shorten "
    "them and run again."
)
MSG_ARGUMENTS_TOO_LARGE = (
    "its arguments take {size} bytes, more than a tool call may carry ({limit} bytes); "
    "pass a shorter value (or a reference to the data) instead."
)
