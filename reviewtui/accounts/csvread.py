"""Reading export files: the text, the delimiter, the header among the first lines, and the data
rows streamed with their line numbers, so an export of hundreds of megabytes is never held whole.

Every error names the file and the line, and says what to change. A file that
stops in the middle of a row (a download cut short) is refused where it stops:
a row with fewer cells than the header, or a quoted value still open at the end.
Whether the file ends with a line break is recorded (``ExportFile.terminated``):
a last row without one may have lost its last digits, which the reader checks
against the export's own totals.
"""

from __future__ import annotations

import csv
import io
import itertools
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, TextIO


class InputError(Exception):
    """Bad input: ``file:line: column 'X': message``. Nothing has been written."""

    def __init__(self, path: str | Path, line: int, message: str, column: str | None = None) -> None:
        where = f"{path}:{line}: " + (f"column {column!r}: " if column else "")
        super().__init__(where + message)
        self.path = Path(path)
        self.line = line
        self.column = column
        self.message = message


HEADER_SEARCH_ROWS = 15
_SNIFF_BYTES = 1 << 16


class Progress:
    """One line on a terminal's stderr while a large file is read: how far, in bytes and rows."""

    INTERVAL = 0.5  # seconds between two updates of the line

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(getattr(self.stream, "isatty", lambda: False)())
        self.every = self.INTERVAL
        self._last = 0.0
        self._shown = False

    def show(self, label: str, done: int, total: int, rows: int) -> None:
        now = time.monotonic()
        if not self.enabled or now - self._last < self.every:
            return
        self._last = now
        share = f"{100 * done / total:3.0f}%" if total else ""
        self.stream.write(f"\r{label}: {share} ({done / 1e6:,.0f} of {total / 1e6:,.0f} MB), {rows:,} rows ")
        self.stream.flush()
        self._shown = True

    def done(self) -> None:
        if self._shown:
            self.stream.write("\r\033[K")
            self.stream.flush()
            self._shown = False


class _CountingReader(io.RawIOBase):
    """A binary file that counts the bytes read through it (for the progress line)."""

    def __init__(self, raw: io.BufferedReader) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        n = self.raw.readinto(buffer)
        self.count += n or 0
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


@dataclass
class ExportFile:
    """An export's layout on disk: its header, what sits above it, and how to stream its rows."""

    path: Path
    encoding: str
    delimiter: str
    header: list[str]
    header_line: int
    preamble: list[tuple[int, list[str]]]  # rows above the header (a title, a date-range line)
    size: int
    terminated: bool  # the file ends with a line break
    progress: Progress | None = field(default=None, repr=False)

    def column(self, name: str) -> int | None:
        try:
            return self.header.index(name)
        except ValueError:
            return None

    def _open(self) -> tuple[io.TextIOWrapper, _CountingReader]:
        counter = _CountingReader(open(self.path, "rb"))  # noqa: SIM115 - closed by the text wrapper
        return io.TextIOWrapper(io.BufferedReader(counter, 1 << 20), encoding=self.encoding, newline=""), counter

    def rows(self, label: str = "") -> Iterator[tuple[int, list[str]]]:
        """The data rows under the header, blank rows skipped, each with the line it starts on.

        A row with fewer cells than the header, or more with text in the extra cells,
        is refused: the first is a download cut short, the second an unquoted delimiter.
        """
        text, counter = self._open()
        width = len(self.header)
        reader = csv.reader(text, delimiter=self.delimiter, strict=True)
        start = 1
        n = 0
        progress = self.progress
        try:
            with text:
                for cells in reader:
                    line, start = start, reader.line_num + 1
                    if line <= self.header_line or not any(cells):
                        continue
                    if len(cells) != width:
                        self._check_width(line, cells)
                    n += 1
                    if progress is not None and not n & 4095:
                        progress.show(label or self.path.name, counter.count, self.size, n)
                    yield line, cells
        except csv.Error as exc:
            if "unexpected end of data" in str(exc) or "EOF" in str(exc):
                raise InputError(self.path, start, "the file ends inside a quoted value opened on this line: the "
                                 "download was cut off; download the report again") from None
            raise InputError(self.path, reader.line_num, f"not a readable CSV file ({exc}); export the report "
                             "as CSV") from None
        except UnicodeDecodeError as exc:
            raise InputError(self.path, start, f"not {self.encoding.replace('-sig', '').upper()} text "
                             f"({exc.reason}); export the report as CSV in UTF-8") from None

    def _check_width(self, line: int, cells: list[str]) -> None:
        width = len(self.header)
        if len(cells) < width:
            raise InputError(self.path, line, f"{len(cells)} cells under a header of {width} columns: the row "
                             "stops early, as in a download cut off; download the report again")
        if any(c.strip() for c in cells[width:]):
            raise InputError(self.path, line, f"{len(cells)} cells under a header of {width} columns; "
                             "a value holds an unquoted delimiter: export the report again as CSV")

    def cells_at(self, wanted: int) -> list[str] | None:
        """The cells of the row starting on line ``wanted`` (read again, for an error message)."""
        for line, cells in self.rows():
            if line == wanted:
                return cells
            if line > wanted:
                break
        return None


