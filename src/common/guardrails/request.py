"""Rules 1 to 4 on the user's request: whether it may go ahead, or a refusal saying why."""

from __future__ import annotations

import math
from dataclasses import dataclass

from common.guardrails.config import GuardrailConfig
from common.guardrails.harmful import harmful_reason
from common.guardrails.text import folded_text
from common.guardrails.urls import denied_urls


@dataclass(frozen=True)
class Refusal:
    """A request the guard stage turns down, with a sentence telling the user what to change."""

    rule: str
    """Which rule refused: `empty_request`, `too_short`, `too_long`, `too_many_tokens`,
    `url_denied` or `harmful`."""

    message: str
    """A clear sentence for the user, naming the limit or the problem and what to change."""


def check_request(text: str, cfg: GuardrailConfig) -> Refusal | None:
    """Why the user's request is refused (rules 1 to 4), or None when it may go ahead.

    In order: empty or too short (visible characters after folding), too long (characters of
    the stripped request, then the estimated tokens `ceil(characters / 4)`), a denied URL or
    address, a harmful command. Secrets are not a reason to refuse: they are masked (rule 5).
    """
    visible = folded_text(text).strip()
    if not visible:
        return Refusal(
            "empty_request", "Your request is empty. Please write what you would like me to do."
        )
    if len(visible) < cfg.min_request_chars:
        return Refusal(
            "too_short",
            f"Your request is too short ({_count(len(visible), 'character')}; at least "
            f"{_count(cfg.min_request_chars, 'character')} are needed). Please describe in a "
            "few words what you would like me to do.",
        )
    stripped = text.strip()
    if len(stripped) > cfg.max_request_chars:
        return Refusal(
            "too_long",
            f"Your request is too long ({len(stripped):,} characters; the limit is "
            f"{cfg.max_request_chars:,}). Please shorten it or ask about one part at a time.",
        )
    tokens = estimate_tokens(stripped)
    if tokens > cfg.max_request_tokens:
        return Refusal(
            "too_many_tokens",
            f"Your request is too long (about {tokens:,} tokens; the limit is "
            f"{cfg.max_request_tokens:,}). Please shorten it or ask about one part at a time.",
        )
    return _refused_content(text, cfg)


def _refused_content(text: str, cfg: GuardrailConfig) -> Refusal | None:
    """Why the request's content is refused (rules 3 and 4: a denied address, a harmful command)."""
    offending = denied_urls(text, cfg)
    if offending:
        shown = ", ".join(offending[:3]) + (" and others" if len(offending) > 3 else "")
        return Refusal(
            "url_denied",
            f"I can't access {shown}: local, private, internal and cloud-metadata addresses "
            "and blocked domains are not allowed. Please remove the address or paste the "
            "relevant text instead.",
        )
    if cfg.refuse_harmful:
        reason = harmful_reason(text)
        if reason is not None:
            return Refusal(
                "harmful",
                f"I can't help with this request: it contains {reason}, which could damage a "
                "system or defeat its protection. Please remove that part, or describe the "
                "safe result you need instead.",
            )
    return None


def estimate_tokens(text: str) -> int:
    """Estimated tokens of a text: one per four characters, rounded up."""
    return math.ceil(len(text) / 4)


def _count(n: int, noun: str) -> str:
    """`1 character`, `2 characters`."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"
