"""The ReAct strategy's own parts: the streaming parser of its text format (``parser``), its
prompts and scratchpad (``prompt``), and the reading of one model turn (``turn``)."""
