"""Rule 4: destructive commands, encoded or downloaded scripts, antivirus evasion and malware."""

from __future__ import annotations

import re
from collections.abc import Callable

from common.guardrails.text import folded_text
from common.patterns import then_in_segment as _then

_Check = Callable[[str], bool]
"""A test on one (folded) text."""

_I = re.IGNORECASE
_SEGMENTS = re.compile(r"[\n;|]|&&")
"""What ends one shell command, pipes included."""
_LINES = re.compile(r"[\n;]|&&|\|\|")
"""What ends one shell pipeline: a pipe does not."""


def _rx(pattern: str) -> _Check:
    """A case-insensitive pattern search."""
    compiled = re.compile(pattern, _I)
    return lambda text: compiled.search(text) is not None


def _both(one: str, other: str) -> _Check:
    """Both patterns on the same line, in any order."""
    a, b = re.compile(one, _I), re.compile(other, _I)
    return lambda text: any(a.search(line) and b.search(line) for line in text.splitlines())


_ROOT_TARGET = re.compile(
    r"(?:/+[.*]?|~/?\*?|\$\{?home\}?/?\*?"
    r"|/+(?:bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var)/*\*?"
    r"|[a-z]:[\\/]*\*?)",
    _I,
)
"""An `rm` target whose loss ruins the machine: `/`, `/*`, `~`, `$HOME`, `/etc`, `C:\\`."""
_SHELL_TOKEN = re.compile(r"[^\s()\"'`,{}\[\]]+")
"""One shell word, quotes and brackets dropped."""


def _rm_root(text: str) -> bool:
    """`rm -r` on the root, a system or the home directory, or `rm --no-preserve-root`.

    Read per command segment, word by word (`sudo rm -rf /*`, `rm -r -f ~`, `/bin/rm -fr /`).
    """
    for segment in _SEGMENTS.split(text):
        in_rm = recursive = target = False
        for token in _SHELL_TOKEN.findall(segment):
            low = token.lower()
            if low == "rm" or low.endswith("/rm"):
                in_rm, recursive, target = True, False, False
                continue
            if not in_rm:
                continue
            if low == "--no-preserve-root":
                return True
            if low == "--recursive" or (
                low.startswith("-") and not low.startswith("--") and "r" in low
            ):
                recursive = True
            elif _ROOT_TARGET.fullmatch(low):
                target = True
            if recursive and target:
                return True
    return False


_FORK_BOMB = (
    r"([\w:.]{1,32})\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&?\s*\}\s*;\s*\1"
    r"|%0\s*\|\s*%0|\bfork\s+while\s+fork\b"
    r"|\bwhile\s*\(?\s*(?:1|true)\s*\)?\s*[:{]?\s*(?:os\.)?fork\s*\("
)
"""`:(){ :|:& };:` under any function name, `%0|%0`, `fork while fork`, `while 1: os.fork()`."""

_ENCODED_FLAG = (
    r"\s[-/](?:e|ec|en|enc|enco|encod|encode|encoded|encodedc|encodedco|encodedcom"
    r"|encodedcomm|encodedcomma|encodedcomman|encodedcommand)(?=[\s:]|$)"
)
"""Every abbreviation PowerShell accepts for `-EncodedCommand`."""

