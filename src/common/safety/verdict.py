"""Read an LLM analyser's answer on which catalog tools a request would use irreversibly."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

Catalog = Mapping[str, Sequence[str]]
"""Server name -> the names of its tools, spelled as the server lists them."""

ToolRef = tuple[str, str]
"""A resolved tool: (server, tool), in the catalog's spelling."""


class ToolReason(BaseModel):
    """Why one named tool is irreversible, or only reads: one item of the analyser's reasons."""

    tool: str = Field(description="The tool's name, spelled as in blocked_tools/read_only_tools.")
    """The tool's name, as the analyser wrote it."""
    reason: str = Field(description="One short sentence.")
    """Why its effect cannot be undone, or why it changes nothing."""


class IrreversibilityAnalysis(BaseModel):
    """The analyser's structured answer: is the request irreversible, and through which tools."""

    # Every field is required and `reasons` is a list of items, not a map: strict structured
    # outputs take only closed objects without defaults (`common.strict_schema`).

    irreversible: bool = Field(
        description=(
            "True when carrying out the request would call at least one tool whose effect "
            "cannot be undone (sending, deleting, paying, publishing, overwriting...)."
        )
    )
    """Whether the request needs at least one irreversible call."""
    blocked_tools: list[str] = Field(
        description=(
            "Names of the catalog tools whose calls would be irreversible, spelled exactly as "
            "listed; write server/tool when two servers share a tool name. Empty when none."
        ),
    )
    """Tool names as the analyser wrote them."""
    read_only_tools: list[str] = Field(
        description=(
            "Names of the catalog tools that, for this request, only read or compute and change "
            "nothing: every call the request could make with them. Spelled exactly as listed. "
            "Empty when unsure."
        ),
    )
    """Tool names the analyser states only read for this request, as it wrote them."""
    reasons: list[ToolReason] = Field(
        description=(
            "For each blocked tool, one short sentence on why it cannot be undone; for each "
            "read-only tool, one on why it changes nothing."
        ),
    )
    """Why each named tool's effect is irreversible, or why it only reads."""


@dataclass(frozen=True)
class ParsedVerdict:
    """An analyser's answer, resolved against the catalog it was asked about."""

    irreversible: bool | None
    """The verdict; None when the answer could not be understood."""
    tools: tuple[ToolRef, ...] = ()
    """Resolved (server, tool) pairs, catalog spelling, no duplicates, in order of mention."""
    unknown: tuple[str, ...] = ()
    """Names the answer mentioned that match no catalog tool (reported, otherwise ignored)."""
    reasons: Mapping[str, str] = field(default_factory=dict)
    """"server/tool" -> the analyser's reason, for named tools it gave one for."""
    read_only: tuple[ToolRef, ...] = ()
    """Resolved tools the answer states only read for this request (a claim, not a verdict)."""


# --- resolving one mentioned name -------------------------------------------------------------

_WRAPPERS = "`'\"\u201c\u201d\u2018\u2019[]{}<>| \t"
_EMPHASIS = "*_~"
_TRAILING_PUNCTUATION = ".,;:!?"
_CALL_SUFFIX = re.compile(r"\([^()]*\)$")
_QUALIFIERS = ("__", "_", ".", "/", ":")
_MAX_NAME = 512
"""Longer mentions are cut: no decorated tool name is anywhere near this long."""


def _peel(name: str) -> str:
    """Take one layer of decoration off a mentioned name: wrappers first, then emphasis."""
    s = name.replace("\\", "").strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1]
    s = _CALL_SUFFIX.sub("", s.strip(_WRAPPERS).rstrip(_TRAILING_PUNCTUATION)).strip()
    return s if s != name else s.strip(_EMPHASIS)


def _stages(name: str) -> list[str]:
    """The name as written, then with ever more decoration removed."""
    stages: list[str] = []
    s = name.strip()[:_MAX_NAME]
    while s and s not in stages:
        stages.append(s)
        s = _peel(s)
    return stages


def _clean(name: str) -> str:
    """The name with all decoration removed ("" when nothing is left)."""
    s = name.strip()[:_MAX_NAME]
    while (peeled := _peel(s)) != s:
        s = peeled
    return s


def _exact(s: str) -> str:
    """The spelling as written: a tool named exactly so wins over one differing in case."""
    return s


