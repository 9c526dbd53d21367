"""Byte sources for the readers: a path, a file descriptor or a binary file object as one
binary stream.

gzip / bzip2 / xz content is recognised by its first bytes (whatever the file's name)
and decompressed as it is read; corrupt or truncated compressed data is a ValueError
that names the file. Objects the caller passed are read, never closed.
"""
import bz2
import gzip
import io
import lzma
import os
import zlib

_CHUNK = 1 << 22  # bytes read at a time and fed to a parser

#: The longest line the readers take: a LIBSVM text line (a data row, a support
#: vector, a header's list of numbers) of more bytes is refused with the file and the
#: line named, so that a stream without line ends (/dev/zero, a binary file) is not
#: buffered until memory runs out. 256 MiB holds ten million values or more.
MAX_LINE_BYTES = 1 << 28


def _line_too_long(name, line_no):
    raise ValueError(f"{name}, line {line_no}: longer than {MAX_LINE_BYTES} bytes "
                     "(libsmo.io.sources.MAX_LINE_BYTES): not LIBSVM's text (a binary "
                     "file, or a stream without line ends)")


class _Prefixed(io.RawIOBase):
    """A readable stream: `prefix`, then the rest of `stream`."""

    def __init__(self, prefix, stream):
        super().__init__()
        self._prefix = prefix
        self._stream = stream

    def readable(self):
        return True

    def readinto(self, buffer):
        view = memoryview(buffer).cast("B")
        if self._prefix:
            n = min(len(view), len(self._prefix))
            view[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        data = self._stream.read(len(view))
        if data is None:
            return None
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode")
        view[:len(data)] = data
        return len(data)


def _read_exactly(stream, n):
    """Up to n bytes (fewer only at the end of the stream)."""
    parts, got = [], 0
    while got < n:
        data = stream.read(n - got)
        if isinstance(data, str):
            raise TypeError("file objects must be opened in binary mode (got text from "
                            f"{_source_name(stream)})")
        if not data:
            break
        parts.append(bytes(data))
        got += len(data)
    return b"".join(parts)


def _compression(head):
    """'gz', 'bz2', 'xz' or None, from a stream's first bytes."""
    if head.startswith(b"\x1f\x8b"):
        return "gz"
    if head.startswith(b"\xfd7zXZ\x00"):
        return "xz"
    if (len(head) >= 4 and head.startswith(b"BZh") and head[3:4].isdigit()
            and head[3:4] != b"0"):
        return "bz2"
    return None


def _source_name(f):
    if isinstance(f, (str, os.PathLike)):
        return os.fspath(f)
    if isinstance(f, int):
        return f"<file descriptor {f}>"
    name = getattr(f, "name", None)
    return str(name) if isinstance(name, (str, bytes, os.PathLike)) else "<file object>"


class _Source:
    """Context manager: (binary stream with decompression applied, name) for a path, a
    file descriptor or a binary file object. Objects the caller passed are not closed."""

    def __init__(self, f):
        self.f = f
        self.name = _source_name(f)
        self._to_close = []

    def __enter__(self):
        f = self.f
        if isinstance(f, (str, bytes, os.PathLike)):
            if isinstance(f, bytes):
                f = os.fsdecode(f)
                self.name = f
            raw = open(f, "rb")
            self._to_close.append(raw)
        elif isinstance(f, int) and not isinstance(f, bool):
            raw = open(f, "rb", closefd=False)
            self._to_close.append(raw)
        elif hasattr(f, "read"):
            if isinstance(f, io.TextIOBase):
                raise TypeError(f"{self.name}: file objects must be opened in binary mode")
            raw = f
        else:
            raise TypeError("expected a path, a file descriptor or a binary file object, "
                            f"got {type(f).__name__}")
        head = _read_exactly(raw, 6)
        stream = _Prefixed(head, raw)
        kind = _compression(head)
        if kind == "gz":
            stream = gzip.GzipFile(fileobj=io.BufferedReader(stream), mode="rb")
        elif kind == "bz2":
            stream = bz2.BZ2File(io.BufferedReader(stream), mode="rb")
        elif kind == "xz":
            stream = lzma.LZMAFile(io.BufferedReader(stream), mode="rb")
        if kind is not None:
            self._to_close.insert(0, stream)
        return stream, self.name

    def __exit__(self, *exc):
        for stream in self._to_close:
            stream.close()
        return False


def _is_decompression_error(exc):
    """Corrupt or truncated compressed data (not an I/O error, which has an errno)."""
    return (isinstance(exc, (EOFError, lzma.LZMAError, zlib.error))
            or (isinstance(exc, OSError) and exc.errno is None))


def _read(stream, name, size=-1):
    try:
        return stream.read(size)
    except (OSError, EOFError, lzma.LZMAError, zlib.error) as exc:
        if not _is_decompression_error(exc):
            raise
        raise ValueError(f"{name}: cannot decompress: {exc}") from None


def _read_all(f):
    """(bytes, name) of a whole source, decompressed, read in chunks; ValueError for a
    line longer than MAX_LINE_BYTES."""
    with _Source(f) as (stream, name):
        pieces, line_no, run = [], 1, 0   # run: bytes since the last line end
        while True:
            chunk = _read(stream, name, _CHUNK)
            if isinstance(chunk, str):
                raise TypeError("file objects must be opened in binary mode")
            if not chunk:
                break
            chunk = bytes(chunk)
            first, last = chunk.find(b"\n"), chunk.rfind(b"\n")
            if first >= 0 and run + first > MAX_LINE_BYTES:   # the line that ends here
                _line_too_long(name, line_no)
            run = run + len(chunk) if last < 0 else len(chunk) - last - 1
            if run > MAX_LINE_BYTES:
                _line_too_long(name, line_no + chunk.count(b"\n"))
            line_no += chunk.count(b"\n")
            pieces.append(chunk)
    return b"".join(pieces), name


def _parse_stream(stream, parser, name):
    """Feed a binary stream to a Parser in chunks (the parser sees a chunk once a line
    ends in it); ValueError for a line longer than MAX_LINE_BYTES."""
    pieces, size = [], 0   # the line not ended yet
    while True:
        chunk = _read(stream, name, _CHUNK)
        if isinstance(chunk, str):
            raise TypeError("file objects must be opened in binary mode")
        if not chunk:
            break
        chunk = bytes(chunk)
        first = chunk.find(b"\n")
        if first < 0:
            pieces.append(chunk)
            size += len(chunk)
        elif size + first > MAX_LINE_BYTES:   # the line that ends in this chunk
            _line_too_long(name, parser.line_number + 1)
        else:
            buffer = b"".join(pieces + [chunk]) if pieces else chunk
            used = parser.feed(buffer)
            pending = buffer[used:]
            pieces, size = ([pending], len(pending)) if pending else ([], 0)
        if size > MAX_LINE_BYTES:
            _line_too_long(name, parser.line_number + 1)
    if pieces:
        parser.feed(b"".join(pieces), True)
