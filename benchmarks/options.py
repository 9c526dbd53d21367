"""The command-line options the benchmark scripts share: counts, thread lists, subsets
of known names, the data folder."""
import argparse
from pathlib import Path

from benchmarks import data


def positive_int(text):
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def thread_list(text):
    """argparse type: one or more thread counts, comma-separated, e.g. "1,2" (sorted)."""
    try:
        counts = sorted({positive_int(t) for t in text.split(",") if t.strip()})
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"thread counts are positive integers: {text}")
    if not counts:
        raise argparse.ArgumentTypeError("give at least one thread count")
    return counts


def name_list(known):
    """argparse type: a comma-separated subset of `known`, in the given order."""
    def parse(text):
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in known]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                f"unknown {', '.join(unknown) or '(none given)'}; known: {', '.join(known)}")
        return names
    return parse


def data_dir_option(parser):
    """Add --data-dir (default LIBSMO_DATA_DIR, else ../shared/data) to `parser`."""
    parser.add_argument("--data-dir", type=lambda text: Path(text).resolve(),
                        default=data.DATA_DIR,
                        help="folder of the <name>.xz data files (default: "
                             "$LIBSMO_DATA_DIR, else ../shared/data)")
