"""What a host's environment gets from chat-recall: one import package, `chat_recall`.

The wheel is built from this checkout and installed into a fresh virtual environment
next to distributions that claim the generic names `domain`, `application`, `adapters`
and `contracts` (as other projects on PyPI do), and the demo and the README's embedding
example are run from a host project that has its own `domain/` package and an
`application.py` module.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GENERIC_NAMES = ("domain", "application", "adapters", "contracts")


def run(command: list[str], cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **env}
    environment.pop("PYTHONPATH", None)
    result = subprocess.run(
        command, cwd=cwd, env=environment, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


def build(directory: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from that sdist (as `python -m build` does), in
    isolated build environments with the project's own backend."""
    run([sys.executable, "-m", "build", "-q", "-o", str(directory), "."], ROOT)
    (sdist,) = directory.glob("chat_recall-*.tar.gz")
    (wheel,) = directory.glob("chat_recall-*.whl")
    return sdist, wheel


def dummy_wheel(directory: Path, name: str, files: dict[str, str]) -> Path:
    """A minimal, valid wheel of a distribution named `name` with the given files."""
    dist_info = f"{name}-1.0.dist-info"
    contents = {
        **files,
        f"{dist_info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
        f"{dist_info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    path = directory / f"{name}-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in contents.items():
            data = text.encode()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            record.append(f"{member},sha256={digest.decode()},{len(data)}")
            archive.writestr(member, data)
        record.append(f"{dist_info}/RECORD,,")
        archive.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
    return path


def colliding_distributions(directory: Path) -> list[Path]:
    """Other projects' top-level packages with the generic names (the `adapters` one
    fails to import its utils without torch, as the real one does)."""
    return [
        dummy_wheel(
            directory,
            f"other_{name}",
            {
                f"{name}/__init__.py": f"OWNER = 'other_{name}'\n",
                f"{name}/utils.py": "import torch  # noqa\n",
            },
        )
        for name in GENERIC_NAMES
    ]


def readme_embedding_example() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Embedding", 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.S)
    assert match, "the README's embedding section has a python example"
    return match.group(1)


def host_project(directory: Path) -> Path:
    """A host app laid out the usual domain-driven way, with history in app.db."""
    host = directory / "host"
    (host / "domain").mkdir(parents=True)
    (host / "domain" / "__init__.py").write_text("HOST = True\n")
    (host / "domain" / "query.py").write_text("HOST_QUERY = True\n")
    (host / "application.py").write_text("HOST_APPLICATION = True\n")
    (host / "history.jsonl").write_text(
        '{"type": "chat", "id": 7, "app_id": 1, "title": "Auth", "created_at": 1700000000}\n'
        '{"type": "message", "id": 340, "chat_id": 7, "role": "user", '
        '"content": "when does the session expiry hit?", "created_at": 1700000060}\n'
    )
    return host


@pytest.fixture(scope="module")
def environment(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(python of a fresh venv with chat-recall and the colliding dists, the host dir)."""
    directory = tmp_path_factory.mktemp("namespace")
    _, wheel = build(directory)
    venv.EnvBuilder(with_pip=True).create(directory / "venv")
    python = directory / "venv" / "bin" / "python"
    others = colliding_distributions(directory)
    run([str(python), "-m", "pip", "install", "-q", *map(str, others), str(wheel)], directory)
    return python, host_project(directory)


def test_the_wheel_installs_only_chat_recall(environment: tuple[Path, Path]) -> None:
    python, host = environment
    record = run(
        [
            str(python),
            "-c",
            "import importlib.metadata as m; "
            "print('\\n'.join(str(f) for f in m.distribution('chat-recall').files))",
        ],
        host,
    ).stdout.split()
    top_level = {path.split("/")[0] for path in record if not path.startswith("..")}
    assert top_level == {"chat_recall", next(p for p in top_level if p.endswith(".dist-info"))}
    outside = [path for path in record if path.startswith("..")]
    assert [path.rsplit("/", 2)[-2:] for path in outside] == [["bin", "chat-recall"]]


def test_the_generic_names_still_belong_to_the_other_distributions(
    environment: tuple[Path, Path],
) -> None:
    python, host = environment
    probe = "; ".join(f"import {name}; print({name}.OWNER)" for name in GENERIC_NAMES)
    owners = run([str(python), "-c", probe], host.parent).stdout.split()
    assert owners == [f"other_{name}" for name in GENERIC_NAMES]


def test_demo_and_the_readme_example_run_from_a_host_with_its_own_domain(
    environment: tuple[Path, Path],
) -> None:
    python, host = environment
    demo = run([str(python), "-m", "chat_recall", "demo"], host)
    assert '"results":' in demo.stdout
    cli = python.parent / "chat-recall"
    run([str(cli), "init", "--db", "app.db"], host)
    run([str(cli), "import", "--db", "app.db", "history.jsonl"], host)
    example = readme_embedding_example()
    script = textwrap.dedent(
        f"""
        import domain, application
        assert domain.HOST and application.HOST_APPLICATION
        {textwrap.indent(example, "        ").strip()}
        import domain.query
        assert domain.query.HOST_QUERY
        print("version", chat_recall.__version__)
        """
    )
    (host / "embed.py").write_text(script)
    result = run([str(python), "embed.py"], host)
    assert '"chat_id":7' in result.stdout
    assert "<dyad-search-chats" in result.stdout
    assert re.search(r"^version \d+\.\d+", result.stdout, re.M)


def test_the_sdist_holds_the_folders_and_builds_the_same_package(tmp_path: Path) -> None:
    sdist, wheel = build(tmp_path)
    with tarfile.open(sdist) as archive:
        members = {name.split("/", 2)[1] for name in archive.getnames() if name.count("/")}
    assert {".dev", *GENERIC_NAMES, "tests", "pyproject.toml"} <= members
    with zipfile.ZipFile(wheel) as archive:
        names = {name.split("/")[0] for name in archive.namelist()}
    assert {name for name in names if not name.endswith(".dist-info")} == {"chat_recall"}


def test_an_editable_install_exposes_only_chat_recall(tmp_path: Path) -> None:
    probe = (
        "import importlib.util as u, chat_recall.domain as d; "
        "print(d.__file__); "
        f"print([n for n in {GENERIC_NAMES!r} if u.find_spec(n)])"
    )
    lines = run([sys.executable, "-c", probe], tmp_path).stdout.splitlines()
    assert Path(lines[0]).resolve().is_relative_to(ROOT.resolve())  # live: the checkout
    assert lines[1] == "[]"
    # Whatever the editable install puts on sys.path holds one importable name.
    from importlib.metadata import distribution

    added = [
        Path(line.strip())
        for file in distribution("chat-recall").files or []
        if str(file).endswith(".pth")
        for line in Path(str(file.locate())).read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith(("#", "import "))
    ]
    assert added, "an editable install adds the checkout's .dev folder to sys.path"
    for folder in added:
        names = {p.name.removesuffix(".py") for p in folder.iterdir() if p.name != "__pycache__"}
        assert names == {"chat_recall"}, folder
