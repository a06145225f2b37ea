"""A structured answer with its raw message, from langchain-openai, in one runnable.

`ChatOpenAI.with_structured_output(schema, method="json_schema", include_raw=True)` answers
`{"raw": message, "parsed": ..., "parsing_error": ...}` through a chain of five runnables (a map
around the bound model, an assign with a fallback, a refusal check, the parser), each with its
callback manager and config, and one (`RunnableAssign._ainvoke`) whose signature LangChain
inspects on every call: about half a millisecond of a planner call's CPU (issue 45). `with_raw`
keeps that chain's bound model, so the request is the same to the byte, and does the rest in
one step: the refusal check and JSON parse of langchain-openai's own, any error of them
answered as `parsing_error` with `parsed` None, as the chain's fallback does. A chain of another
shape (another langchain-openai) is kept as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from langchain_core.messages import BaseMessage
from langchain_core.runnables import Runnable, RunnableBinding, RunnableLambda

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.runnables import RunnableConfig


def bound_model(chain: Runnable[Any, Any]) -> Runnable[Any, BaseMessage] | None:
    """The bound model of `with_structured_output(..., include_raw=True)`'s chain, or None.

    That chain is `RunnableMap(raw=bound model) | parser with fallback`.
    """
    steps = getattr(getattr(chain, "first", None), "steps__", None)
    model = steps.get("raw") if isinstance(steps, dict) and len(steps) == 1 else None
    return model if isinstance(model, RunnableBinding) else None


def with_raw(chain: Runnable[LanguageModelInput, Any]) -> Runnable[LanguageModelInput, Any]:
    """`chain` (an include_raw json_schema chain of langchain-openai) as one step; see above."""
    model = bound_model(chain)
    if model is None:
        return chain
    # Imported here, as `common.structured` imports LangChain's parsers: building the graph
    # does without them (and a graph without OpenAI models without langchain-openai).
    from langchain_core.output_parsers import JsonOutputParser
    from langchain_core.outputs import ChatGeneration
    from langchain_openai.chat_models.base import _raise_on_refusal

    parser = JsonOutputParser()

    def answer(raw: BaseMessage) -> dict[str, Any]:
        try:
            _raise_on_refusal(raw)
            parsed = parser.parse_result([ChatGeneration(message=raw)])
        except Exception as exc:  # as the chain's fallback: any parsing error is the answer's
            return {"raw": raw, "parsed": None, "parsing_error": exc}
        return {"raw": raw, "parsed": parsed, "parsing_error": None}

    def ask(value: LanguageModelInput, config: RunnableConfig) -> dict[str, Any]:
        return answer(model.invoke(value, config))

    async def aask(value: LanguageModelInput, config: RunnableConfig) -> dict[str, Any]:
        return answer(await model.ainvoke(value, config))

    return RunnableLambda(ask, aask, name="structured_with_raw")
