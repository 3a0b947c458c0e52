"""LoCoMo, a public long-conversation benchmark nobody here wrote, run through search_chats.

LoCoMo (Maharana et al., ACL 2024; github.com/snap-research/locomo) holds ten long
conversations between two people, each in dated sessions, with questions whose
evidence is the ids of the dialogue turns that answer them. The data is not part of
this repository: fetch it and pass its path.

Run: python -m tests.evaluation.locomo PATH [--half tuning|held_out|both] [--memory]
     [--semantic static|minilm|table [--tokenizer DIR] [--table DIR]]

PATH is `locomo10.json` (a list of samples, each with `conversation` and `qa`), one
conversation file of the `locomo10_v2` layout (speakers, sessions and `qa` at the top
level), or a folder of such files. Each conversation becomes an app, each session a
chat (both speakers stored as the host's two roles, as an imported two-person
conversation is; dated by the session's date), each turn a message labelled with its
dialogue id, each question a question whose gold is its evidence. Questions are asked
as written (`full`) and as their content words (`keywords`: the question without the
stopwords of test_strictness.py, as an agent would shorten it). Halves are dealt by
`make_split`'s rule, so the same question is always in the same half; `--half` asks
only that half's questions (every conversation is indexed either way).

Evidence ids are read leniently (`D8:6; D9:17` and `D:11:26` occur); ids that name no
turn are dropped, and a question left without evidence is skipped (the count is
printed). It prints the same tables as `evaluate.py` for the design's plain algorithm
and the shipped policy, and with `--semantic` the shipped policy with the semantic
layer on against words only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from chat_recall.domain.messages import Role
from chat_recall.domain.text.analysis import TextAnalysis
from tests.evaluation.corpus import FORMS, App, Chat, Msg, Q, Question
from tests.evaluation.evaluate import (
    HALVES,
    Corpora,
    add_semantic_arguments,
    category_table,
    evaluate,
    make_split,
    plain,
    semantic_choice,
    semantic_report,
    shipped,
    summary_table,
)
from tests.evaluation.test_strictness import STOPWORDS, tokens

# The dataset's `category` field, named as LoCoMo's evaluations read it.
CATEGORY_NAMES = {
    1: "multi_hop",
    2: "temporal",
    3: "open_domain",
    4: "single_hop",
    5: "adversarial",
}
LOCOMO_CATEGORIES = tuple(CATEGORY_NAMES.values())
_SESSION = re.compile(r"session_(\d+)")
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def session_day(text: str) -> str:
    """`1:56 pm on 8 May, 2023` -> `2023-05-08`."""
    day = text.split(" on ", 1)[-1].strip()
    return datetime.datetime.strptime(day, "%d %B, %Y").date().isoformat()


def keywords(question: str) -> str:
    """The question's content words, in order: how an agent shortens a question."""
    words = [word for word in tokens(question) if word not in STOPWORDS]
    return " ".join(words) or question


def evidence_ids(raw: Iterable[str]) -> list[str]:
    return [f"D{a}:{b}" for entry in raw for a, b in _EVIDENCE.findall(entry)]


def conversation_app(app_id: int, name: str, conversation: Mapping[str, Any], qa: Any) -> App:
    """One LoCoMo conversation as an app of the evaluation."""
    speakers = (conversation.get("speaker_a"), conversation.get("speaker_b"))
    chats = []
    numbers = sorted(
        {
            int(match.group(1))
            for key in conversation
            if (match := _SESSION.fullmatch(key)) and conversation[key]
        }
    )
    for number in numbers:
        turns = conversation[f"session_{number}"]
        messages = tuple(
            Msg(
                Role.USER if turn.get("speaker") == speakers[0] else Role.ASSISTANT,
                str(turn.get("text", "")),
                str(turn["dia_id"]),
            )
            for turn in turns
            if turn.get("text")
        )
        day = session_day(conversation[f"session_{number}_date_time"])
        chats.append(Chat(f"session_{number}", None, day, messages, peer=True))
    labels = {message.label for chat in chats for message in chat.messages}
    questions = []
    for index, item in enumerate(qa):
        gold = tuple(
            dict.fromkeys(e for e in evidence_ids(item.get("evidence", [])) if e in labels)
        )
        if not gold:
            continue
        category = CATEGORY_NAMES.get(int(item.get("category", 0)), "other")
        text = str(item["question"])
        questions.append(Q(f"{name}-q{index:03d}", (category,), text, keywords(text), gold))
    chats.sort(key=lambda chat: (chat.day, int(chat.key.split("_")[1])))
    return App(app_id, name, tuple(chats), tuple(questions))


def _samples(path: Path) -> list[tuple[str, Mapping[str, Any], Any]]:
    """(name, conversation, qa) for every conversation under `path`."""
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    samples = []
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        if isinstance(data, list):
            for position, sample in enumerate(data):
                name = str(sample.get("sample_id", f"conv-{position}"))
                samples.append((name, sample["conversation"], sample.get("qa", [])))
        else:
            samples.append((f"conv-{file.stem}", data, data.get("qa", [])))
    return samples


def load_locomo(path: Path) -> tuple[tuple[App, ...], int]:
    """The conversations under `path` as apps, and how many questions were skipped
    for want of evidence that names a turn."""
    apps = []
    skipped = 0
    for app_id, (name, conversation, qa) in enumerate(_samples(path), start=1):
        app = conversation_app(app_id, name, conversation, qa)
        skipped += len(qa) - len(app.questions)
        apps.append(app)
    return tuple(apps), skipped


def questions(apps: Sequence[App]) -> list[Question]:
    return [question for app in apps for question in app.questions]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("path", type=Path, help="locomo10.json, or a folder of conversations")
    parser.add_argument("--half", choices=(*HALVES, "both"), default="both")
    parser.add_argument("--memory", action="store_true", help="use the in-memory adapter")
    add_semantic_arguments(parser)
    arguments = parser.parse_args(argv)
    semantic = semantic_choice(arguments.semantic, arguments.tokenizer, arguments.table)
    apps, skipped = load_locomo(arguments.path)
    halves = make_split(apps)
    split = {qid: half for half, ids in halves.items() for qid in ids}
    chats = sum(len(app.chats) for app in apps)
    messages = sum(len(chat.messages) for app in apps for chat in app.chats)
    print(
        f"LoCoMo: {len(questions(apps))} questions x {len(FORMS)} forms over {chats} "
        f"sessions ({messages} turns) in {len(apps)} conversations; {skipped} questions "
        "skipped (no evidence naming a turn)\n"
    )
    chosen = HALVES if arguments.half == "both" else (arguments.half,)
    # Only the chosen half's questions are asked (the index holds every conversation).
    apps = tuple(
        attrs.evolve(app, questions=tuple(q for q in app.questions if split[q.id] in chosen))
        for app in apps
    )
    corpora = Corpora(memory=arguments.memory, apps=apps, semantic=semantic)
    results = {
        "plain": evaluate(corpora, plain(), split),
        "shipped": evaluate(corpora, shipped(), split),
    }
    print(summary_table(results, chosen) + "\n")
    for half in chosen:
        for form in FORMS:
            print(category_table(results["shipped"], half, form, "shipped", LOCOMO_CATEGORIES))
            print()
    if semantic is not None:
        corpus = corpora(TextAnalysis.default())
        semantic_report(corpus, results, split, chosen, LOCOMO_CATEGORIES)


if __name__ == "__main__":
    main()
