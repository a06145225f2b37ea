"""The served room: who a client is, what it may set and reach, and who may answer what.

Everything about serving the graph to many users lives here, so one reading shows every rule:

- `tokens`: a credential (bearer JWT or API key) to a `Principal`, bounded and verified;
- `requests`: the one place that reads LangGraph's and Aegra's request shapes for the handlers;
- `handlers`: the `Auth` object both servers load (`langgraph.json`, `aegra.json`);
- `context_rule`: which run context fields a client may set, and only to tighten;
- `caller`: the typed caller, resolved once where a run enters the graph, carried on the runtime
  context; nodes read it and nothing else about identity;
- `identity`: the store layout of every user's records;
- `approvers`: who may answer a question, and until when;
- `audit`: the audit trail's writer;
- `aegra`: Aegra's approvals routes, the one adapter onto Aegra's internals.
"""
