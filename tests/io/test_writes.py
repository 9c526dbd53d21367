"""Writes as users expect them: regular files are replaced whole or not at all; a
symbolic link's target is written and the link stays; devices and FIFOs are written in
place, never replaced by a regular file."""
import os
import stat
import threading

import numpy as np
import pytest

import libsmo
from libsmo.io import write_atomically

WRITERS = {
    "save_model": lambda model, X, y, path: libsmo.save_model(model, path),
    "dump_svmlight_file": lambda model, X, y, path: libsmo.dump_svmlight_file(X, y, path),
    "Scaler.save_range": lambda model, X, y, path: libsmo.Scaler().fit(X).save_range(path),
    "write_atomically": lambda model, X, y, path: write_atomically(path, b"bytes\n"),
}


@pytest.fixture(scope="module")
def trained():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    return libsmo.train(X, y), X, y


def expected_bytes(writer, trained, tmp_path):
    reference = tmp_path / "reference"
    WRITERS[writer](*trained, reference)
    data = reference.read_bytes()
    reference.unlink()
    return data


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_symlink_target_is_written_and_the_link_stays(writer, trained, tmp_path):
    expected = expected_bytes(writer, trained, tmp_path)
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "out.txt"
    target.write_bytes(b"old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    WRITERS[writer](*trained, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes() == expected
    # a link to a link, and a dangling link: the final target is created
    chain = tmp_path / "chain.txt"
    chain.symlink_to(link)
    dangling = tmp_path / "dangling.txt"
    dangling.symlink_to(tmp_path / "real" / "new.txt")
    target.write_bytes(b"old\n")
    WRITERS[writer](*trained, chain)
    WRITERS[writer](*trained, dangling)
    assert chain.is_symlink() and target.read_bytes() == expected
    assert dangling.is_symlink() and (tmp_path / "real" / "new.txt").read_bytes() == expected
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["new.txt", "out.txt"]


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_fifo_is_written_in_place(writer, trained, tmp_path):
    expected = expected_bytes(writer, trained, tmp_path)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    WRITERS[writer](*trained, fifo)
    reader.join(timeout=30)
    assert received == [expected]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.skipif(not os.path.isdir("/dev/fd"), reason="no /dev/fd on this system")
@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_a_pipe_named_by_dev_fd_is_written_in_place(writer, trained, tmp_path):
    """/dev/stdout on a pipe (`libsmo-linear-predict t m /dev/stdout | cat`), /dev/fd/N
    and a shell's >(...) name a pipe through links that end in "pipe:[...]", which
    names no file: the write goes to the name given (it once looked for a folder to
    make a temporary file in beside "pipe:[...]" and failed)."""
    expected = expected_bytes(writer, trained, tmp_path)
    assert len(expected) < 4096     # the pipe's buffer holds it: no reader needed
    read_end, write_end = os.pipe()
    try:
        WRITERS[writer](*trained, f"/dev/fd/{write_end}")
        os.close(write_end)
        write_end = None
        received = b""
        while chunk := os.read(read_end, 1 << 16):
            received += chunk
        assert received == expected
    finally:
        os.close(read_end)
        if write_end is not None:
            os.close(write_end)


def character_device(tmp_path, name, major, minor):
    """A node of the given device in tmp_path when this process may make one (root),
    else the system's own (/dev/null, /dev/full), which a process that may not make
    nodes cannot replace either: a regression could never clobber the real one."""
    node = tmp_path / name
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(major, minor))
        return node
    except (PermissionError, OSError):
        if os.geteuid() == 0:
            pytest.skip("cannot make device nodes here")
        return f"/dev/{name}"


@pytest.mark.parametrize("writer", sorted(WRITERS))
def test_dev_null_is_written_not_replaced(writer, trained, tmp_path):
    """Before: as root, saving to /dev/null (or libsmo-predict's output) replaced the
    node with a regular file; as another user it failed (no temporary file in /dev)."""
    null = character_device(tmp_path, "null", 1, 3)
    WRITERS[writer](*trained, null)
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert os.stat(null).st_rdev == os.makedev(1, 3)


def test_a_full_device_raises_and_stays_a_device(trained, tmp_path):
    full = character_device(tmp_path, "full", 1, 7)
    model = trained[0]
    with pytest.raises(OSError) as caught:
        libsmo.save_model(model, full)
    assert caught.value.errno == 28  # ENOSPC
    assert stat.S_ISCHR(os.stat(full).st_mode)


def test_a_regular_file_is_replaced_with_its_mode(trained, tmp_path):
    target = tmp_path / "model.txt"
    target.write_bytes(b"old\n")
    target.chmod(0o640)
    libsmo.save_model(trained[0], target)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert libsmo.load_model(target).n_sv == trained[0].n_sv


@pytest.mark.parametrize("when", ["in_mkstemp", "after_mkstemp"])
def test_a_signal_as_the_temporary_file_is_made_leaves_no_file(tmp_path, monkeypatch,
                                                               when):
    """A signal whose handler raises (the commands' SIGTERM "no file written",
    Ctrl-C) arriving just after the temporary file exists, inside mkstemp or as it
    returns, is handled once the file's name is known: the file is removed, the
    exception is the handler's, and the handler is the caller's again afterwards."""
    import signal
    import tempfile

    from libsmo.io import atomic

    class Stopped(Exception):
        pass

    def stop(signum, frame):
        raise Stopped(signum)

    real_mkstemp = tempfile.mkstemp

    def mkstemp(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        if when == "in_mkstemp":
            signal.raise_signal(signal.SIGTERM)   # the file exists, its name not known
        return made

    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp)
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        if when == "after_mkstemp":
            # the signal comes as mkstemp returns: held, then delivered
            original_exit = atomic._SignalsDeferred.__exit__

            def exit_after_a_signal(self, *exc):
                signal.raise_signal(signal.SIGTERM)
                return original_exit(self, *exc)

            monkeypatch.setattr(atomic._SignalsDeferred, "__exit__", exit_after_a_signal)
        with pytest.raises(Stopped):
            write_atomically(str(tmp_path / "out.model"), b"x" * 1000)
        assert signal.getsignal(signal.SIGTERM) is stop
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert os.listdir(tmp_path) == []
