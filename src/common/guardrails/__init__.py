"""Deterministic guardrails: the ten heuristics of seed 001 as pure functions, one module each.

Every function here is pure and deterministic: no I/O, no DNS, no model, no clock. Each one
works on text (or nested tool arguments) and is linear in its input, so hostile input cannot
make it slow. The graph decides where each rule applies; this package only decides what it says.

- `config`: `GuardrailConfig`, the knobs of every rule (all that `common.settings` imports).
- `text`: folding of Unicode look-alikes before any check, shared by the rules below.
- `request`, rules 1 to 4: `check_request` refuses an empty, too short or too long request, a
  denied address or a harmful command, as a `Refusal`; `estimate_tokens`.
- `urls`, rule 3: `denied_urls`: local, private, link-local and cloud-metadata addresses and
  configured domains, however they are spelled (`http://0x7f.1/`, `http://[::1]/`,
  `2130706433`, the same in fullwidth characters), with an allow-list override.
- `harmful`, rule 4: `harmful_reason`: destructive commands, encoded PowerShell, antivirus
  evasion and malware requests are refused before any tool runs.
- `secrets`, rule 5: `mask_secrets` / `mask_secrets_in` / `secret_key_kind`: API keys, tokens,
  private keys, Luhn-valid card numbers, SSN-like numbers and `password=...` values become
  `[REDACTED:<kind>]`.
- `output`, rules 6 and 8: `trim_tool_output` cuts oversized tool output for the model, with a
  note; `summarise_blobs` turns HTML documents, long base64 runs and huge JSON in an answer
  into one-line summaries.
- Rule 7, tool arguments against the tool's schema, is `common.mcp.schema.check_args`.
- `banned`, rule 9: `mask_banned` masks configured banned words with `*`.
- `numbers`, rule 10: `numeric_problems`: NaN and infinities in tool output, and numbers an
  answer states that no tool returned.

Libraries considered for the hand-written pieces (none is added as a dependency):

- Look-alike folding: `confusable_homoglyphs` and the Unicode TR39 skeleton detect confusables
  but give no folded text with offsets back to the original, which masking needs; stdlib
  `unicodedata` (NFKC) does the heavy part.
- URLs: stdlib `ipaddress` classifies addresses (against explicit range lists, so the verdict
  does not move with Python's `is_private` updates) and `urllib.parse.unquote` decodes; a
  hand-written reader replaces `urlsplit` and `socket.inet_aton` because browsers, curl and
  Python read hosts differently (`http:127.0.0.1`, `0x7f.1`, backslashes, userinfo tricks) and
  `inet_aton` depends on the platform's libc. Nothing is resolved, so `idna` and DNS are unused.
- Harmful content: `llm-guard` and `guardrails-ai` rely on ML classifiers or validators fetched
  from a hub at run time; this stage must be offline, deterministic and fast, so it is rules.
- Secrets: `detect-secrets` covers similar key shapes (plus entropy) but scans line by line and
  has no Luhn card or SSN check, so keys wrapped over lines, look-alike spellings and masking by
  character span would still be ours; `presidio` needs a downloaded language model.
- Output: BeautifulSoup and `html2text` parse or convert HTML, but the hard part is finding a
  document or markup inside mixed prose, and a summary needs only the title and size; JSON is
  found with stdlib `json.JSONDecoder.raw_decode`. `tiktoken` is installed but its encodings
  are one vendor's and download on first use, so tokens are estimated as characters / 4.
- Banned words: profanity libraries (`better-profanity`) ship their own word lists; only the
  configured words are masked here.
- Numbers: no library reads amounts in prose with rounding and scale words (`430 million` for
  `429,400,000`); stdlib `float`, `math` and `json` do the parsing.

Import each rule from its module (`from common.guardrails.urls import denied_urls`): the
package itself re-exports nothing, so importing the config alone (as the settings do) loads no
rule, and each name has one home.
"""
