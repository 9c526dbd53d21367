"""The numbers of LIBSVM's text headers (model files, range files) as tokens."""
import re

_INT_RE = re.compile(rb"[+-]?[0-9]+\Z")
_FLOAT_RE = re.compile(rb"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
