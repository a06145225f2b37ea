"""The knobs of the deterministic guard stage: one validated model, no rules."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator


class GuardrailConfig(BaseModel):
    """Knobs of the deterministic guard stage; every rule can be tuned or switched off."""

    model_config = ConfigDict(extra="forbid")

    min_request_chars: int = Field(default=2, ge=0)
    """Fewest visible characters a request may have (shorter ones are refused)."""

    max_request_chars: int = Field(default=8000, ge=1)
    """Most characters a request may have, surrounding whitespace excluded."""

    max_request_tokens: int = Field(default=2000, ge=1)
    """Most estimated tokens (`ceil(characters / 4)`) a request may have."""

    deny_private_urls: bool = True
    """Refuse local, loopback, private, link-local, internal and cloud-metadata addresses."""

    denied_domains: list[str] = Field(default_factory=list)
    """Domains refused with all their subdomains (`example.com` denies `a.example.com`).

    An entry that is an IP address or a network (`203.0.113.0/24`) denies those addresses.
    """

    allowed_hosts: list[str] = Field(default_factory=list)
    """Hosts always allowed, overriding every deny rule.

    Host names match exactly (no subdomains); IP entries match the address however it is
    written (`127.0.0.1` also allows `http://0x7f.1/`); a network (`10.1.0.0/16`) allows its
    addresses.
    """

    refuse_harmful: bool = True
    """Refuse requests with destructive commands, encoded scripts or malware intent."""

    mask_secrets: bool = True
    """Mask API keys, private keys, card numbers, SSN-like numbers and passwords.

    Read by the caller: `mask_secrets` and `mask_secrets_in` always mask.
    """

    max_tool_output_chars: int = Field(default=4000, ge=0)
    """Characters of one tool output shown to a model; the rest is cut with a note."""

    banned_words: list[str] = Field(default_factory=list)
    """Words or phrases masked in the final answer (whole words, any case)."""

    summarise_blobs: bool = True
    """Replace raw HTML documents, base64 runs and huge JSON in an answer by summaries."""

    max_blob_chars: int = Field(default=600, ge=1)
    """Size above which HTML, JSON or base64 in an answer counts as a blob."""

    check_numbers: bool = True
    """Check numeric answers against the tool outputs (NaN, infinities, invented numbers).

    Read by the caller: `numeric_problems` always checks.
    """

    @model_validator(mode="after")
    def _limits_are_consistent(self) -> GuardrailConfig:
        if self.min_request_chars > self.max_request_chars:
            raise ValueError("min_request_chars must not exceed max_request_chars")
        return self