# Files an export is often saved as instead of CSV, by their first bytes.
_NOT_CSV = ((b"PK\x03\x04", "a ZIP archive (or an Excel .xlsx workbook, which is one): unzip it, or export the "
             "report as CSV rather than Excel"),
            (b"\x1f\x8b", "a gzip-compressed file: decompress it (gunzip) and import the CSV inside"),
            (b"\xd0\xcf\x11\xe0", "an Excel .xls workbook: export the report as CSV rather than Excel"))


def _encoding(path: Path, head: bytes) -> str:
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return "utf-16"
    for magic, what in _NOT_CSV:
        if head.startswith(magic):
            raise InputError(path, 1, f"not a CSV file: {what}")
    if b"\x00" in head[:4096]:
        raise InputError(path, 1, "not a CSV file (binary content); export the report as CSV")
    return "utf-8-sig"


def _terminated(path: Path, size: int, encoding: str) -> bool:
    with open(path, "rb") as fh:
        fh.seek(max(0, size - 4))
        tail = fh.read()
    if encoding == "utf-16":
        return tail.endswith((b"\n\x00", b"\x00\n", b"\r\x00", b"\x00\r"))
    return tail.endswith((b"\n", b"\r"))


def _delimiter(lines: list[str]) -> str:
    """The delimiter of the widest line among the first ones: comma, tab or semicolon."""
    best, best_count = ",", 0
    for delim in (",", "\t", ";"):
        count = max((len(next(csv.reader([ln], delimiter=delim))) for ln in lines[:20] if ln.strip()), default=0)
        if count > best_count:
            best, best_count = delim, count
    return best


def open_export(path: str | Path, is_header: Callable[[list[str]], bool],
                progress: Progress | None = None) -> ExportFile:
    """The file's encoding, delimiter, header and preamble, read from its first lines.

    ``is_header(cells)`` picks the header among the first rows (exports put a title or
    a date range above it). The text is UTF-8 (with or without BOM) or UTF-16 with a BOM
    (Excel-style downloads). A file whose header is not found has an empty ``header``,
    and its first rows as the preamble, for the caller's message.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
        with open(path, "rb") as fh:
            head = fh.read(_SNIFF_BYTES)
    except FileNotFoundError:
        raise InputError(path, 1, "file not found") from None
    except IsADirectoryError:
        raise InputError(path, 1, "is a folder, not a CSV file") from None
    except OSError as exc:
        raise InputError(path, 1, f"cannot read the file ({exc.strerror or exc})") from None
    encoding = _encoding(path, head)
    if not head.decode(encoding, errors="ignore").strip("\ufeff\x00 \r\n\t"):
        raise InputError(path, 1, "the file is empty: export the report again with at least one row")
    export = ExportFile(path, encoding, ",", [], 0, [], size, _terminated(path, size, encoding), progress)
    text, _counter = export._open()
    try:
        with text:
            first_lines = list(itertools.islice(text, 20))
    except UnicodeDecodeError as exc:
        raise InputError(path, 1, f"not UTF-8 text ({exc.reason}); export the report as CSV in UTF-8") from None
    export.delimiter = _delimiter(first_lines)
    text, _counter = export._open()
    reader = csv.reader(text, delimiter=export.delimiter, strict=True)
    numbered: list[tuple[int, list[str]]] = []
    start = 1
    try:
        with text:
            for cells in itertools.islice(reader, HEADER_SEARCH_ROWS):
                numbered.append((start, cells))
                start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(path, reader.line_num, f"not a readable CSV file ({exc}); export the report as CSV") from None
    except UnicodeDecodeError as exc:
        raise InputError(path, start, f"not UTF-8 text ({exc.reason}); export the report as CSV in UTF-8") from None
    for i, (line, cells) in enumerate(numbered):
        if is_header([c.strip() for c in cells]):
            export.header = [c.strip() for c in cells]
            export.header_line = line
            export.preamble = numbered[:i]
            return export
    export.preamble = numbered
    return export


def same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()
