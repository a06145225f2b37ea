"""Disguises of data leaving: the forms a value takes, and the encodings an argument hides it in.

Read by `common.safety.leaving`, which decides; this module only reads text:

- `values_in(text)`: values that leave even when short, each under a canonical form, so a value
  written another way is the same value: an email address (case-folded), an IBAN (letters and
  digits, case-folded, any spaces, dashes or dots between its groups; its ISO 13616 mod-97
  check must hold), a number of 10 digits or more (digits only, written together or in groups
  of three or more separated by spaces, dashes or dots, after an optional `+44` or `(415)`;
  also under its last ten digits, so a phone number written without its country prefix is the
  same number; a card when 13 to 19 digits pass Luhn) and a token-like string.
- `secrets_in(text)`: short secrets a result holds: whole tokens of 6 or more characters a
  result labels (`code: 483920`, `"password": "hunter22"`, `api_key=...`, "your verification
  code is 483920"), and what `common.guardrails.secrets` recognises by shape (API keys, JWTs,
  private keys, cards). A label must say secret: `code` after `product`, `zip`, `error`... does
  not (`NOT_SECRET_CODES`), and a labelled value must not read as a word (it holds a digit, a
  symbol inside, or a capital after a small letter), so quantities, years and product codes
  that nothing labels are not secrets.
- `decoded(text)`: the argument as written, then decoded, repeatedly, up to `DECODING_STEPS`
  steps: percent-encoding (`%40`, `+`), base64 (standard and URL-safe, with or without
  padding) and hex, each in any order (base64 of a URL-encoded value); each decoding is
  described (`base64-encoded, then URL-encoded`).
- `normal_forms(text)`: the text as written, then as Unicode compares it (NFKC: full-width
  letters and digits, superscripts, ligatures read as the usual ones; Cyrillic and Greek
  look-alikes as Latin; the digits of any script as `0-9`; zero-width and other invisible
  characters dropped), then with the
  separators between groups of one to three digits dropped (`4 8 3 9 2 0`, `483.920`, digits
  parted by thin spaces, read as `483920`). Secrets are looked for in each form of the results
  and of a call's arguments; whole values in the results as written and in Unicode's form, and
  in an argument in each form (`values_of`).
- `disguise(sent, source)`: how a value was rewritten (`lower-cased, with dashes`).

Hand-written, on purpose: phone numbers are compared by their digits and their last ten digits
(what a call carries of them whatever its country prefix or separators), which needs none of
`phonenumbers`' metadata (megabytes of per-region tables for formatting and validity we do not
use); an IBAN's check is the three-line mod-97 rule (`python-stdnum` would add a package for
it) and a card's the Luhn rule `common.guardrails.secrets` already has. Every pattern is
bounded and without nested repetition, and decoding is bounded (`DECODED_CHARS_PER_CHAR`), so
hostile text stays linear.
"""

from __future__ import annotations

import base64
import binascii
import re
import string
import unicodedata
from dataclasses import dataclass
from itertools import groupby, pairwise
from urllib.parse import unquote_plus

from common.guardrails.secrets import luhn, secret_key_kind, secret_values
from common.guardrails.text import folded_text

SECRET_MIN_CHARS = 6
"""Characters a labelled secret has at least (`483920`); shorter ones are too common."""

DECODING_STEPS = 4
"""Decodings applied one after another at most (URL-decoding twice, then base64, ...)."""

DECODED_CHARS_PER_CHAR = 4
"""Characters of decoded forms read per character of an argument, at most."""

NOT_SECRET_CODES = frozenset(
    " ".join(
        (
            "product postal zip post country area status error item promo discount coupon",
            "source language currency response exit return exception http tracking sku color",
            "colour dial region iso airport branch sort swift bic bank tax unit reference ref",
            "cost class course project program shipping order article model part style",
        )
    ).split()
)
"""Words before `code` that make it a code of something, not a secret (`product code`)."""

SECRET_LABELS = frozenset({"otp", "pin", "passcode", "password", "passphrase", "pwd", "secret"})
"""Words that label the value after them as a secret (`OTP: 483920`, `password is x7`)."""

