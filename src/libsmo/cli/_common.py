"""What libsmo's commands share: LIBSVM's conventions for usage, errors, warnings and
output, and the guarantees a script needs from them.

- Usage text goes to stdout and the status is 1 (LIBSVM's exit_with_help); the reason,
  when there is one, goes to stderr first.
- An error is one line on stderr and status 1, never a traceback: LIBSVM's words first,
  libsmo's detail after them on the same line.
- Warnings are LIBSVM's "WARNING: ..." lines on stderr (its words where LIBSVM has the
  warning), not Python's UserWarning lines with a source path.
- Output that cannot be written (stdout closed, a full device) ends the command with one
  line and status 1, not a "Logging error" or a traceback at exit.
- Memory that the data asks for and the machine does not give ends it with one line
  ("out of memory, no file written") and status 1.
- Ctrl-C ends it with one line and the shell's status for SIGINT (130); SIGTERM and
  SIGHUP end it as Ctrl-C does (the file being written removed, one line), then by the
  signal itself, as they would have without libsmo's handler (`Interrupted`).

This module imports no numpy: `libsmo-train -h` and usage errors start in milliseconds.
"""
import functools
import logging
import os
import signal
import sys
import threading
import warnings


class UsageError(Exception):
    """A bad command line: the message (if any) on stderr, then the usage text on
    stdout, status 1."""


class CommandError(Exception):
    """A failure reported in one line on stderr, status 1."""


class OutputError(Exception):
    """Standard output cannot be written (closed, full device, broken pipe)."""


class Interrupted(BaseException):
    """Ctrl-C, SIGTERM or SIGHUP ended the command.

    The handler `command` installs for SIGTERM and SIGHUP raises it, so that what was
    being written is removed as after Ctrl-C (`io.atomic` removes its temporary file
    on any exception). A tool whose output was written as it went raises it again with
    `written` saying so (libsmo-grid's finished cells).

    Parameters
    ----------
    signum : int
        The signal.
    written : str
        What the command leaves, for its last line.
    """

    def __init__(self, signum, written="no file written"):
        super().__init__(signum, written)
        self.signum = signum
        self.written = written


# signals that end a command through `Interrupted` (Ctrl-C comes as KeyboardInterrupt)
TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _raise_interrupted(signum, frame):
    raise Interrupted(signum)


def _install_terminating_handlers():
    """`_raise_interrupted` for the signals still at their default action (one ignored,
    as under nohup, or handled by the caller stays so); returns the handlers to put
    back."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    replaced = {}
    for signum in TERMINATING_SIGNALS:
        if signal.getsignal(signum) == signal.SIG_DFL:
            replaced[signum] = signal.signal(signum, _raise_interrupted)
    return replaced


def _end_by_signal(signum):
    """Die by `signum` with its default action, as the process would have without
    libsmo's handler (the parent sees the signal, not an exit status)."""
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


# `scan_options`'s value of an option that ends the command line without one
MISSING = object()


def scan_options(argv, flags=("-q",)):
    """LIBSVM's and LIBLINEAR's scan of a command line: the options before the first
    file, in order, and the files.

    Returns
    -------
    pairs : list of (str, str or None)
        Each option with its value (None for one of `flags`, which take none); an
        option that ends the command line without its value comes last, with value
        `MISSING`, and no file is returned then (the tool's usage error, after the
        options before it were read in order).
    files : list of str
        The arguments after the options.
    """
    pairs, i = [], 0
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] in flags:
            pairs.append((argv[i], None))
            i += 1
        elif i + 1 >= len(argv):
            return pairs + [(argv[i], MISSING)], []
        else:
            pairs.append((argv[i], argv[i + 1]))
            i += 2
    return pairs, argv[i:]


def option_value(text, option, kind):
    """An option's value converted by `kind` (int, float, ...); UsageError naming the
    option where it does not convert."""
    try:
        return kind(text)
    except ValueError:
        raise UsageError(f"Wrong value for {option}: {text!r}") from None


def training_files(files):
    """svm-train's and liblinear-train's files: (input, model), the model file named
    after the input's last path component + ".model" when not given; UsageError for
    none or more than two."""
    if not files or len(files) > 2:
        raise UsageError("")
    return files[0], (files[1] if len(files) == 2
                      else os.path.basename(files[0]) + ".model")


def error_line(text):
    """One line on stderr (stderr itself may be closed: then nothing)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(text.rstrip("\n") + "\n")
        stream.flush()
    except (OSError, ValueError):
        pass


def write_stdout(text):
    """Write and flush to stdout; OutputError if it cannot be written."""
    stream = sys.stdout
    if stream is None:
        raise OutputError("standard output is closed")
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError) as exc:
        raise OutputError(getattr(exc, "strerror", None) or str(exc)) from None


def usage(text, reason=""):
    """LIBSVM's exit_with_help: the reason on stderr, the usage on stdout; status 1."""
    if reason:
        error_line(reason)
    try:
        write_stdout(text)
    except OutputError:
        pass
    return 1