def _casefold(s: str) -> str:
    """Case-insensitive spelling."""
    return s.casefold()


def _loose(s: str) -> str:
    """Case-insensitive spelling where "-" and "_" are the same."""
    return s.casefold().replace("-", "_")


def _splits(key: str, separator: str) -> Iterator[tuple[str, str]]:
    """Every (before, after) split of `key` around one occurrence of `separator`."""
    i = key.find(separator, 1)
    while i != -1:
        if i + len(separator) < len(key):
            yield key[:i], key[i + len(separator) :]
        i = key.find(separator, i + 1)


_Index = tuple[Callable[[str], str], dict[str, list[ToolRef]], dict[str, dict[str, list[ToolRef]]]]
"""A normalisation, then tool name -> tools, then server name -> tool name -> tools."""


class _Resolver:
    """Name look-ups against one catalog: indexed once, answers remembered."""

    def __init__(self, catalog: Catalog) -> None:
        self._position: dict[ToolRef, int] = {}
        self._indexes: list[_Index] = []
        for norm in (_exact, _casefold, _loose):
            tools: dict[str, list[ToolRef]] = {}
            servers: dict[str, dict[str, list[ToolRef]]] = {}
            for server, names in catalog.items():
                by_tool = servers.setdefault(norm(server), {})
                for tool in names:
                    ref = (server, tool)
                    self._position.setdefault(ref, len(self._position))
                    tools.setdefault(norm(tool), []).append(ref)
                    by_tool.setdefault(norm(tool), []).append(ref)
            self._indexes.append((norm, tools, servers))
        self._cache: dict[str, list[ToolRef]] = {}

    def __call__(self, name: str) -> list[ToolRef]:
        """The tools `name` refers to, as `resolve_tool_name` describes."""
        if name not in self._cache:
            self._cache[name] = self._resolve(name)
        return list(self._cache[name])

    def _resolve(self, name: str) -> list[ToolRef]:
        stages = _stages(name)
        for index in self._indexes:
            for stage in stages:
                found = self._match(stage, *index)
                if found:
                    return found
        return []

    def _match(
        self,
        name: str,
        norm: Callable[[str], str],
        tools: Mapping[str, list[ToolRef]],
        servers: Mapping[str, Mapping[str, list[ToolRef]]],
    ) -> list[ToolRef]:
        key = norm(name)
        literal = list(tools.get(key, []))
        qualified: list[ToolRef] = []
        splits = [(q, key) for q in _QUALIFIERS]
        if key.startswith("mcp__"):
            splits.append(("__", key[len("mcp__") :]))
        for qualifier, text in splits:
            for server, tool in _splits(text, qualifier):
                qualified += servers.get(server, {}).get(tool, [])
        # A tool literally named e.g. "notes_write" beats reading the name as notes/write on
        # the same server; across servers both readings are kept (blocking more is safe).
        literal_servers = {s for s, _ in literal}
        qualified = sorted(
            {q for q in qualified if q[0] not in literal_servers}, key=self._position.__getitem__
        )
        return list(dict.fromkeys(literal + qualified))


def resolve_tool_name(name: str, catalog: Catalog) -> list[tuple[str, str]]:
    """The catalog tools a name in an analyser's answer refers to; [] when none.

    Decoration (whitespace, backticks, quotes, markdown emphasis, trailing punctuation, a
    trailing "()") is ignored and case does not matter, unless a tool is named with exactly the
    case written (`A0` and `a0` on one server: `a/A0` is `A0` alone, so a read-only list
    clears no second tool). Accepted forms are the bare tool name
    and `mcp__server__tool`, `server__tool`, `server_tool`, `server.tool`, `server/tool`,
    `server:tool`. A bare name several servers share resolves to all of them. If nothing
    matches, "-" and "_" are treated alike as a last resort.
    """
    return _Resolver(catalog)(name)


# --- the plain-text form ----------------------------------------------------------------------