_AV_VERB = (
    r"(?:bypass(?:es|ed|ing)?|evad(?:e|es|ed|ing)|evasion\s+of|disabl(?:e|es|ed|ing)"
    r"|deactivat(?:e|es|ed|ing)|turn(?:s|ed|ing)?\s+off|shut(?:ting)?\s+(?:off|down)"
    r"|kill(?:s|ed|ing)?|circumvent(?:s|ed|ing)?|get(?:ting)?\s+(?:past|around)"
    r"|defeat(?:s|ed|ing)?|avoid(?:s|ed|ing)?\s+detection\s+(?:by|from)|hid(?:e|es|ing)\s+from"
    r"|undetect(?:able|ed)\s+by|fool(?:s|ed|ing)?|trick(?:s|ed|ing)?)"
)
_AV_FILLER = (
    r"(?:(?:the|a|an|any|all|my|their|its|your|windows|microsoft|built-?in|real-?time|local"
    r"|installed|company|corporate)\s+){0,3}"
)
_AV_TARGET = (
    r"(?:anti-?virus(?:es)?|anti-?malware|av|edr|xdr|(?:windows\s+)?defender|amsi|smartscreen"
    r"|endpoint\s+(?:protection|detection|security)|security\s+software"
    r"|virus\s+(?:scanners?|protection|detection)|malware\s+detection|real-?time\s+protection)"
)
_MAKE = (
    r"(?:write|writing|create|creating|build|building|make|making|generate|generating|code"
    r"|coding|develop|developing|program|programming|give\s+me)"
)
_MAL_FILLER = (
    r"(?:(?:me|a|an|some|the|working|simple|basic|small|python|powershell|c|c\+\+|rust|go"
    r"|javascript|js|new|custom|my|own|self-?replicating|polymorphic|real|functional"
    r"|undetectable|stealthy|windows|linux|android)\s+){0,4}"
)
_MAL_TARGET = (
    r"(?:ransomware|key-?loggers?|keystroke\s+loggers?|malware|computer\s+(?:virus|worm)"
    r"|trojans?(?:\s+horse)?|rootkits?|botnets?|spyware|cryptojackers?|info-?stealers?"
    r"|(?:credential|password|cookie)\s+stealers?|reverse\s+shells?|backdoors?"
    r"|remote\s+access\s+trojans?|self-?replicating\s+(?:virus|worm|code)"
    r"|virus(?:es)?\b(?!\s+(?:scanners?|scan|definitions?|protection|checker|total|free"
    r"|vaccines?|tests?)))"
)
_DOWNLOADER = r"\b(?:curl|wget|fetch|iwr|invoke-webrequest|irm|invoke-restmethod)\b"
_PIPE_SHELL = (
    r"\|\s*(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:/\S*/)?(?:ba|z|da|k|fi|c|tc|a)?sh\b"
    r"|\|\s*(?:sudo\s+)?(?:python[0-9.]*|perl|ruby|node|php|iex|invoke-expression"
    r"|powershell|pwsh)\b"
)