EMAIL = re.compile(r"[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){1,8}")
"""An email address (bounded, without nested repetition)."""
_IBAN = re.compile(
    r"\b[A-Za-z]{2}[ .\-]?[0-9]{2}(?:[A-Za-z0-9]{11,30}"
    r"|(?:[ .\-][A-Za-z0-9]{4}){2,7}(?:[ .\-][A-Za-z0-9]{1,4})?)\b"
)
_NUMBER = re.compile(
    r"(?:\+[0-9]{1,4}[ .\-]?)?(?:\([0-9]{1,5}\)[ .\-]?)?[0-9]{3,40}(?:[ .\-][0-9]{3,40}){0,10}"
)
_TOKEN = re.compile(r"[A-Za-z0-9_]{8,200}")
_LABELLED = re.compile(
    r"(?i)\b(?P<label>[a-z][a-z0-9\-]{0,24}[ _\-])?"
    r"(?P<word>code|otp|pin|passcode|password|passphrase|pwd|secret|key|token)\b"
    r"[\"']?[ \t]*(?::|=|\bis\b|\bwas\b)?[ \t]*[\"']?(?P<value>[^\s\"',;<>()\[\]{}]{6,128})"
)
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/_\-]{8,}={0,2}")
_HEX_RUN = re.compile(r"[0-9A-Fa-f]{8,}")
_SEPARATORS = {" ": "with spaces", "-": "with dashes", ".": "with dots"}
_DIGIT_SEPARATOR = r"[\s.\-_'\u00b7\u2010-\u2015\u2027\u2212]"
"""What may part digits (after NFKC): whitespace of any width (no-break, thin), dots, dashes of
any kind, middle dots, underscores, apostrophes. Not commas nor slashes: lists (`4, 8, 3`) and
fractions keep their numbers apart."""
_SPREAD = re.compile(rf"(?<![0-9])[0-9]{{1,3}}(?:{_DIGIT_SEPARATOR}{{1,3}}[0-9]{{1,3}}(?![0-9]))+")
"""Groups of one to three digits parted by up to three separators each (`4 8 3 9 2 0`, `483
920`). A group of four digits or more ends it: a year or an IBAN's groups (`2026-11-24`,
`0532 0130 00`) keep their numbers apart, as `_NUMBER` and `_IBAN` read them already."""
UNICODE_FORMS = "with look-alike or invisible Unicode characters"
"""How a value written in characters NFKC reads as others (full-width digits) was disguised."""
SPREAD_DIGITS = "with separators inside its digits"
"""How a value whose digits were spread out (`4 8 3 9 2 0`) was disguised."""
_EDGES = string.punctuation
"""Symbols a secret is compared without at its ends (`hunter22!` is found as `hunter22`)."""


@dataclass(frozen=True)
class Value:
    """A whole value found in a text."""

    kind: str
    """What it is, as a reviewer reads it (`an IBAN`, `a phone number`, `a password`)."""
    written: str
    """How the text writes it (in the form it was found in: `normal_forms`)."""
    rewritten: str = ""
    """How the text disguised it beyond case and separators (`UNICODE_FORMS`), or ""."""


def canonical(text: str) -> str:
    """`text` case-folded without whitespace, dashes or dots between its characters."""
    return re.sub(r"[\s\-.]+", "", text.casefold())


def normal_forms(text: str) -> list[tuple[str, str]]:
    """`text` as written (described as ""), then each distinct normal form, and how it differs.

    Unicode's first (`unicode_form`: look-alike characters read as the usual ones), then the
    separators between small groups of digits dropped (`_SPREAD`).
    """
    forms = [(text, "")]
    unicode = unicode_form(text)
    if unicode != text:
        forms.append((unicode, UNICODE_FORMS))
    joined = _SPREAD.sub(lambda m: re.sub(_DIGIT_SEPARATOR, "", m.group()), unicode)
    if joined != unicode:
        forms.append((joined, ", ".join(filter(None, (forms[-1][1], SPREAD_DIGITS)))))
    return forms


def unicode_form(text: str) -> str:
    """`text` as compared across Unicode: folded as the guardrails fold it, digits as ASCII.

    `common.guardrails.text.fold`: NFKC, invisible characters (zero-width spaces and joiners,
    soft hyphens, combining marks) dropped, Cyrillic and Greek look-alikes and Unicode dashes
    as ASCII; then the decimal digits of every script as ASCII digits (`٤٨` is `48`).
    """
    if text.isascii():
        return text
    return "".join(_ascii(c) for c in folded_text(text))


