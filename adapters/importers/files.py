"""The files one import path names (`application.importing.SourceFiles`): a file, the
files under a directory, or the members of a zip archive, which are read from the
archive itself and never unpacked to disk."""

from __future__ import annotations

import os
import sys
import zipfile
from pathlib import Path
from typing import BinaryIO

import attrs

from chat_recall.application.importing import SourceFiles
from chat_recall.domain.errors import InvalidArguments

STANDARD_INPUT = "-"


@attrs.frozen
class SingleFile:
    path: Path
    label: str

    def names(self) -> list[str]:
        return [self.path.name]

    def open(self, name: str) -> BinaryIO:
        return self.path.open("rb")

    def size(self, name: str) -> int | None:
        return self.path.stat().st_size


@attrs.frozen
class DirectoryFiles:
    root: Path
    label: str

    def names(self) -> list[str]:
        return sorted(
            path.relative_to(self.root).as_posix()
            for path in self.root.rglob("*")
            if path.is_file()
        )

    def open(self, name: str) -> BinaryIO:
        return (self.root / name).open("rb")

    def size(self, name: str) -> int | None:
        return (self.root / name).stat().st_size


@attrs.define
class ZipFiles:
    archive: zipfile.ZipFile
    label: str

    def names(self) -> list[str]:
        return sorted(info.filename for info in self.archive.infolist() if not info.is_dir())

    def open(self, name: str) -> BinaryIO:
        return self.archive.open(name)  # type: ignore[return-value]

    def size(self, name: str) -> int | None:
        return self.archive.getinfo(name).file_size

    def close(self) -> None:
        self.archive.close()


@attrs.frozen
class StandardInput:
    """Standard input, for JSON Lines piped in (left open when read)."""

    label: str = "standard input"

    def names(self) -> list[str]:
        return [STANDARD_INPUT]

    def open(self, name: str) -> BinaryIO:
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")

    def size(self, name: str) -> int | None:
        return None


def files_of(path: str) -> SourceFiles:
    """The files `path` names (`-`: standard input); InvalidArguments when it names
    none that can be read."""
    if path == STANDARD_INPUT:
        return StandardInput()
    source = Path(path).expanduser()
    try:
        if source.is_dir():
            return DirectoryFiles(source, path)
        if zipfile.is_zipfile(source):
            return ZipFiles(zipfile.ZipFile(source), path)
        if source.is_file():
            with source.open("rb"):
                pass
            return SingleFile(source, path)
    except (OSError, zipfile.BadZipFile) as error:
        raise InvalidArguments(
            f"cannot read {path}: {getattr(error, 'strerror', None) or error}"
        ) from error
    raise InvalidArguments(f"cannot read {path}: no such file or directory")