_HARMFUL: tuple[tuple[str, _Check], ...] = (
    ("a recursive delete of the root, a system or the home directory (rm -rf /)", _rm_root),
    (
        "a recursive delete of the root directory",
        _rx(r"\brmtree\s*\(\s*[\"'](?:/|~|[a-z]:\\{0,2})[\"']"),
    ),
    (
        "a delete of a whole Windows drive",
        _then(
            r"(?<![\w-])(?:rd|rmdir|del|erase|remove-item|ri)(?![\w-])",
            r"\s[\"']?[a-z]:[\\/]?\*?[\"']?(?=\s|$)",
        ),
    ),
    ("formatting a drive", _rx(r"\bformat(?:\.com)?\s+[a-z]:(?=[\s/]|$)")),
    ("a fork bomb", _rx(_FORK_BOMB)),
    (
        "an encoded PowerShell command (-EncodedCommand)",
        _then(r"\b(?:powershell|pwsh)(?:\.exe)?\b", _ENCODED_FLAG),
    ),
    (
        "a PowerShell command that downloads and runs code",
        _both(
            r"\b(?:iex|invoke-expression)\b",
            r"\b(?:downloadstring|downloadfile|net\.webclient|invoke-webrequest|iwr"
            r"|invoke-restmethod|irm)\b",
        ),
    ),
    (
        "a request to disable or evade antivirus protection",
        _rx(rf"\b{_AV_VERB}\s+{_AV_FILLER}{_AV_TARGET}\b"),
    ),
    (
        "a request to disable Windows Defender",
        _then(r"\bset-mppreference\b", r"\s-disable\w*"),
    ),
    (
        "a request to make malware undetectable",
        _both(
            r"\b(?:fud|fully\s+undetectable)\b",
            r"\b(?:malware|payload|crypter|stub|trojan|virus|backdoor|exe|binary|shellcode)\b",
        ),
    ),
    ("a request to write malware", _rx(rf"\b{_MAKE}\s+{_MAL_FILLER}{_MAL_TARGET}")),
    (
        "a reverse shell",
        _rx(
            r"/dev/(?:tcp|udp)/|\bnc(?:at)?\b[^\n;|]{0,200}\s-[a-z]*e\s+\S*sh\b"
            r"|\bsocat\b[^\n;|]{0,200}\bexec:"
        ),
    ),
    ("formatting a disk (mkfs)", _then(r"\bmk(?:fs|e2fs|swap)(?:\.\w+)?\b", r"/dev/")),
    (
        "overwriting a disk device (dd)",
        _then(r"\bdd\b", r"\bof=/dev/(?!null\b|zero\b|stdout\b|stderr\b|random\b|urandom\b)"),
    ),
    (
        "overwriting a disk device",
        _rx(r">\s*/dev/(?:sd[a-z]|hd[a-z]|nvme\d|xvd[a-z]|vd[a-z]|mmcblk\d|disk\d)"),
    ),
    ("wiping a disk device", _then(r"\b(?:shred|wipefs|blkdiscard)\b", r"/dev/")),
    (
        "a recursive permission change of the root directory",
        _then(r"\bch(?:mod|own|grp)\b", r"\s-[a-z]*r[a-z]*\s+(?:\S+\s+)?/\*?(?=\s|$)"),
    ),
    (
        "a downloaded script piped into a shell (curl | sh)",
        _then(_DOWNLOADER, _PIPE_SHELL, _LINES),
    ),
    (
        "a downloaded script run by a shell",
        _rx(
            r"\b(?:ba|z|da|k)?sh\s+(?:-c\s+)?[\"']?(?:<\(|\$\()\s*(?:curl|wget)\b"
            r"|\beval\s+[\"']?\$\(\s*(?:curl|wget)\b"
        ),
    ),
    (
        "decoded base64 piped into a shell",
        _then(r"\bbase64\s+(?:-d|--decode|-D)(?!\w)", _PIPE_SHELL, _LINES),
    ),
)
"""What makes a request harmful, as (what the user is told it contains, check)."""

_OBFUSCATION = re.compile(r"[\"'`\\^]|\$\{?IFS\}?")
"""Quotes, backslashes, carets and `$IFS` that split a command word without changing it."""


def harmful_reason(text: str) -> str | None:
    """What makes a text harmful (rule 4), as a phrase for the user, or None.

    Looks for destructive commands on the whole system (`rm -rf /`, `mkfs`, `dd of=/dev/sda`,
    a fork bomb, a recursive chmod of `/`, deleting or formatting a Windows drive), encoded or
    downloaded scripts (`powershell -enc`, `curl ... | sh`, base64 piped into a shell, reverse
    shells), and requests to evade antivirus or write malware. Look-alike characters are
    folded, and quotes, backslashes, carets and `$IFS` inside words are also read removed
    (`r''m -rf /`). Ordinary commands (`rm -rf build/`) and questions about the words
    themselves ("how do antivirus programs work") pass.
    """
    folded = folded_text(text)
    variants = list(dict.fromkeys((folded, _OBFUSCATION.sub(_deobfuscate, folded))))
    for label, check in _HARMFUL:
        if any(check(v) for v in variants):
            return label
    return None


def _deobfuscate(m: re.Match[str]) -> str:
    """`$IFS` is a space; quotes, backslashes and carets vanish."""
    return " " if m.group().lstrip("${").startswith("IFS") else ""
