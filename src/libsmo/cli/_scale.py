"""libsmo-scale: svm-scale's command line, messages, range files and output bytes."""
import sys

from libsmo.cli._common import (
    CommandError,
    OutputError,
    UsageError,
    command,
    error_line,
    usage,
)

SCALE_USAGE = """\
Usage: libsmo-scale [options] data_filename
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename
"""


def _number(text, option):
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"Wrong value for {option}: {text!r}") from None


def parse_scale_args(argv):
    """svm-scale's command line: (lower, upper, y_range, save, restore, data_file)."""
    lower, upper, y_range, save, restore = -1.0, 1.0, None, None, None
    i = 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        arg = argv[i]
        if arg == "-y" and i + 2 < len(argv):
            y_range = (_number(argv[i + 1], arg), _number(argv[i + 2], arg))
            i += 3
            continue
        if arg not in ("-l", "-u", "-s", "-r"):
            raise UsageError("unknown option")
        if i + 1 >= len(argv):
            raise UsageError("")
        value = argv[i + 1]
        if arg == "-l":
            lower = _number(value, arg)
        elif arg == "-u":
            upper = _number(value, arg)
        elif arg == "-s":
            save = value
        else:
            restore = value
        i += 2
    # svm-scale's checks, in its order: these two end without the usage text
    if not upper > lower or (y_range is not None and not y_range[1] > y_range[0]):
        raise CommandError("inconsistent lower/upper specification")
    if save and restore:
        raise CommandError("cannot use -r and -s simultaneously")
    if len(argv) - i != 1:
        raise UsageError("")
    return lower, upper, y_range, save, restore, argv[i]


@command("libsmo-scale")
def scale_main(argv):
    """libsmo-scale: svm-scale's options; writes the scaled data to stdout."""
    import warnings
    try:
        lower, upper, y_range, save, restore, data_file = parse_scale_args(argv)
    except UsageError as exc:
        return usage(SCALE_USAGE, str(exc))
    from libsmo.io import dump_svmlight_file
    from libsmo.io.svmlight import read_svmlight_rows
    from libsmo.scaling import Scaler, UnscaledFeaturesWarning
    try:
        with open(data_file, "rb"):
            pass
        # one-based, as the other commands read it (`_cli_data`): index 0 is refused
        [rows] = read_svmlight_rows(data_file, zero_based=False)
    except OSError:
        raise CommandError(f"can't open file {data_file}") from None
    except ValueError as exc:
        raise CommandError(f"ERROR: failed to read {data_file} ({exc})") from None
    y = rows.y
    try:
        scaler = Scaler.load_range(restore) if restore else None
    except OSError:
        raise CommandError(f"can't open file {restore}") from None
    except ValueError as exc:
        raise CommandError(f"ERROR: failed to read scaling parameters ({exc})") from None
    # dense rows (no scipy to import) where they are dense enough over the columns the
    # ranges reach; a stored zero counts among svm-scale's "original #nonzeros", so a
    # file with one stays CSR
    width = rows.shape[1] if scaler is None else scaler.output_width(rows.shape[1])
    X = rows.dense_or_csr(width=width, keeps_stored_zeros=True)
    try:
        if scaler is None:
            scaler = Scaler(lower=lower, upper=upper, y_range=y_range).fit(X, y)
    except ValueError as exc:
        raise CommandError(f"ERROR: failed to read scaling parameters ({exc})") from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            Xs, ys = scaler.transform(X, y)
        except ValueError as exc:
            raise CommandError(f"ERROR: {exc}") from None
    for w in caught:  # as svm-scale prints them
        if isinstance(w.message, UnscaledFeaturesWarning):
            for index in w.message.features:
                error_line(f"WARNING: feature index {index} appeared in file {data_file} "
                           f"was not seen in the scaling factor file {restore}. The "
                           "feature is scaled to 0.")
        else:
            error_line(f"WARNING: {w.message}")
    if save:
        try:
            scaler.save_range(save)
        except OSError:
            raise CommandError(f"can't open file {save}") from None
    if sys.stdout is None:
        raise OutputError("standard output is closed")
    try:
        sys.stdout.flush()
        dump_svmlight_file(Xs, ys, sys.stdout.buffer, libsvm_precision=True)
        sys.stdout.buffer.flush()
    except (OSError, ValueError) as exc:
        raise OutputError(getattr(exc, "strerror", None) or str(exc)) from None
    return 0
