"""The assistant-markup policy as data: a table from tag name to what survives.

The default table is the reference host's inventory (`dyad-*` tags and `think`);
hosts with other markup build their own with `MarkupPolicy.from_rules`.
"""

from __future__ import annotations

import enum
import functools
import re
import types
from collections.abc import Mapping

import attrs

from chat_recall.domain.redaction import DEFAULT_REDACTION, RedactionPolicy, Redactor


class TagClass(enum.Enum):
    """What a tag's body is, and so what of it is kept."""

    KEEP = "keep"  # searchable prose: body and listed attributes survive
    META = "meta"  # an operation: one metadata line from allowlisted attributes
    BULKY = "bulky"  # tool output: a metadata line where one exists, never the body
    DROP = "drop"  # reasoning and retrieval output: nothing survives


class BodyRule(enum.Enum):
    """How a tag's body is turned into text."""

    DROP = "drop"  # the body never appears
    TEXT = "text"  # prose, itself scanned for (nested) markup
    QA = "qa"  # `<qa question="..">answer</qa>` lines become question/answer text
    URL = "url"  # a single URL, kept when it looks like one


def _default_body(rule: TagRule) -> BodyRule:
    return BodyRule.TEXT if rule.tag_class is TagClass.KEEP else BodyRule.DROP


@attrs.frozen
class TagRule:
    """The policy for one tag name.

    A metadata line reads `[label subject: detail]`: `subject` attributes joined by
    `joiner` (as `name: value` pairs when `named`), `detail` attributes after a colon.
    `read_fields` are added only to the read projection. Every attribute value is
    whitespace-collapsed and clipped to `attr_cap` characters.
    """

    tag_class: TagClass
    label: str = ""
    subject: tuple[str, ...] = ()
    detail: tuple[str, ...] = ()
    read_fields: tuple[str, ...] = ()
    body: BodyRule = attrs.field(default=attrs.Factory(_default_body, takes_self=True))
    body_cap: int | None = None
    read_body_cap: int | None = None
    joiner: str = " "
    named: bool = False
    attr_cap: int = 160

    @classmethod
    def drop(cls) -> TagRule:
        return cls(TagClass.DROP)

    @property
    def attribute_allowlist(self) -> frozenset[str]:
        """Every attribute this rule may ever show."""
        return frozenset((*self.subject, *self.detail, *self.read_fields))

    @property
    def shows_attributes(self) -> bool:
        """Whether any attribute can appear in a projection (else none is parsed)."""
        return bool(self.subject or self.detail or self.read_fields)


def _freeze_rules(rules: Mapping[str, TagRule]) -> Mapping[str, TagRule]:
    return types.MappingProxyType(dict(sorted(rules.items())))


# What the scanner takes for a tag name (a tag is `<name` or `</name`).
TAG_NAME = r"[A-Za-z][\w-]*"
_INLINE_FLAGS = (
    (re.ASCII, "a"),
    (re.IGNORECASE, "i"),
    (re.MULTILINE, "m"),
    (re.DOTALL, "s"),
    (re.VERBOSE, "x"),
)


# A tag pattern is embedded in the tag-start expression only if every atom of it can
# match name characters alone (letters, digits, `_`, `-`, `\w`, `\d`, classes of
# those): then it never reads past the name, so each `<` costs at most the name's
# length. Anything else (`.`, `\s`, `\W`, other escapes, anchors, lookarounds, `[^...]`)
# could look beyond the name, making matches depend on context or a scan quadratic.
_NAME_ESCAPES = r"\\[wd\-]"
_NAME_ONLY_SYNTAX = r"[\w\-|()?:*+{},\[\]]*"


def _embeddable(pattern: re.Pattern[str]) -> bool:
    source = re.sub(_NAME_ESCAPES, "", pattern.pattern)
    return not pattern.groups and re.fullmatch(_NAME_ONLY_SYNTAX, source) is not None