_KEY_LINE = re.compile(
    r"(?P<lead>[\s>#*_`~+\-]*)(?:\d+[.)][\s*_`~]*)?"
    r"(?P<key>(?:is[\s_-]*)?irreversib(?:le|ility)|blocked(?:[\s_-]*tools?)?"
    r"|tools?[\s_-]*to[\s_-]*block|read[\s_-]*only(?:[\s_-]*tools?)?|reasons?)(?![a-z0-9])"
    r"[\s*_`~]*(?P<sep>[:=]|[-\u2013\u2014]+(?=\s))?(?P<value>.*)",
    re.IGNORECASE,
)
_BULLET = re.compile(r"^\s*(?:[-*+\u2022]|\d+[.)])\s+")
_FENCE = re.compile(r"`{3,}[\w+-]*")
_YES_NO = re.compile(r"(?<![A-Za-z0-9])(yes|no|true|false)(?![A-Za-z0-9])", re.IGNORECASE)
_PARENTHETICAL = re.compile(r"\((?!\s*\))[^()]*\)")
_SEPARATORS = re.compile(r"[,;\s]+")
_NAME_REASON = re.compile(
    r"^(?P<name>[^\s,;:]{1,200}(?::[^\s,;:]{1,200})?)[ \t]*(?::|[-\u2013\u2014]{1,3})\s+"
    r"(?P<reason>\S.*)"
)
_NAME_PAREN_REASON = re.compile(r"^(?P<name>[^\s,;]{1,200})\s+\((?P<reason>[^()]+)\)[\s.,;]*$")
_NONE_WORDS = frozenset(
    {"none", "n/a", "na", "n.a", "nothing", "null", "nil", "-", "\u2013", "\u2014", "empty"}
)
_NONE_PHRASES = frozenset(
    {
        "",
        "no",
        "no tools",
        "no tool",
        "not applicable",
        "none needed",
        "no blocked tools",
        "no read-only tools",
    }
)
_FILLER = frozenset({"and", "or", "&", "+"})


def _yes_no(value: str) -> bool | None:
    """True for YES/TRUE, False for NO/FALSE, None for neither or both."""
    found = {w.lower() in ("yes", "true") for w in _YES_NO.findall(value)}
    return found.pop() if len(found) == 1 else None


def _is_none(value: str) -> bool:
    """Whether a tool-list value means "no tools"."""
    cleaned = _clean(_PARENTHETICAL.sub(" ", value)).lower().rstrip(".")
    return cleaned in _NONE_WORDS or cleaned in _NONE_PHRASES


def _tokens(value: str) -> list[str]:
    """The names in a comma, semicolon or whitespace separated list."""
    words = _SEPARATORS.split(_PARENTHETICAL.sub(" ", value))
    return [w for w in words if _clean(w) and _clean(w).lower() not in _FILLER]


def _name_with_reason(line: str) -> tuple[str, str] | None:
    """("tool", "reason") for a `tool: reason`, `tool - reason` or `tool (reason)` line."""
    m = _NAME_REASON.match(line) or _NAME_PAREN_REASON.match(line)
    return (m["name"], m["reason"].strip()) if m else None


_Item = tuple[str, str | None]
"""A mentioned name and the reason given next to it, if any."""


def _value_items(value: str, resolve: _Resolver) -> list[_Item]:
    """Names (with a reason when one is attached) in a value on the key's own line."""
    value = value.strip()
    if not value or (not resolve(value) and _is_none(value)):
        return []
    pair = _name_with_reason(value)
    if pair is not None:
        return [pair]
    return [(t, None) for t in _tokens(value)]


def _list_line_items(line: str, resolve: _Resolver) -> list[_Item] | None:
    """Names on a line below a tool-list key, or None when the line ends the list."""
    bullet = _BULLET.match(line)
    body = line[bullet.end() :] if bullet else line.strip()
    if not resolve(body) and _is_none(body):
        return []
    pair = _name_with_reason(body)
    if pair is not None and (bullet or resolve(pair[0])):
        return [pair]
    tokens = _tokens(body)
    if bullet or len(tokens) == 1 or all(resolve(t) for t in tokens):
        return [(t, None) for t in tokens]
    return None  # prose: the list is over


def _key_state(key: str) -> str:
    """Which part of the answer a key line starts."""
    key = key.lower()
    if "irreversib" in key:
        return "irreversible"
    if "block" in key:
        return "blocked"
    return "read_only" if "only" in key else "reasons"


