"""How `"confident"` would answer under other bars: the tuning procedure of
`FusionPolicy`'s confidence bars, reproducible.

Run: python -m tests.evaluation.confidence [--locomo PATH] [--memory] [--tuning-only]
     [--semantic static|minilm|table [--tokenizer DIR] [--table DIR]]

Every question of the evaluation (and of LoCoMo with `--locomo`, see `locomo.py`) is
asked once in both forms with the semantic layer on (the packaged static table unless
`--semantic` names another model, as `evaluate.py` takes it); what
`FusionPolicy.confident` was given (the lexical evidence and the chats found by meaning)
is recorded. Each candidate set of bars then judges those same inputs with the policy's
own `confident`, so no search runs again. For every candidate that keeps answerable
questions wrongly "not confident" at `--most` or less on each tuning half, it prints the
share of never-discussed questions flagged on the tuning half; then the shipped bars and
the best candidates once on the held-out halves. Choose on the tuning rows only. Counts
are searches (each question in both forms).
"""

from __future__ import annotations

import argparse
import itertools
from collections.abc import Sequence
from pathlib import Path

import attrs

from chat_recall.adapters.semantic import Semantic
from chat_recall.domain.search.fusion import FusionPolicy, LexicalEvidence
from chat_recall.domain.semantic import SimilarChat
from chat_recall.domain.text.analysis import TextAnalysis
from tests.evaluation.corpus import FORMS, App
from tests.evaluation.evaluate import (
    HALVES,
    Corpora,
    add_semantic_arguments,
    layer,
    make_split,
    read_split,
    search_tool,
    semantic_choice,
    shipped,
)

LEXICAL_BARS = (0.1, 0.15, 0.25, 0.35)
UNMATCHED_BARS = (0.2, 0.25, 0.34, 0.5, 1.0)
SEMANTIC_BARS = tuple(round(0.1 + 0.025 * n, 3) for n in range(13))


@attrs.frozen
class Judged:
    """One search's confidence inputs, and what the question is."""

    benchmark: str
    half: str
    answerable: bool
    lexical: LexicalEvidence
    semantic: tuple[SimilarChat, ...] | None


@attrs.frozen
class Recording(FusionPolicy):
    """The shipped policy, keeping what each confidence judgement was given."""

    seen: list[tuple[LexicalEvidence, tuple[SimilarChat, ...] | None]] = attrs.field(
        factory=list, eq=False
    )

    def confident(self, lexical: LexicalEvidence, semantic: Sequence[SimilarChat] | None) -> bool:
        self.seen.append((lexical, None if semantic is None else tuple(semantic)))
        return super().confident(lexical, semantic)


def record(
    name: str,
    apps: Sequence[App] | None,
    split: dict[str, str],
    memory: bool,
    semantic: Semantic | None = None,
) -> list[Judged]:
    chosen = Semantic.local() if semantic is None else semantic
    corpus = Corpora(memory=memory, apps=apps, semantic=chosen)(TextAnalysis.default())
    recording = Recording()
    search = search_tool(corpus, shipped().policy, layer(corpus, recording))
    judged = []
    for app in corpus.apps:
        for question in app.questions:
            for form in FORMS:
                search(app.id, question.text(form))
                lexical, semantic = recording.seen[-1]
                answerable = bool(question.evidence)
                judged.append(Judged(name, split[question.id], answerable, lexical, semantic))
    return judged


def flagged(judged: Sequence[Judged], policy: FusionPolicy) -> tuple[float, int]:
    """The share of `judged` the policy calls not confident, and how many there are."""
    if not judged:
        return float("nan"), 0
    flags = sum(not policy.confident(j.lexical, j.semantic) for j in judged)
    return flags / len(judged), len(judged)


def rates(judged: Sequence[Judged], policy: FusionPolicy, half: str) -> list[str]:
    """Per benchmark: never-discussed flagged / answerable wrongly flagged."""
    cells = []
    for name in sorted({j.benchmark for j in judged}):
        rows = [j for j in judged if j.benchmark == name and j.half == half]
        never, n_never = flagged([j for j in rows if not j.answerable], policy)
        wrong, n_answerable = flagged([j for j in rows if j.answerable], policy)
        never_cell = f"{never:.2f} of {n_never}" if n_never else "-"
        cells.append(f"{never_cell} / {wrong:.3f} of {n_answerable}")
    return cells


def candidates(base: FusionPolicy) -> list[FusionPolicy]:
    return [
        attrs.evolve(
            base, lexical_bar_with_meaning=lexical, unmatched_bar=unmatched, semantic_bar=near
        )
        for lexical, unmatched, near in itertools.product(
            LEXICAL_BARS, UNMATCHED_BARS, SEMANTIC_BARS
        )
    ]


def choose(judged: Sequence[Judged], most: float, keep: int) -> list[FusionPolicy]:
    """The `keep` candidates flagging the most never-discussed tuning questions while
    no tuning half has more than `most` of its answerable questions flagged."""
    tuning = [j for j in judged if j.half == "tuning"]
    names = sorted({j.benchmark for j in judged})
    scored = []
    for policy in candidates(FusionPolicy.default()):
        worst = max(
            flagged([j for j in tuning if j.benchmark == n and j.answerable], policy)[0]
            for n in names
        )
        if worst <= most:
            never = flagged([j for j in tuning if not j.answerable], policy)[0]
            scored.append((-never, worst, policy))
    scored.sort(key=lambda s: (s[0], s[1]))
    return [policy for _, _, policy in scored[:keep]]


def table(judged: Sequence[Judged], policies: Sequence[FusionPolicy], half: str) -> str:
    names = sorted({j.benchmark for j in judged})
    lines = [
        f"**{half}** (never-discussed flagged / answerable wrongly flagged, per benchmark)",
        "",
        "| lexical | unmatched | semantic | " + " | ".join(names) + " |",
        "|" + "---|" * (3 + len(names)),
    ]
    for policy in policies:
        bars = (policy.lexical_bar_with_meaning, policy.unmatched_bar, policy.semantic_bar)
        lines.append(
            "| "
            + " | ".join(f"{b:g}" for b in bars)
            + " | "
            + " | ".join(rates(judged, policy, half))
            + " |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--locomo", type=Path, default=None, metavar="PATH")
    parser.add_argument("--memory", action="store_true", help="use the in-memory adapter")
    parser.add_argument("--most", type=float, default=0.05)
    parser.add_argument("--keep", type=int, default=5)
    parser.add_argument(
        "--tuning-only", action="store_true", help="print no held-out table (EXPERIMENT)"
    )
    add_semantic_arguments(parser)
    arguments = parser.parse_args(argv)
    semantic = semantic_choice(arguments.semantic, arguments.tokenizer, arguments.table)
    judged = record("ours", None, read_split(), arguments.memory, semantic)
    if arguments.locomo is not None:
        from tests.evaluation.locomo import load_locomo

        apps, _ = load_locomo(arguments.locomo)
        halves = make_split(apps)
        split = {qid: half for half, ids in halves.items() for qid in ids}
        judged += record("locomo", apps, split, arguments.memory, semantic)
    chosen = choose(judged, arguments.most, arguments.keep)
    shipped_bars = FusionPolicy.default()
    print(table(judged, [shipped_bars, *chosen], "tuning") + "\n")
    print("The shipped bars first, then the best candidates on the tuning halves.\n")
    if arguments.tuning_only:
        return
    for half in HALVES[1:]:
        print(table(judged, [shipped_bars, *chosen], half) + "\n")


if __name__ == "__main__":
    main()