def _tag_start(policy: MarkupPolicy) -> re.Pattern[str]:
    """One expression that finds the next `<name` / `</name` whose name the policy may
    recognise, so the scanner skips every other `<` without leaving C. Group 1 is the
    `/` of a closing tag, group 2 the whole name. It never misses a recognised name; the
    scanner still asks `recognises`, so an over-approximation costs only time. A tag
    pattern that cannot be embedded safely (see `_embeddable`; also groups of its own or
    a global flag) gets the plain form, which stops at every `<` + letter."""
    generic = re.compile(f"<(/?)({TAG_NAME})")
    pattern = policy.tag_pattern
    if not _embeddable(pattern):
        return generic
    flags = "".join(letter for flag, letter in _INLINE_FLAGS if pattern.flags & flag)
    names = [f"(?{flags}:{pattern.pattern})" if flags else pattern.pattern]
    # Registered names the pattern already covers need no alternative of their own.
    names += [re.escape(name) for name in sorted(policy.rules) if not pattern.fullmatch(name)]
    alternatives = "|".join(f"(?:{name})" for name in names)
    try:
        return re.compile(f"<(/?)(?=(?:{alternatives})(?![\\w-]))({TAG_NAME})")
    except re.error:
        return generic


@attrs.frozen
class MarkupPolicy:
    """Which tag names the scanner recognises and what each keeps.

    A name in `rules` uses its rule; any other name that fully matches `tag_pattern`
    is an unknown tag of the host's markup and fails closed with `unknown_rule`.
    Keep bodies are scanned for nested markup down to `max_keep_depth` levels; a keep
    tag deeper than that is treated as `unknown_rule`. `redaction` says which
    credentials every projection (and chat title) replaces with a typed placeholder.
    """

    rules: Mapping[str, TagRule] = attrs.field(converter=_freeze_rules)
    tag_pattern: re.Pattern[str]
    unknown_rule: TagRule
    max_keep_depth: int = 4
    redaction: RedactionPolicy = DEFAULT_REDACTION

    @classmethod
    def from_rules(
        cls,
        rules: Mapping[str, TagRule],
        *,
        tag_pattern: str,
        unknown_rule: TagRule | None = None,
        redaction: RedactionPolicy = DEFAULT_REDACTION,
    ) -> MarkupPolicy:
        """A host's own policy. `tag_pattern` is a regular expression for the whole
        tag name of the host's markup (case-insensitive); `redaction` adds credential
        shapes or allow-listed values to the default redaction."""
        return cls(
            rules=rules,
            tag_pattern=re.compile(tag_pattern, re.IGNORECASE),
            unknown_rule=unknown_rule or UNKNOWN_TAG_RULE,
            redaction=redaction,
        )

    @classmethod
    def default(cls) -> MarkupPolicy:
        """The reference host's inventory."""
        return DEFAULT_POLICY

    def __reduce__(self) -> tuple[object, ...]:
        """Pickled by its fields (the frozen rules table is a read-only mapping, which
        pickle cannot copy): the indexer sends its policy to planning processes."""
        return (
            type(self),
            (
                dict(self.rules),
                self.tag_pattern,
                self.unknown_rule,
                self.max_keep_depth,
                self.redaction,
            ),
        )

    def with_rules(self, overrides: Mapping[str, TagRule]) -> MarkupPolicy:
        """This policy with some rules added or replaced."""
        return attrs.evolve(self, rules={**self.rules, **overrides})

    def with_redaction(self, redaction: RedactionPolicy) -> MarkupPolicy:
        """This policy with another redaction policy."""
        return attrs.evolve(self, redaction=redaction)

    @functools.cached_property
    def tag_start(self) -> re.Pattern[str]:
        """The scanner's expression for the next recognised tag (`_tag_start`), compiled
        on first use: a command that projects nothing (a search) never compiles it."""
        return _tag_start(self)

    @functools.cached_property
    def redactor(self) -> Redactor:
        """`Redactor.of(self.redaction)`, looked up once per policy rather than once per
        projection (the lookup hashes the redaction policy)."""
        return Redactor.of(self.redaction)

    def recognises(self, name: str) -> bool:
        return name in self.rules or self.tag_pattern.fullmatch(name) is not None

    def rule_for(self, name: str) -> TagRule:
        return self.rules.get(name, self.unknown_rule)

    def recognised_rule(self, name: str) -> TagRule | None:
        """`rule_for(name)` when the policy recognises the name, else None (prose)."""
        rule = self.rules.get(name)
        if rule is None and self.tag_pattern.fullmatch(name) is not None:
            return self.unknown_rule
        return rule

    def fingerprint(self) -> str:
        """A digest of the whole table and the redaction policy; a derived index built
        under another fingerprint is stale."""
        import hashlib  # here: only the indexer's stamp needs it, not every CLI start

        text = repr(
            (
                sorted(self.rules.items()),
                self.tag_pattern.pattern,
                self.unknown_rule,
                self.max_keep_depth,
                self.redaction.fingerprint(),
            )
        )
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# Unknown tags of the host's markup keep only these short attributes.
UNKNOWN_TAG_RULE = TagRule(
    TagClass.BULKY, label="", subject=("path", "name"), detail=("title",), attr_cap=80
)