class _TextReader:
    """Reads the `IRREVERSIBLE:` / `BLOCKED_TOOLS:` / `READ_ONLY_TOOLS:` form, line by line."""

    def __init__(self, resolve: _Resolver) -> None:
        self.resolve = resolve
        self.verdict_values: list[str] = []
        self.items: dict[str, list[_Item]] = {"blocked": [], "read_only": []}
        """Names under each tool-list key ("blocked", "read_only")."""
        self.stray_reasons: list[tuple[str, str]] = []
        self.state: str | None = None
        self.awaiting_value = False  # a key whose value has not been seen yet

    def key_line(self, key: str, value: str) -> None:
        """A line that starts a part: its key, and the value on the same line."""
        value = value.strip().lstrip("*~ \t")  # e.g. `**KEY:** value`
        self.state = _key_state(key)
        self.awaiting_value = not _clean(value)
        if self.state == "irreversible":
            if not self.awaiting_value:
                self.verdict_values.append(value)
        elif self.state in self.items:
            self.items[self.state] += _value_items(value, self.resolve)
        elif (pair := _name_with_reason(value)) is not None:
            self.stray_reasons.append(pair)

    def other_line(self, line: str) -> None:
        """Any other line: a value below its key, a list entry, a reason, or prose."""
        stripped = line.strip()
        if _FENCE.fullmatch(stripped):
            return
        if not stripped or stripped.startswith("#"):
            if stripped or not self.awaiting_value:
                self.state = None
            return
        if self.state == "irreversible" and self.awaiting_value:
            self.verdict_values.append(stripped)
            self.state, self.awaiting_value = None, False
            return
        if self.state in self.items:
            found = _list_line_items(line, self.resolve)
            if found is not None:
                self.items[self.state] += found
                self.awaiting_value = False
                return
            self.state = None
        bullet = _BULLET.match(line)
        pair = _name_with_reason(line[bullet.end() :] if bullet else stripped)
        if pair is not None:
            self.stray_reasons.append(pair)

    def verdict(self) -> ParsedVerdict:
        """What the lines read so far say."""
        irreversible: bool | None = None
        if self.verdict_values:
            found_words = {_yes_no(v) for v in self.verdict_values} - {None}
            irreversible = found_words.pop() if len(found_words) == 1 else None
        return _build(
            irreversible,
            self.items["blocked"],
            self.stray_reasons,
            self.resolve,
            self.items["read_only"],
        )


def _text_verdict(text: str, resolve: _Resolver) -> ParsedVerdict:
    """Parse the `IRREVERSIBLE:` / `BLOCKED_TOOLS:` / `READ_ONLY_TOOLS:` form."""
    reader = _TextReader(resolve)
    for line in text.splitlines():
        key_line = _KEY_LINE.match(line)
        if key_line and (
            key_line["sep"] or "#" in key_line["lead"] or not key_line["value"].strip()
        ):
            reader.key_line(key_line["key"], key_line["value"])
        else:
            reader.other_line(line)
    return reader.verdict()


# --- the JSON and structured forms ------------------------------------------------------------

_JSON_KEYS = {
    "irreversible": "irreversible",
    "is_irreversible": "irreversible",
    "blocked_tools": "blocked_tools",
    "blocked": "blocked_tools",
    "tools_to_block": "blocked_tools",
    "read_only_tools": "read_only_tools",
    "read_only": "read_only_tools",
    "readonly_tools": "read_only_tools",
    "readonly": "read_only_tools",
    "reasons": "reasons",
}


