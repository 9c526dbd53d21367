"""The text of LIBSVM's headers (model files, range files): the tokens of their numbers,
and the error that names the file, the line and its text."""
import re

INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")


def fail_at_line(name, line_no, line, reason):
    """Raise ValueError("<name>, line <line_no>: <reason>: <the line's text>")."""
    text = line.decode("utf-8", "backslashreplace").rstrip("\r")
    raise ValueError(f"{name}, line {line_no}: {reason}: {text[:200]!r}")