KEEP, META, BULKY = TagClass.KEEP, TagClass.META, TagClass.BULKY

DEFAULT_RULES: Mapping[str, TagRule] = {
    # drop: reasoning, and our own retrieval output
    "think": TagRule.drop(),
    "dyad-search-chats": TagRule.drop(),
    "dyad-read-chat": TagRule.drop(),
    "dyad-explore-chat-history": TagRule.drop(),
    # keep: searchable prose and decisions
    "dyad-chat-summary": TagRule(KEEP, "", body_cap=300),
    "dyad-compaction": TagRule(KEEP, "conversation summary", detail=("title",)),
    "dyad-write-plan": TagRule(KEEP, "plan", subject=("title",), detail=("summary",), attr_cap=600),
    "dyad-exit-plan": TagRule(KEEP, "plan accepted", detail=("notes",), attr_cap=600),
    "dyad-app-blueprint": TagRule(
        KEEP,
        "app blueprint",
        subject=("app-name", "template", "theme", "design-direction", "primary-color"),
        joiner="; ",
        named=True,
        attr_cap=300,
    ),
    "dyad-questionnaire": TagRule(KEEP, "questionnaire", body=BodyRule.QA),
    "dyad-security-finding": TagRule(
        KEEP, "security finding", subject=("level",), detail=("title",), attr_cap=300
    ),
    "dyad-status": TagRule(KEEP, "status", detail=("title",), body_cap=600),
    "dyad-step-limit": TagRule(
        KEEP, "step limit", subject=("steps", "limit"), joiner="/", body_cap=300
    ),
    "dyad-output": TagRule(
        KEEP,
        "output",
        subject=("type",),
        detail=("message",),
        body=BodyRule.DROP,
        read_body_cap=300,
    ),
    # meta: operations, one line each
    "dyad-write": TagRule(META, "write", subject=("path",), detail=("description",)),
    "dyad-edit": TagRule(META, "edit", subject=("path",), detail=("description",)),
    "dyad-generate-test": TagRule(
        META, "generate test", subject=("path",), detail=("description",)
    ),
    "dyad-search-replace": TagRule(
        META, "search-replace", subject=("path",), detail=("description",)
    ),
    "dyad-rename": TagRule(META, "rename", subject=("from", "to"), joiner=" -> "),
    "dyad-copy": TagRule(
        META, "copy", subject=("from", "to"), detail=("description",), joiner=" -> "
    ),
    "dyad-delete": TagRule(META, "delete", subject=("path",)),
    "dyad-add-dependency": TagRule(META, "add dependency", subject=("packages",)),
    "dyad-command": TagRule(META, "command", subject=("type",)),
    "dyad-add-integration": TagRule(
        META, "add integration", subject=("provider",), detail=("outcome",)
    ),
    "dyad-enable-nitro": TagRule(META, "enable nitro"),
    "dyad-image-generation": TagRule(META, "generate image", subject=("path",), detail=("prompt",)),
    "dyad-read": TagRule(
        META, "read", subject=("path",), read_fields=("start_line", "end_line", "app_name")
    ),
    "dyad-read-guide": TagRule(META, "read guide", subject=("name",)),
    "dyad-subagent": TagRule(META, "subagent", subject=("persona",), detail=("task-name",)),
    "dyad-test-assertions": TagRule(
        META, "test assertions", subject=("spec-path",), read_fields=("status",)
    ),
    # bulky: tool output, never the body
    "dyad-execute-sql": TagRule(BULKY, "sql", detail=("description",)),
    "dyad-read-logs": TagRule(
        BULKY, "read logs", subject=("type", "level"), read_fields=("count",)
    ),
    "dyad-grep": TagRule(
        BULKY, "grep", subject=("query",), read_fields=("include", "exclude", "count", "total")
    ),
    "dyad-code-search": TagRule(BULKY, "code search", subject=("query",)),
    "dyad-code-search-result": TagRule(BULKY, "code search result", read_fields=("files",)),
    "dyad-codebase-context": TagRule(BULKY, "codebase context", read_fields=("files",)),
    "dyad-explore-code": TagRule(BULKY, "explore code", subject=("query",)),
    "dyad-list-files": TagRule(
        BULKY, "list files", subject=("directory",), read_fields=("recursive", "count")
    ),
    "dyad-git": TagRule(
        BULKY, "git", subject=("operation", "branch", "path"), read_fields=("revision",)
    ),
    "dyad-script": TagRule(BULKY, "script", detail=("description",)),
    "dyad-web-search": TagRule(BULKY, "web search", subject=("query",)),
    "dyad-web-search-result": TagRule(BULKY, "web search result"),
    "dyad-web-crawl": TagRule(BULKY, "web crawl", body=BodyRule.URL),
    "dyad-web-fetch": TagRule(BULKY, "web fetch", body=BodyRule.URL),
    "dyad-mcp-tool-call": TagRule(BULKY, "mcp call", subject=("server", "tool"), joiner="/"),
    "dyad-mcp-tool-result": TagRule(
        BULKY, "mcp result", subject=("server", "tool"), joiner="/", read_fields=("is-error",)
    ),
    "dyad-mcp-tool-search": TagRule(
        BULKY, "mcp tool search", subject=("query",), read_fields=("server",)
    ),
    "dyad-mcp-tool-schema": TagRule(BULKY, "mcp tool schema", subject=("tools",)),
    "dyad-database-schema": TagRule(BULKY, "database schema"),
    "dyad-supabase-project-info": TagRule(BULKY, "supabase project info"),
    "dyad-neon-project-info": TagRule(BULKY, "neon project info"),
    "dyad-db-table-schema": TagRule(BULKY, "table schema", subject=("provider", "table")),
    "dyad-supabase-table-schema": TagRule(BULKY, "supabase table schema", subject=("table",)),
    "dyad-neon-table-schema": TagRule(BULKY, "neon table schema", subject=("table",)),
    "dyad-problem-report": TagRule(BULKY, "problems", detail=("summary",), attr_cap=300),
}

# `dyad-` names of the host's markup, plus `think` and anything that starts like it
# (`<thinking>`): fail closed rather than leak a reasoning body as prose.
DEFAULT_TAG_PATTERN = r"dyad-[\w-]*|think[\w-]*"

DEFAULT_POLICY = MarkupPolicy.from_rules(DEFAULT_RULES, tag_pattern=DEFAULT_TAG_PATTERN)