class StdoutLines(logging.Handler):
    """LIBSVM's info() lines, from the `libsmo` logger, on stdout (libsmo's progress
    records on stderr): each line written and flushed as it comes, as svm-train prints
    them. A line that cannot be written raises
    OutputError, which stops the command: its output is what it was asked for."""

    def emit(self, record):
        if getattr(record, "libsmo_progress", False):
            # libsmo's own progress (`pair_results.PairProgress`): not among LIBSVM's
            # lines, which scripts read from stdout
            error_line(record.getMessage())
            return
        write_stdout(record.getMessage() + "\n")


def lines_to_stdout(quiet):
    """Route the `libsmo` logger's lines to stdout (none with quiet). Returns whether
    there is output (the training's verbose flag)."""
    logger = logging.getLogger("libsmo")
    for handler in list(logger.handlers):
        if isinstance(handler, StdoutLines):
            logger.removeHandler(handler)
    if quiet:
        return False
    if sys.stdout is None:
        raise OutputError("standard output is closed (use -q for no output)")
    logger.addHandler(StdoutLines())
    logger.setLevel(logging.INFO)
    logger.propagate = False
    return True


# Python warnings of libsmo's that LIBSVM prints in its own words (message start ->
# LIBSVM's line, or None for one LIBSVM does not print)
LIBSVM_WARNINGS = {
    "n_folds (": "WARNING: # folds > # data. Will use # folds = # data instead (i.e., "
                 "leave-one-out cross validation)",
    # LIBSVM's line starts with a newline (it ends the progress dots in a terminal)
    "libsmo: training stopped before the optimum": "\nWARNING: reaching max number of "
                                                   "iterations",
    "class_weight has no effect on nu_svc": None,
}


def libsvm_warning_line(message):
    """The line LIBSVM prints for a libsmo warning: its own words where it has the
    warning, else "WARNING: " and libsmo's message; None where LIBSVM is silent."""
    text = str(message)
    for start, line in LIBSVM_WARNINGS.items():
        if text.startswith(start):
            return line
    if text.startswith("class label ") and "specified in class_weight" in text:
        label = text[len("class label "):].split(" ", 1)[0]
        return f"WARNING: class label {label} specified in weight is not found"
    return "WARNING: " + text


def _show_warning(message, category, filename, lineno, file=None, line=None):
    text = libsvm_warning_line(message)
    if text is not None:
        error_line(text)


def command(name):
    """Run a tool function (argv -> status) as a command: LIBSVM's warnings, one-line
    errors, output failures and Ctrl-C as described above; returns the status."""
    def wrap(tool):
        @functools.wraps(tool)
        def run(argv=None):
            argv = sys.argv[1:] if argv is None else list(argv)
            replaced = _install_terminating_handlers()
            try:
                with warnings.catch_warnings():
                    # libsmo's own warnings (UserWarning and its subclasses) as LIBSVM's
                    # lines; numpy's arithmetic and deprecation warnings are not the
                    # command's output
                    warnings.simplefilter("ignore")
                    warnings.simplefilter("always", UserWarning)
                    warnings.showwarning = _show_warning
                    status = tool(argv)
                if sys.stdout is not None:
                    write_stdout("")   # what is still buffered, so that a failure shows
                return status
            except KeyboardInterrupt:
                error_line(f"{name}: interrupted, no file written")
                return 130
            except Interrupted as exc:
                if exc.signum == signal.SIGINT:
                    error_line(f"{name}: interrupted, {exc.written}")
                    return 130
                error_line(f"{name}: {signal.Signals(exc.signum).name}, {exc.written}")
                _end_by_signal(exc.signum)
                return 128 + exc.signum   # (not reached: the signal ends the process)
            except CommandError as exc:
                error_line(str(exc))
                return 1
            except MemoryError:
                # what the data asks for is more than the machine gives (a feature
                # index of 2^31 - 1 asks for 16 GiB of weights): one line, as for the
                # other errors, and no file (every write is whole or not at all)
                error_line(f"{name}: out of memory, no file written")
                return 1
            except OutputError as exc:
                error_line(f"{name}: can't write to standard output: {exc}")
                _silence_stdout()
                return 1
            finally:
                for signum, handler in replaced.items():
                    signal.signal(signum, handler)
        return run
    return wrap


def _silence_stdout():
    """Point stdout's descriptor at /dev/null, so that Python's own flush at exit does
    not fail again with a traceback."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.close(null)
    except OSError:
        pass
