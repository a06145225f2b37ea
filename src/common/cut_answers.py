"""A model answer stopped by its length limit: found on every path, one sentence for people.

An answer is cut when the server stops it at `MODEL_MAX_TOKENS` or at the end of its context
(the prompt and the answer share it: llama.cpp's `--ctx-size` / `n_ctx`). Providers say so in
the finish reason (OpenAI and compatible servers `length`, Anthropic `max_tokens`, Gemini
`MAX_TOKENS`, Ollama's `done_reason` `length`); the openai client's `.parse()` (json_schema,
and json_mode, whose request carries a `response_format`) raises `LengthFinishReasonError`
instead of answering. Either way the call ends in an `AnswerCutError`, which `model_errors`
turns into the node's one `ModelCallError` sentence.

A cut answer is not asked again as a malformed one: the same prompt under the same limits is
cut again (always when the prompt filled the context), and each try of a small local model can
take minutes. Raising the limit and resuming the thread retries the node.
"""

from __future__ import annotations

from typing import Any

from common.settings import get_settings

CUT_OFF = frozenset({"length", "max_tokens", "MAX_TOKENS"})
"""Finish reasons of an answer stopped by its token limit (OpenAI, Anthropic, Gemini, Ollama)."""

FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason")
"""Where integrations put the finish reason in a message's `response_metadata`."""

LENGTH_ERROR = ("openai", "LengthFinishReasonError")
"""The openai client's error for a parsed completion whose finish reason is `length`."""


class AnswerCutError(Exception):
    """A model answer stopped at its length limit, with the token counts the server gave."""

    def __init__(
        self, reason: str, prompt_tokens: int | None = None, answer_tokens: int | None = None
    ) -> None:
        self.reason = reason
        """The finish reason as the provider gave it (e.g. `length`)."""
        self.prompt_tokens = prompt_tokens
        """Tokens of the prompt, when the server counted them."""
        self.answer_tokens = answer_tokens
        """Tokens of the cut answer, when the server counted them."""
        super().__init__(f"The model {self.problem()}.")

    def problem(self) -> str:
        """`stopped its answer at the length limit (...): raise MODEL_MAX_TOKENS (now N), ...`."""
        counts = ""
        if self.prompt_tokens is not None and self.answer_tokens is not None:
            counts = f"; prompt {self.prompt_tokens} tokens, answer {self.answer_tokens}"
        return (
            f"stopped its answer at the length limit (finish_reason {self.reason}{counts}): raise "
            f"MODEL_MAX_TOKENS (now {get_settings().model_max_tokens}), or give the server a "
            "larger context (llama.cpp: --ctx-size / n_ctx) or a shorter prompt "
            "(PLANNER_TOOL_BUDGET, CONVERSATION_TOKEN_BUDGET)"
        )


def _count(value: Any) -> int | None:
    """A token count, or None when the server gave none."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cut_of(message: object) -> AnswerCutError | None:
    """The cut a chat message's finish reason records, or None (also for None and non-messages)."""
    meta = getattr(message, "response_metadata", None)
    if not isinstance(meta, dict):
        return None
    reason = next((meta[k] for k in FINISH_KEYS if meta.get(k) in CUT_OFF), None)
    if reason is None:
        return None
    usage = getattr(message, "usage_metadata", None) or {}
    return AnswerCutError(
        str(reason), _count(usage.get("input_tokens")), _count(usage.get("output_tokens"))
    )


def length_error(exc: BaseException) -> AnswerCutError | None:
    """`exc` as an `AnswerCutError` when it is one, or the openai client's length error."""
    if isinstance(exc, AnswerCutError):
        return exc
    module, name = LENGTH_ERROR
    home = type(exc).__module__
    if type(exc).__name__ != name or not (home == module or home.startswith(module + ".")):
        return None
    completion = getattr(exc, "completion", None)
    usage = getattr(completion, "usage", None)
    return AnswerCutError(
        "length",
        _count(getattr(usage, "prompt_tokens", None)),
        _count(getattr(usage, "completion_tokens", None)),
    )
