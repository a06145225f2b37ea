"""Memory of past runs in a thread: what a prompt recalls keeps the mark of where it came from.

The planner's prompt shows the user's relevant past runs (`common.memory`). Their text may hold
what another thread read (an email's IBAN), so before a prompt shows a run, the thread's record
(`strategies.with_planner.seen`) notes it with the run's marks: the data-leaving check then
reads it as results of those experts, and a call carrying it out is held naming them, as if
they had been read in this thread. A run without a thread keeps no such record: its prompt
recalls nothing.

When a turn is remembered, its marks are every expert whose data the thread holds (what it
read, in any turn, and the marks of what it recalled; without a thread, the experts its calls
went to), so a mark passes on from one remembered run to the next. A turn that read nothing
has no mark: its text is the user's words and the model's, and leaves freely.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from common.embeddings import configured_embeddings
from common.memory import RunRecord, describe_run, describe_runs, search_runs, sources_of
from common.settings import get_settings
from strategies.with_planner.seen import read_by, seen_for

NO_THREAD = "(not recalled: a run without a thread keeps no record of what it recalls)"
"""The prompt's memory when nothing could mark what it recalled."""


async def recall(state: Mapping[str, Any], runtime: Runtime[Any], user: str, request: str) -> str:
    """`user`'s past runs relevant to `request`, for the prompt, each marked in the thread first."""
    if runtime.store is None:
        return "(no store configured)"
    record = seen_for(runtime, state)
    if record is None:
        return NO_THREAD
    embeddings = await configured_embeddings(get_settings().embedding_model)
    runs = await search_runs(runtime.store, user, request, embeddings=embeddings)
    # Marked before the prompt is built: a model never sees a past run the check cannot see.
    for run in runs:
        await record.add_recalled(
            sources_of(run), describe_run(run), str(run.get("question") or "")
        )
    return describe_runs(runs)


async def turn_sources(
    state: Mapping[str, Any], runtime: Runtime[Any], record: RunRecord
) -> list[str]:
    """The marks of a turn's remembered `record`: the experts whose data its text may hold."""
    held = await read_by(state, runtime)
    if held is None:
        # No thread, no record of what was read: the experts the turn called (control tools too).
        held = {c["expert"] for c in record["tool_calls"]}
    return sorted(held)
