"""Whole files or nothing: bytes written to a path go to a temporary file in the same
folder first, then replace the target (os.replace), so that a failure leaves any
previous file as it was. The data files, the model files, the range files and
libsmo-predict's output are all written this way.

Atomic replacement is for regular files. A symbolic link is followed, so that its
target is replaced and the link stays; a device, a FIFO or a socket (/dev/null,
/dev/stdout, a named pipe) is opened and written in place, as svm-train and svm-predict
write them: replacing it would put a regular file where the device node was.
"""
import bz2
import errno
import gzip
import io
import lzma
import os
import signal
import stat
import tempfile
import threading

__all__ = ["write_atomically"]


def _umask():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomically(f, data, compress=False):
    r"""Write bytes to a file whole or not at all.

    A binary file object is written to directly. A path is written through a
    temporary file in the same folder, renamed into place, so that a failure leaves
    any previous file intact; with ``compress=True`` a path ending in .gz, .bz2 or
    .xz is compressed accordingly. Every file libsmo writes goes through here.

    Parameters
    ----------
    f : str, bytes, path-like or binary file object
        A file object is written to directly and not closed. A path keeps the mode of
        the file it replaces (a new file: 0o666 less the umask); a symbolic link's
        target is replaced (the link stays); a device, FIFO or socket is written in
        place.
    data : bytes
        What to write.
    compress : bool, default=False
        Compress `data` by the path's suffix (.gz, .bz2, .xz) before writing.

    Raises
    ------
    TypeError
        `f` is neither a path nor a binary file object.
    OSError
        The path is a symbolic link in a loop (ELOOP; the links are left as they are),
        or the temporary file cannot be written or renamed; it is removed, and any
        previous file at the path is left as it was. (A device written in place, such
        as /dev/full, raises what its write raises.)

    See Also
    --------
    os.replace : The rename that puts the file in place.

    Examples
    --------
    >>> import gzip
    >>> import os
    >>> import tempfile
    >>> from libsmo.io import write_atomically
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "data.txt")
    ...     write_atomically(path, b"first\n")
    ...     write_atomically(path, b"second\n")
    ...     with open(path, "rb") as f:
    ...         print(f.read(), os.listdir(folder))
    ...     zipped = os.path.join(folder, "data.txt.gz")
    ...     write_atomically(zipped, b"third\n", compress=True)
    ...     with gzip.open(zipped) as f:
    ...         print(f.read())
    b'second\n' ['data.txt']
    b'third\n'
    """
    if not isinstance(f, (str, bytes, os.PathLike)):
        if not hasattr(f, "write"):
            raise TypeError("expected a path or a binary file object, got "
                            f"{type(f).__name__}")
        if isinstance(f, io.TextIOBase):
            raise TypeError("file objects must be opened in binary mode")
        f.write(data)
        return
    path = os.fsdecode(os.fspath(f))
    if compress:
        if path.endswith(".gz"):
            data = gzip.compress(data, mtime=0)
        elif path.endswith(".bz2"):
            data = bz2.compress(data)
        elif path.endswith(".xz"):
            data = lzma.compress(data)
    try:
        mode = os.stat(path).st_mode     # through the links
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            # links in a loop name no file: refused, as fopen refuses it, instead of
            # replacing the link with a regular file
            raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), os.fsdecode(
                os.fspath(f))) from None
        mode = None
    if mode is not None and not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        # by the name given: /dev/stdout on a pipe resolves to /proc/self/fd/1 and on
        # to "pipe:[...]", which names no file
        _write_in_place(path, data)
        return
    # the file a link names (through every link in the chain, even a dangling one)
    path = os.path.realpath(path)
    _replace_atomically(path, data, None if mode is None else stat.S_IMODE(mode))


def _write_in_place(path, data):
    """Write to a device, FIFO or socket as it is (no temporary file, no fsync: a
    character device such as /dev/null cannot sync)."""
    with open(path, "wb") as out:
        out.write(data)
        out.flush()


def _replace_atomically(path, data, mode):
    """A temporary file in path's folder, synced, then renamed over path; mode None for
    a new file (0o666 less the umask)."""
    folder = os.path.dirname(path)
    if mode is None:
        mode = 0o666 & ~_umask()
    tmp = None
    try:
        with _SignalsDeferred() as deferred:
            fd, tmp = tempfile.mkstemp(dir=folder,
                                       prefix="." + os.path.basename(path) + ".",
                                       suffix=".tmp")
        # a signal that came while the file was made is handled now, where the file is
        # known and removed below
        deferred.deliver()
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise


class _SignalsDeferred:
    """In the main thread, the Python handlers of SIGINT, SIGTERM and SIGHUP held back
    for the time the temporary file is made: a handler that raises (the commands' "no
    file written", Ctrl-C's KeyboardInterrupt) between the file's creation and the
    moment its name is known would leave it behind. `deliver` raises the held signals
    again once their handlers are back. Elsewhere (another thread, where no Python
    handler runs, or signals without Python handlers) nothing is held."""

    SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP")
                    if hasattr(signal, name))

    def __init__(self):
        self.held, self.previous = [], {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                handler = signal.getsignal(signum)
                if callable(handler):
                    self.previous[signum] = handler
                    signal.signal(signum, self._hold)
        return self

    def _hold(self, signum, frame):
        self.held.append(signum)

    def __exit__(self, *exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
        return False

    def deliver(self):
        for signum in dict.fromkeys(self.held):
            signal.raise_signal(signum)