def _ascii(c: str) -> str:
    """A character as compared: a decimal digit of any script as its ASCII digit."""
    return str(unicodedata.decimal(c)) if c.isdecimal() and not c.isascii() else c


def values_in(text: str) -> dict[str, Value]:
    """Whole values of `text`, as written and as Unicode reads it, by canonical form.

    Emails, IBANs, long numbers, tokens; a value found as written is kept as written. Not in
    the form with digits joined: quantities and dates side by side (`stock 120 0 14 310 42`,
    `2026-11-24 10:00`) would read as long numbers there (`spread_values_in` reads it).
    """
    found = values_of(text)
    if not text.isascii():
        for key, value in values_of(unicode_form(text), UNICODE_FORMS).items():
            found.setdefault(key, value)
    return found


def values_of(text: str, how: str = "") -> dict[str, Value]:
    """Whole values of `text` as it is (emails, IBANs, long numbers, tokens), disguised `how`.

    A call's argument is read this way in its form with digits joined too: what it finds
    there counts only when another expert's results hold the very same value.
    """
    found: dict[str, Value] = {}
    for m in EMAIL.finditer(text):
        found[m.group().casefold()] = Value("an email address", m.group(), how)
    for m in _IBAN.finditer(text):
        iban = re.sub(r"[^0-9A-Za-z]", "", m.group()).upper()
        if _iban_valid(iban):
            found[iban.casefold()] = Value("an IBAN", m.group(), how)
    for m in _NUMBER.finditer(text):
        digits = re.sub(r"\D", "", m.group())
        if len(digits) >= 10:
            value = Value(_number_kind(digits, m.group()), m.group(), how)
            found.setdefault(digits, value)
            found.setdefault(digits[-10:], value)
    for m in _TOKEN.finditer(text):
        if _token_like(m.group()):
            found.setdefault(m.group().casefold(), Value("a token-like string", m.group(), how))
    return found