def _find_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in the text carrying the analysis keys, keys normalised."""
    decoder = json.JSONDecoder()
    for attempt, start in enumerate(m.start() for m in re.finditer(r"\{", text)):
        if attempt >= 64:
            break
        try:
            obj, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            continue
        if not isinstance(obj, dict):
            continue
        normalised: dict[str, Any] = {}
        for k, v in obj.items():
            name = _JSON_KEYS.get(re.sub(r"[\s-]+", "_", str(k).strip().lower()))
            if name is not None and name not in normalised:
                normalised[name] = v
        if "irreversible" in normalised or "blocked_tools" in normalised:
            return normalised
    return None


def _json_items(value: Any) -> list[_Item]:
    """The names (with reasons) in a loosely typed JSON tool list."""
    if isinstance(value, str):
        return [] if _is_none(value) else [(t, None) for t in _tokens(value)]
    items: list[_Item] = []
    for entry in value if isinstance(value, list) else []:
        if isinstance(entry, str):
            items.append((entry, None))
        elif isinstance(entry, Mapping):
            tool = entry.get("tool") or entry.get("name")
            server = entry.get("server")
            reason = entry.get("reason")
            if isinstance(tool, str):
                name = f"{server}/{tool}" if isinstance(server, str) and server else tool
                items.append((name, reason if isinstance(reason, str) else None))
    return items


def _json_verdict(data: Mapping[str, Any], resolve: _Resolver) -> ParsedVerdict:
    """Read a loosely typed JSON analysis."""
    flag = data.get("irreversible")
    irreversible = (
        flag if isinstance(flag, bool) else _yes_no(flag) if isinstance(flag, str) else None
    )
    reasons = data.get("reasons")
    given = (
        [(str(k), str(v)) for k, v in reasons.items() if v is not None]
        if isinstance(reasons, Mapping)
        else [(n, r) for n, r in _json_items(reasons) if r is not None]
    )
    blocked = _json_items(data.get("blocked_tools"))
    return _build(irreversible, blocked, given, resolve, _json_items(data.get("read_only_tools")))


def _resolve_items(
    items: Iterable[_Item],
    resolve: _Resolver,
    unknown: dict[str, None],
    reasons: dict[str, str],
) -> tuple[ToolRef, ...]:
    """The tools the mentioned names refer to; unknown names and given reasons are collected."""
    tools: dict[ToolRef, None] = {}  # insertion-ordered set
    for raw, reason in items:
        names = [raw]
        if not resolve(raw) and _SEPARATORS.search(raw.strip()):
            names = _tokens(raw)
        for name in names:
            found = resolve(name)
            if not found:
                cleaned = _clean(name)
                if cleaned and not _is_none(cleaned):
                    unknown.setdefault(cleaned)
                continue
            for ref in found:
                tools.setdefault(ref)
                if reason and reason.strip() and len(names) == 1:
                    reasons.setdefault(f"{ref[0]}/{ref[1]}", reason.strip())
    return tuple(tools)


def _build(
    irreversible: bool | None,
    items: Iterable[_Item],
    extra_reasons: Iterable[tuple[str, str]],
    resolve: _Resolver,
    read_only_items: Iterable[_Item] = (),
) -> ParsedVerdict:
    """Resolve the mentioned names and attach reasons to the tools they explain."""
    unknown: dict[str, None] = {}
    reasons: dict[str, str] = {}
    tools = _resolve_items(items, resolve, unknown, reasons)
    read_only = _resolve_items(read_only_items, resolve, unknown, reasons)
    named = {*tools, *read_only}
    for name, reason in extra_reasons:
        for ref in resolve(name):
            if ref in named and reason.strip():
                reasons.setdefault(f"{ref[0]}/{ref[1]}", reason.strip())
    return ParsedVerdict(irreversible, tools, tuple(unknown), reasons, read_only)


def parse_verdict_text(text: str, catalog: Catalog) -> ParsedVerdict:
    """Parse an analyser's plain-text (or embedded JSON) answer against the catalog.

    The expected form is an `IRREVERSIBLE: YES|NO` line, a `BLOCKED_TOOLS:` line whose value,
    or the list below it, names the tools to hold, and optionally a `READ_ONLY_TOOLS:` line
    (or `READ_ONLY:`) read the same way, naming tools that only read. Key spelling, case and
    markdown decoration are forgiven. A JSON object with the `IrreversibilityAnalysis` keys,
    fenced or not, is read instead when present. `irreversible` is None when the verdict is
    missing or unclear.
    """
    resolve = _Resolver(catalog)
    data = _find_json(text)
    if data is not None:
        return _json_verdict(data, resolve)
    return _text_verdict(text, resolve)


def from_structured(analysis: IrreversibilityAnalysis, catalog: Catalog) -> ParsedVerdict:
    """Resolve a structured analysis against the catalog, like the plain-text form."""
    items: list[_Item] = [(name, None) for name in analysis.blocked_tools]
    read_only: list[_Item] = [(name, None) for name in analysis.read_only_tools]
    reasons = [(r.tool, r.reason) for r in analysis.reasons]
    return _build(analysis.irreversible, items, reasons, _Resolver(catalog), read_only)
