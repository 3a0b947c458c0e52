"""Credentials found by what names them rather than by their shape: `password=...`,
`secret: ...`, `"api_key": "..."`, `<password>..</password>`, `Authorization: Bearer ..`,
`Basic ...`, `--token ...`, `curl -u user:...`, `.netrc` lines, `Cookie:` headers and
prose such as "the password is ...".

One regular expression finds every form at once in a lower-cased copy of the text (same
length, same offsets); the value is then judged on the original text, so code that
*refers* to a secret (`password = os.environ["DB_PASSWORD"]`, `token: string`,
`apiKey: process.env.KEY`, `password=${DB_PASSWORD}`) keeps its text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import attrs

from chat_recall.domain.redaction.checks import (
    is_basic_credential,
    is_jwt,
    is_placeholder,
    looks_random,
)
from chat_recall.domain.redaction.literals import lazy

# A name that *ends* in one of these words names a secret (`DB_PASSWORD`, `clientSecret`,
# `x-api-key`, `_authToken`); `password_policy`, `tokenizer`, `max_tokens` do not.
_KEY_WORDS = (
    r"(?:password|passwd|passphrase|passcode|(?<![a-z])pass|(?<![a-z])pwd|secret|token"
    r"|credentials?"
    r"|(?:api|access|secret|private|client|app|master|encryption|signing|license|auth"
    r"|account|service|subscription|consumer|session|storage|admin|deploy)[_.-]?key)\d*"
    r"(?![a-z0-9_-])"
)

# A value: quoted (a Python string prefix allowed; XML-escaped quotes too), JSON-escaped
# inside JSON, or bare (group 0).
_VALUE = (
    r"(?:[rbuf]{1,2}(?=[\"'`]))?"
    r"(?:\\\"(?P<{p}1>(?:[^\"\\\n]|\\(?!\")){0,4096})\\\""
    r"|\"(?P<{p}2>[^\"\n]{0,4096})\""
    r"|'(?P<{p}3>[^'\n]{0,4096})'"
    r"|`(?P<{p}4>[^`\n]{0,4096})`"
    r"|\\?&quot;(?P<{p}5>(?:(?!\\?&quot;)[^\n]){0,4096})\\?&quot;"
    r"|\\?&(?:apos|#0*39);(?P<{p}6>(?:(?!\\?&(?:apos|#0*39);)[^\n]){0,4096})"
    r"\\?&(?:apos|#0*39);"
    r"|(?P<{p}0>[^\s\"'`<>]{1,4096})(?![^\s\"'`<>]))"
)


def _value(prefix: str) -> str:
    return _VALUE.replace("{p}", prefix)


# Operators: `=`, `:`, `:=`, `=>`, `?:` and a type annotation before `=`, never `==`,
# `::` or `://`. A type's names are joined by `[`, `]`, `,`, `|` or `.` (`str | None`,
# `Dict[str, str]`), never by a space alone: `password: value and token = other` is
# the value `value` (taken for a type, it was left as it was).
_TYPE = r"[a-z_][\w.]{0,40}(?:[ \t]*[\[\],|][ \t]*[\w.]{0,40}){0,8}"
_OPERATOR = rf"(?:=>|:=|\?:|=(?!=)|:[ \t]*{_TYPE}[ \t]*=(?!=)|:(?![:/]))"

FORMS_PATTERN = "|".join(
    (
        # name = value, name: value, "name": "value"
        rf"(?P<assign>{_KEY_WORDS})(?:\\?(?:[\"']|&quot;|&apos;|&#0*39;))?[ \t]*{_OPERATOR}"
        rf"[ \t]*{_value('a')}",
        # <password>value</password>, also XML-escaped
        rf"(?:<|&lt;)(?P<xml>[a-z0-9_.-]*{_KEY_WORDS})(?:>|&gt;)(?P<x1>(?:(?!&lt;/)[^<\n]){{1,512}})"
        r"(?:</|&lt;/)",
        # Authorization: Bearer value
        r"(?P<header>(?<![a-z-])(?:proxy-)?authorization)[\"']?[ \t]*[:=][ \t]*[\"'`]?[ \t]*"
        r"(?:(?:bearer|basic|token|digest|negotiate|ntlm|apikey|sso-key|hmac|key"
        r"|aws4-hmac-sha256)[ \t]+)?"
        r"(?P<h1>[^\s\"'`<>,]{1,4096}(?:[ \t]*,[ \t]*[a-z]+=[^\s,\"'`<>]{1,4096}){0,16})",
        # Bearer value / Basic value without a header name
        r"(?<![a-z0-9_-])(?P<scheme>bearer|basic)[ \t]+(?P<s1>[a-z0-9._~+/-]{8,}=*)"
        r"(?![a-z0-9._~+/=-])",
        # --password value, --api-token=value is an assignment already
        rf"(?<![a-z0-9-])--(?P<flag>[a-z0-9-]*{_KEY_WORDS})[ \t]+{_value('f')}",
        # curl -u user:password, --user user:password
        r"(?<!\S)(?P<user>-u|--user)[ \t]+[\"']?[^\s:\"'`]{1,256}:(?P<u1>[^\s\"'`]{1,4096})",
        # .netrc: machine host login user password value
        r"(?P<netrc>(?<![a-z])login)[ \t]+\S{1,256}[ \t]+password[ \t]+(?P<n1>\S{1,4096})",
        # Cookie: a=b; c=d
        r"(?<![a-z-])(?P<cookie>(?:set-)?cookie)[ \t]*:[ \t]*"
        r"(?P<c1>[^\n]{0,4096}?=[^\n]{1,4096})",
        # the password is value
        r"(?<![a-z])(?P<prose>password|passphrase|passcode|api key|secret key|access key"
        r"|token|secret)[ \t]+(?:is|was)[ \t]*:?[ \t]+[\"'`]?(?P<p1>[^\s\"'`<>]{6,256})",
    )
)

_FORMS = lazy(FORMS_PATTERN)

# Unquoted values that are code, not data: references, calls, member access, literals
# of other types, interpolation.
_REFERENCE = lazy(
    r"[$%{<@*&\[(!#]|\w+\.\w|\w+\(|\w+\[|(?:os|env|environ|process|secrets|vars|config"
    r"|settings|self|this|req|request|args|options|opts|params|props|input)\b"
)
_TEMPLATE = lazy(
    r"\$\{|\{\{|#\{|\$\(|%\([A-Za-z_]\w*\)[sd]|\{(?:[A-Za-z_][\w.]*)?\d*\}|^%[sd]$|^<[^<>]+>$"
)
_IDENTIFIER = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_PLACEHOLDER_WORDS = lazy(
    r"(?i)(?:^|[-_ ])(?:your|my|insert|enter|change|replace|put|example|sample|dummy|fake"
    r"|todo)(?:[-_ ]|$)|x{3,}|\*{3,}|\.{2,}|•{3,}|…|^(?:changeme|change_me|placeholder"
    r"|redacted|hidden|secret|password|passwd|token|none|null|nil|undefined|true|false|yes"
    r"|no|on|off|empty|required|optional|string|str|text|number|int|integer|bool|boolean"
    r"|bytes|any|unknown|object|secretstr|char|varchar|list|dict|array|value|type|default"
    r"|auto|\|-?|>-?)$"
)
_PASSPHRASE = lazy(r"[a-z]+(?: [a-z]+)+")
_HYPHEN_WORDS = lazy(r"[A-Za-z0-9]+(?:-[A-Za-z]+)+")  # base64-encoded, utf8-safe
_SCHEMES = frozenset(
    "bearer basic token digest negotiate ntlm apikey sso-key hmac key aws4-hmac-sha256".split()
)
_COOKIE_VALUE = lazy(r"=([^;\s,\\]{16,})")
_TRAILING = ".,;:!?)]}\"'`"


@attrs.frozen
class Finding:
    """A value to redact: where it is, and which placeholder kind it gets."""

    start: int
    end: int
    kind: str


_KEY_PREFIXES = (
    "api access secret private client app master encryption signing license auth account "
    "service subscription consumer session storage admin deploy"
).split()

# Literal texts (lower case) at which a form can start or which its keyword starts with;
# the redactor finds them all in one pass and calls `find_at` on each.
TRIGGERS: tuple[str, ...] = (
    "pass",
    "pwd",
    "secret",
    "token",
    "credential",
    "authorization",
    "bearer",
    "basic",
    "--",
    "-u",
    "login",
    "cookie",
    "api key",
    "access key",
    *(prefix + sep + "key" for prefix in _KEY_PREFIXES for sep in ("_", "-", ".", "")),
)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_.-")


def find(text: str, lowered: str) -> Iterator[Finding]:
    """Every named credential in `text` (`lowered` is `text` lower-cased, same length).
    Slow: scans every position; the redactor calls `find_at` on trigger hits instead."""
    for match in _FORMS().finditer(lowered):
        finding = _judge(text, match)
        if finding is not None and not text.startswith("[redacted ", finding.start):
            yield finding


def find_at(text: str, lowered: str, at: int) -> Finding | None:
    """The named credential whose form starts at, or just before, the trigger at `at`
    (`proxy-`/`set-` before a header name, `<name` or `&lt;name` around a keyword)."""
    for start in _starts(lowered, at):
        match = _FORMS().match(lowered, start)
        if match is None:
            continue
        finding = _judge(text, match)
        if finding is not None and not text.startswith("[redacted ", finding.start):
            return finding
    return None


def _starts(lowered: str, at: int) -> Iterator[int]:
    yield at
    for prefix in ("proxy-", "set-"):
        if lowered.startswith(prefix, at - len(prefix)):
            yield at - len(prefix)
    name = at
    while name > 0 and at - name < 64 and lowered[name - 1] in _NAME_CHARS:
        name -= 1
    if lowered.startswith("<", name - 1):
        yield name - 1
    elif lowered.startswith("&lt;", name - 4):
        yield name - 4


def _value_span(match: re.Match[str], prefix: str) -> tuple[int, int, bool] | None:
    """(start, end, quoted) of the value alternative that matched."""
    for index in range(7):
        name = f"{prefix}{index}"
        if match.group(name) is not None:
            return match.start(name), match.end(name), index != 0
    return None


def _judge(text: str, match: re.Match[str]) -> Finding | None:
    if match.group("assign") is not None:
        return _assignment(text, match)
    if match.group("xml") is not None:
        return _literal(text, match.start("x1"), match.end("x1"), _kind(match.group("xml")))
    if match.group("header") is not None:
        return _header(text, match)
    if match.group("scheme") is not None:
        start, end = match.span("s1")
        value = text[start:end]
        if match.group("scheme") == "basic":
            ok = is_basic_credential(value)
        else:
            ok = is_jwt(value) or (len(value) >= 16 and looks_random(value))
        return Finding(start, end, "authorization") if ok else None
    if match.group("flag") is not None:
        span = _value_span(match, "f")
        if span is None:
            return None
        start, end, quoted = span
        if not quoted:
            value = text[start:end].rstrip(_TRAILING)
            end = start + len(value)
            if not _bare_value(value, config=True):
                return None
        return _literal(text, start, end, _kind(match.group("flag")))
    if match.group("user") is not None:
        start, end = match.span("u1")
        value = text[start:end].rstrip(_TRAILING)
        if value.isdigit():
            return None  # docker run -u 1000:1000
        return _literal(text, start, start + len(value), "password")
    if match.group("netrc") is not None:
        return _literal(text, match.start("n1"), match.end("n1"), "password")
    if match.group("cookie") is not None:
        start, end = match.span("c1")
        value = text[start:end].rstrip()
        if not any(looks_random(v) for v in _COOKIE_VALUE().findall(value)):
            return None  # theme=dark; only session-like values make a cookie secret
        return Finding(start, start + len(value), "cookie")
    if match.group("prose") is not None:
        start, end = match.span("p1")
        value = text[start:end].rstrip(_TRAILING)
        if not _credential_word(value):
            return None
        return Finding(start, start + len(value), _kind(match.group("prose")))
    return None


def _header(text: str, match: re.Match[str]) -> Finding | None:
    start, end = match.span("h1")
    value = text[start:end]
    if value.lower() in _SCHEMES:
        return None  # 'Bearer ' + token: the value is not here
    after_operator = re.split(r"[:=]", text[match.end("header") : start], maxsplit=1)[-1]
    quoted = any(quote in after_operator for quote in "'\"`")
    has_scheme = value != text[match.end("header") : end].strip(" \t:=\"'`")
    if not quoted and not has_scheme and not _bare_value(value.rstrip(_TRAILING), config=False):
        return None  # Authorization: auth_header (a variable)
    return _literal(text, start, end, "authorization")


def _assignment(text: str, match: re.Match[str]) -> Finding | None:
    span = _value_span(match, "a")
    if span is None:
        return None
    start, end, quoted = span
    name_start = match.start("assign")
    while name_start > 0 and (text[name_start - 1].isalnum() or text[name_start - 1] in "_.-"):
        name_start -= 1
    name = text[name_start : match.end("assign")].lower()
    if quoted:
        return _literal(text, start, end, _kind(name))
    value = text[start:end]
    line_start = text.rfind("\n", 0, name_start) + 1
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    operator = text[match.end("assign") : start]
    config = _config_line(text[line_start:name_start], name, operator)
    if not config:
        value = re.split(r"[,;&)\]}]", value, maxsplit=1)[0]
    elif value.isalpha() and rest.strip() and not rest.lstrip().startswith("#"):
        return None  # `- password: The password to log in with.`: a description
    if value.endswith((",", ";")) and _IDENTIFIER().fullmatch(value[:-1]):
        return None  # `token: token,` / `password: hashed;`: code
    value = value.rstrip(",;")
    if "pwd" in name and value.startswith(("/", "~")):
        return None  # PWD=/home/user is a directory
    # `Password=x;` in a connection string, `?token=x&` in a query: data, not code.
    after = text[start + len(value) : start + len(value) + 1]
    pair = operator == "=" and (
        text[name_start - 1 : name_start] in {";", "?", "&"} or after in {";", "&"}
    )
    if value.lower() == name.rsplit(".", 1)[-1].lstrip("_-"):
        return None
    if not _bare_value(value, config or pair):
        return None
    return _literal(text, start, start + len(value), _kind(name))


def _config_line(prefix: str, name: str, operator: str) -> bool:
    """Whether the name starts a `.env`, shell, YAML or INI line rather than a line of
    code: nothing but indentation, `export`, `set` or a YAML dash before it, no member
    access in the name, and `KEY=value` or `key: value` (code writes `name = value`)."""
    stripped = prefix.strip().removeprefix("export").removeprefix("set").strip()
    if stripped not in {"", "-", '"', "'", '- "', "- '"} or "." in name:
        return False
    return operator.strip() == ":" or operator == operator.strip()


def _bare_value(value: str, config: bool) -> bool:
    """An unquoted value that is data, not code."""
    if not _bare_literal(value):
        return False
    if _IDENTIFIER().fullmatch(value):
        # In code an unquoted identifier is a variable (`password=password`); on a
        # .env/YAML line it is the value itself, unless it is an all-caps placeholder
        # (`CHANGE_ME`).
        if config:
            return not (value.isupper() and "_" in value)
        if looks_random(value):
            return True  # no one names a variable `XasluLicCGnb`
        return any(c.isdigit() for c in value) and "_" not in value and len(value) >= 6
    return len(value) >= 4 if value.isdigit() else True


def _bare_literal(value: str) -> bool:
    return bool(value) and not _REFERENCE().match(value) and "(" not in value


def _literal(text: str, start: int, end: int, kind: str) -> Finding | None:
    """A value unless it is too short, a placeholder, a template or prose."""
    value = text[start:end]
    stripped = value.strip()
    if len(stripped) < 4 or not any(c.isalnum() for c in stripped):
        return None
    if is_placeholder(stripped) or _PLACEHOLDER_WORDS().search(stripped):
        return None
    if _TEMPLATE().search(stripped):
        return None
    if any(c.isspace() for c in stripped) and not _PASSPHRASE().fullmatch(stripped):
        return None  # "Forgot your password?", "a = b(c)": a label or code, not a password
    offset = value.index(stripped)
    return Finding(start + offset, start + offset + len(stripped), kind)


def _credential_word(value: str) -> bool:
    """For prose ("the password is ..."): something no dictionary word looks like."""
    if len(value) < 6 or is_placeholder(value) or _HYPHEN_WORDS().fullmatch(value):
        return False
    has_letter = any(char.isalpha() for char in value)
    has_digit = any(char.isdigit() for char in value)
    has_symbol = any(char in "!@#$%^&*+=~?" for char in value)
    return has_letter and (has_digit or has_symbol)


def _kind(name: str) -> str:
    name = name.lower()
    if "aws" in name and "secret" in name:
        return "aws-secret-key"
    if re.search(r"private[_.-]?key", name):
        return "private-key"
    if re.search(r"pass|pwd", name):
        return "password"
    if "token" in name:
        return "token"
    if "credential" in name:
        return "credential"
    if "secret" in name:
        return "secret"
    return "api-key"
