"""The Function Calling strategy's own parts: its prompt (``prompt``) and the reading of one
model turn: streamed text, assembled tool calls, calls written in the content (``turn``)."""
