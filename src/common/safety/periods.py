"""A name that reads an account over a period: `HirePipelineReport(job_id, start_date, end_date)`.

Many servers name the figures of a period by what they count and a report word, with no verb:
`RoastDailyReport(date)`, `FerryOccupancyReport(sailing_id, date)`, `profit_and_loss_statement(
from_date, to_date)`. "Report" is also what a caller files (`report_damage`, `spam_report(
message_id)`), so the guard holds a report word alone. A date or a window is what sets such a
name apart: an account is read over a period; a filing says what happened, and to whom. Such a
name is read as an account over a period when:

- its last word is a period head (`[names] period_heads`: report, statement, summary), after
  one or more words naming what it counts, none of them a change word in any form nor a noun
  made from one (`publish_report(date)`, `payout_summary(from, to)`, `movement_report(date)`
  stay held);
- an argument names a date or a bound of a window (`[data] period_keys`: `start_date`,
  `fromDate`, `as_of`, `month`), and every other argument only chooses (ids, filters, a page)
  or is a choice among named values (an enum, a switch); nothing written (`notes`, `body`);
- its description, if any, does not act (`common.safety.quiet.description_acts`).
"""

from __future__ import annotations

from common.safety import vocabulary as vocab
from common.safety.arg_kinds import key_words
from common.safety.names import own_words
from common.safety.noun_reads import act_noun, only_chooses, paid_out
from common.safety.quiet import description_acts, written_argument
from common.safety.wording import verb_of

_HEADS = vocab.words("names", "period_heads")
_PERIOD_KEYS = vocab.words("data", "period_keys")


def _period(key: str) -> bool:
    """Whether an argument names a date or a bound of a window (`fromDate`, `as_of`, `month`)."""
    words = key_words(key)
    return bool(words) and ("-".join(words) in _PERIOD_KEYS or words[-1] in _PERIOD_KEYS)


def _changes(word: str) -> bool:
    """Whether a word is a change verb in any of its forms, or a noun made from one (payout)."""
    hit = verb_of(word, False)
    return (hit is not None and hit[0] != "read") or act_noun(word) is not None or paid_out(word)


def _a_choice(spec: object) -> bool:
    """Whether an argument is a choice among named values: an enum or a switch."""
    return isinstance(spec, dict) and ("enum" in spec or spec.get("type") == "boolean")


def period_report(
    server: str, name: str, description: str | None, schema: dict[str, object] | None
) -> str | None:
    """The argument naming the period a report counts over, when nothing may act; else None."""
    words = own_words(server, name)[1]
    if len(words) < 2 or words[-1] not in _HEADS:
        return None
    if any(map(_changes, words[:-1])):
        return None
    properties = (schema or {}).get("properties")
    properties = properties if isinstance(properties, dict) else {}
    dated = [str(key) for key in properties if _period(str(key))]
    rest = {k: v for k, v in properties.items() if k not in dated and not _a_choice(v)}
    if not dated or not only_chooses(rest) or written_argument(schema) is not None:
        return None
    if description_acts(description, words) is not None:
        return None
    return dated[0]