def _iban_valid(iban: str) -> bool:
    """Whether an IBAN (capitals and digits) passes ISO 13616's mod-97 check."""
    if not 15 <= len(iban) <= 34:
        return False
    moved = iban[4:] + iban[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _number_kind(digits: str, written: str) -> str:
    """What a long number is, as far as its digits and how it is written tell."""
    if 13 <= len(digits) <= 19 and digits[0] in "23456" and luhn(digits):
        return "a card number"
    if len(digits) <= 15 and (written.startswith(("+", "(")) or re.search(r"[ .\-]", written)):
        return "a phone number"
    return "a long number"


def _token_like(word: str) -> bool:
    """Whether a word switches between letters and digits often enough to be random."""
    kinds = [c.isdigit() for c in word if c.isalnum()]
    switches = sum(1 for a, b in pairwise(kinds) if a != b)
    return switches >= 3


def secrets_in(text: str) -> dict[str, Value]:
    """Short secrets of a result (in any of its `normal_forms`) by canonical form."""
    found: dict[str, Value] = {}
    for form, how in normal_forms(text):
        for key, value in _secrets_of(form).items():
            found.setdefault(key, Value(value.kind, value.written, how))
    return found


def _secrets_of(text: str) -> dict[str, Value]:
    """Short secrets of `text` as it is: labelled tokens, keys by their shape."""
    found: dict[str, Value] = {}
    for kind, written in secret_values(text):
        secret = written.strip().strip(_EDGES)
        if len(secret) >= SECRET_MIN_CHARS:
            found[secret.casefold()] = Value(f"a secret ({kind.replace('_', ' ')})", secret)
    for m in _LABELLED.finditer(text):
        secret = m.group("value").strip(_EDGES)
        label = (m.group("label") or "").strip(" _-").casefold()
        word = m.group("word").casefold()
        if len(secret) >= SECRET_MIN_CHARS and _secretish(secret) and _labels(label, word):
            found.setdefault(secret.casefold(), Value(f"a {word}", secret))
    return found


def _labels(label: str, word: str) -> bool:
    """Whether `label word` (`verification code`, `api key`) names a secret."""
    if word in SECRET_LABELS:
        return True
    if word == "code":
        return label not in NOT_SECRET_CODES
    return secret_key_kind(f"{label}_{word}" if label else word) is not None


def _secretish(value: str) -> bool:
    """Whether a labelled value reads as a secret, not a word.

    It holds a digit, a symbol inside, or a capital after a small letter (`483920`,
    `hunter22`, `pa$$word`, `hQxZtRwp`).
    """
    if any(c.isdigit() for c in value) or any(not c.isalnum() for c in value[1:-1]):
        return True
    return any(a.islower() and b.isupper() for a, b in pairwise(value))


def decoded(text: str) -> list[tuple[str, str]]:
    """`text` as written (described as "") and each decoding of it, with how it was encoded."""
    forms: list[tuple[str, tuple[str, ...]]] = [(text, ())]
    known = {text}
    budget = DECODED_CHARS_PER_CHAR * len(text)
    i = 0
    while i < len(forms) and budget > 0:
        form, steps = forms[i]
        i += 1
        if len(steps) >= DECODING_STEPS:
            continue
        for step, plain in _decodings(form):
            if plain not in known and budget > 0:
                known.add(plain)
                budget -= len(plain)
                forms.append((plain, (*steps, step)))
    return [(form, _described(steps)) for form, steps in forms]


def _decodings(text: str) -> list[tuple[str, str]]:
    """One decoding step of `text`, each way it changes it: URL, base64, hex."""
    found: list[tuple[str, str]] = []
    if "%" in text or "+" in text:
        url = unquote_plus(text)
        if url != text:
            found.append(("URL", url))
    pieces = [p for m in _BASE64_RUN.finditer(text) if (p := _unbase64(m.group()))]
    if pieces:
        found.append(("base64", "\n".join(pieces)))
    pieces = [p for m in _HEX_RUN.finditer(text) if (p := _unhex(m.group()))]
    if pieces:
        found.append(("hex", "\n".join(pieces)))
    return found


def _unbase64(run: str) -> str | None:
    """The text a base64 run (standard or URL-safe, padded or not) encodes, if any.

    A run that does not decode may be a path (`/c/aGVsbG8...`): its parts are tried.
    """
    whole = _base64_text(run)
    if whole is not None or "/" not in run:
        return whole
    parts = [p for part in run.split("/") if len(part) >= 8 and (p := _base64_text(part))]
    return "\n".join(parts) or None


def _base64_text(run: str) -> str | None:
    """The text one base64 run encodes, or None when it is no base64 of text."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    if len(body) % 4 == 1:
        return None
    try:
        raw = base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None
    return _text(raw)


def _unhex(run: str) -> str | None:
    """The text a run of hex digits encodes, or None."""
    if len(run) % 2:
        return None
    return _text(bytes.fromhex(run))


def _text(raw: bytes) -> str | None:
    """`raw` as text when it reads as text (UTF-8, printable), else None."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    readable = sum(1 for c in text if c.isprintable() or c.isspace())
    if len(text) < 4 or readable < len(text) or not any(c.isalnum() for c in text):
        return None
    return text


def _described(steps: tuple[str, ...]) -> str:
    """How a value was encoded, given the decodings that revealed it, outermost first."""
    said: list[str] = []
    for step, group in groupby(reversed(steps)):
        times = len(list(group))
        again = "" if times == 1 else " twice" if times == 2 else f" {times} times"
        said.append(f"{step}-encoded{again}")
    return ", then ".join(said)


def disguise(sent: str, source: str, rewritten: str = "") -> list[str]:
    """How `sent` rewrites the value `source` writes: its case, its separators, `rewritten`.

    `rewritten` says how the argument's text was normalised to find `sent` (`normal_forms`);
    when its digits were joined, `sent` no longer shows its separators.
    """
    how: list[str] = []
    letters = [c for c in sent if c.isalpha()]
    if letters != [c for c in source if c.isalpha()]:
        if all(c.islower() for c in letters):
            how.append("lower-cased")
        elif all(c.isupper() for c in letters):
            how.append("upper-cased")
        else:
            how.append("in other case")
    if SPREAD_DIGITS in rewritten:
        return [*how, rewritten]
    added = [said for sep, said in _SEPARATORS.items() if sep in sent and sep not in source]
    how += added
    if not added and any(sep in source for sep in _SEPARATORS) and sent.isalnum():
        how.append("without separators")
    return [*how, rewritten] if rewritten else how
