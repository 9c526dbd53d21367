"""libsmo-grid: svm-grid's (LIBSVM's grid.py's) command line, lines and files, with the
whole grid cross-validated in one process (`libsmo.training._grid`).

Its lines are grid.py's: "[local] log2c log2g rate (best c=..., g=..., rate=...)" for
each cell in grid.py's job order, then "best_c best_g best_rate"; the result file
(dataset.out, "log2c=... log2g=... rate=..." lines), -resume and the gnuplot contour
(dataset.png) are grid.py's too. -svmtrain is accepted and ignored: there is no
svm-train to run.
"""
import os
import re
import signal
import subprocess
import sys

from libsmo.cli._common import (
    CommandError,
    Interrupted,
    command,
    error_line,
    usage,
    write_stdout,
)

GRID_USAGE = """\
Usage: libsmo-grid [grid_options] [svm_options] dataset

grid_options :
-log2c {begin,end,step | "null"} : set the range of c (default -5,15,2)
    begin,end,step -- c_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with c
-log2g {begin,end,step | "null"} : set the range of g (default 3,-15,-2)
    begin,end,step -- g_range = 2^{begin,...,begin+k*step,...,end}
    "null"         -- do not grid with g
-v n : n-fold cross validation (default 5)
-svmtrain pathname : accepted for svm-grid's scripts, not used (libsmo trains in-process)
-gnuplot {pathname | "null"} :
    pathname -- set gnuplot executable path and name
    "null"   -- do not plot
-out {pathname | "null"} : (default dataset.out)
    pathname -- set output file path and name
    "null"   -- do not output file
-png pathname : set graphic output file path and name (default dataset.png)
-resume [pathname] : resume the grid task using an existing output file (default pathname is dataset.out)
    This is experimental. Try this option only if some parameters have been checked for the SAME data.

svm_options : additional options for libsmo-train (as for svm-train)
libsmo only:
--seed n : srand() seed of the folds (default 1: svm-train's folds)
--jobs n : gammas cross-validated at once, each on one thread (default 1; -1: every
    core); the same rates and best cell for every n
--warm-start : each C starts from the previous C's solutions (C-SVC, epsilon-SVR):
    fewer steps; a rate may differ from svm-train's where a prediction sits on the
    margin
"""


class GridOptions:
    """grid.py's GridOption: ranges, folds, files, and the svm-train options passed
    through."""

    def __init__(self, dataset, options):
        from libsmo.training._grid import DEFAULT_LOG2C, DEFAULT_LOG2G
        self.dataset = dataset
        self.title = os.path.split(dataset)[1]
        self.fold = 5
        self.c_range, self.g_range = DEFAULT_LOG2C, DEFAULT_LOG2G
        self.gnuplot = "/usr/bin/gnuplot"
        self.out = f"{self.title}.out"
        self.png = f"{self.title}.png"
        self.resume = None
        self.jobs = 1
        self.warm_start = False
        self.pass_through = []
        self._parse(options)

    def _parse(self, options):
        i = 0
        while i < len(options):
            option = options[i]
            if option in ("-log2c", "-log2g", "-v", "-svmtrain", "-gnuplot", "-out", "-png"):
                if i + 1 >= len(options):
                    raise ValueError(f"{option} needs a value")
                i += 1
                value = options[i]
                if option in ("-log2c", "-log2g"):
                    grid_range = None if value == "null" else _range(value, option)
                    setattr(self, "c_range" if option == "-log2c" else "g_range", grid_range)
                elif option == "-v":
                    self.fold = value
                elif option == "-gnuplot":
                    self.gnuplot = None if value == "null" else value
                elif option == "-out":
                    self.out = None if value == "null" else value
                elif option == "-png":
                    self.png = value
            elif option == "--warm-start":
                self.warm_start = True
            elif option == "--jobs":
                if i + 1 >= len(options):
                    raise ValueError(f"{option} needs a value")
                i += 1
                try:
                    self.jobs = int(options[i])
                except ValueError:
                    raise ValueError(f"--jobs needs an integer, got {options[i]!r}") from None
            elif option in ("-c", "-g"):
                raise ValueError("Use -log2c and -log2g.")
            elif option == "-resume":
                if i == len(options) - 1 or options[i + 1].startswith("-"):
                    self.resume = self.title + ".out"
                else:
                    i += 1
                    self.resume = options[i]
            else:
                self.pass_through.append(option)
            i += 1
        if not os.path.exists(self.dataset):
            raise OSError("dataset not found")
        if self.resume and not os.path.exists(self.resume):
            raise OSError("file for resumption not found")
        if self.c_range is None and self.g_range is None:
            raise ValueError("-log2c and -log2g should not be null simultaneously")
        if self.gnuplot and not os.path.exists(self.gnuplot):
            error_line("gnuplot executable not found")
            self.gnuplot = None


def _range(text, option):
    try:
        begin, end, step = map(float, text.split(","))
    except ValueError:
        raise ValueError(f"{option} takes begin,end,step or null; got {text!r}") from None
    return begin, end, step


def resumed_cells(path):
    """grid.py's reading of a result file: {(log2c, log2g): rate}.

    Raises
    ------
    OSError
        The file cannot be read (a directory, no permission).
    ValueError
        A line that is not UTF-8 text, or whose log2c, log2g or rate is not a number
        (grid.py's patterns take "--" or "5.." too): the message names the file and
        the line.
    """
    cells = {}
    with open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw.decode()
            except UnicodeDecodeError:
                raise ValueError(f"{path} line {number}: not UTF-8 text") from None
            rate = re.findall(r"rate=([0-9.]+)", line.strip())
            if not rate:
                continue
            c = re.findall(r"log2c=([0-9.-]+)", line)
            g = re.findall(r"log2g=([0-9.-]+)", line)
            try:
                cell = (float(c[0]) if c else None, float(g[0]) if g else None)
                cells[cell] = float(rate[0])
            except ValueError:
                raise ValueError(f"{path} line {number}: a malformed number in "
                                 f"{line.strip()!r}") from None
    return cells


def _training_keywords(options):
    """libsmo.train's keywords for the svm-train options passed through (checked as
    svm-train checks them against the data), without what the grid varies."""
    from libsmo.cli._common import UsageError
    from libsmo.cli._data import read_problem
    from libsmo.cli._train import libsvm_check_parameter, parse_train_args, train_keywords
    try:
        train_options, _ = parse_train_args(list(options.pass_through) + [options.dataset])
    except UsageError as exc:
        raise CommandError(f"svm_options: {exc or 'incomplete options'}") from None
    from libsmo._utils.row_layout import dense_copy_budget
    problem = read_problem(options.dataset, "rbf",
                           dense_copy_bytes=dense_copy_budget(train_options["cache_size"]))
    refusal = libsvm_check_parameter(train_options, problem.y)
    if refusal is not None:
        raise CommandError(f"ERROR: {refusal}")
    keywords = train_keywords(train_options)
    if options.c_range is not None:
        del keywords["C"]
    if options.g_range is not None:
        keywords.pop("gamma", None)
    return problem, keywords, train_options["seed"]


class _Report:
    """grid.py's update_param: the best cell so far and its stdout line (in the job
    order), and the result file, where each cell is written as soon as it finishes
    (`record`), so that an interrupted grid leaves every finished cell to -resume."""

    def __init__(self, out_path, append, minimize):
        import threading

        from libsmo.training._grid import is_better
        self.is_better = is_better
        self.best = None
        self.minimize = minimize
        self.out_path = out_path
        self.written = 0
        self.lock = threading.Lock()   # cells finish on the tasks' threads
        try:
            self.file = open(out_path, "a" if append else "w") if out_path else None
        except OSError as exc:
            raise CommandError(f"can't open output file {out_path}: "
                               f"{exc.strerror or exc}") from None

    def record(self, cell):
        """Write a finished cell's line to the result file (grid.py's line)."""
        if self.file is None:
            return
        line = "".join(f"{name}={value} " for name, value in
                       (("log2c", cell.log2c), ("log2g", cell.log2g)) if value is not None)
        with self.lock:
            try:
                self.file.write(line + f"rate={cell.rate}\n")
                self.file.flush()
            except OSError as exc:
                raise CommandError(f"can't write to output file {self.out_path}: "
                                   f"{exc.strerror or exc}") from None
            self.written += 1

    def interrupted_note(self):
        """What an interrupted grid leaves, for the command's last line."""
        if self.file is None:
            return "no file written"
        return (f"{self.out_path} holds the cells finished so far ({self.written} in "
                f"this run): -resume {self.out_path} goes on from them")

    def add(self, cell, worker):
        if self.is_better(cell, self.best, self.minimize):
            self.best = cell
        c, g, best = cell.log2c, cell.log2g, self.best
        line = "[{0}] {1} {2} (best ".format(
            worker, " ".join(str(x) for x in (c, g) if x is not None), cell.rate)
        if c is not None:
            line += f"c={2.0 ** best.log2c}, "
        if g is not None:
            line += f"g={2.0 ** best.log2g}, "
        line += f"rate={best.rate})"
        write_stdout(line + "\n")

    def close(self):
        if self.file is not None:
            try:
                self.file.close()
            except OSError:
                pass   # a line that could not be written was reported by `add`


def _gnuplot_commands(db, best, options):
    """grid.py's redraw of the contour to the png file, or None when it draws
    nothing (one value of c, g or the rate)."""
    if not db or any(len({cell[k] for cell in db}) == 1 for k in range(3)):
        return None
    begin_level = round(max(cell[2] for cell in db)) - 3
    text = ["set term png transparent small linewidth 2 medium enhanced",
            'set output "{0}"'.format(options.png.replace("\\", "\\\\")),
            'set xlabel "log2(C)"', 'set ylabel "log2(gamma)"',
            f"set xrange [{options.c_range[0]}:{options.c_range[1]}]",
            f"set yrange [{options.g_range[0]}:{options.g_range[1]}]",
            "set contour", f"set cntrparam levels incremental {begin_level},0.5,100",
            "unset surface", "unset ztics", "set view 0,0",
            f'set title "{options.title}"', "unset label",
            f'set label "Best log2(C) = {best.log2c}  log2(gamma) = {best.log2g}  '
            f'accuracy = {best.rate}%" at screen 0.5,0.85 center',
            f'set label "C = {2 ** best.log2c}  gamma = {2 ** best.log2g}" '
            "at screen 0.5,0.8 center",
            "set key at screen 0.9,0.9", 'splot "-" with lines']
    previous = None
    for cell in sorted(db, key=lambda x: (x[0], -x[1])):
        if previous is not None and cell[0] != previous:
            text.append("")
        previous = cell[0]
        text.append(f"{cell[0]} {cell[1]} {cell[2]}")
    text += ["e", ""]
    return "\n".join(text) + "\n"


# what the BLAS libraries numpy may load read, once, for their thread count
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def hold_blas_to_one_thread():
    """Give BLAS one thread for the rest of the command, unless numpy has loaded it
    already (a caller's own process) or the environment sets a count.

    Every task of the grid trains and predicts on one thread (--jobs). The folds'
    predictions are matrix products big enough for OpenBLAS to wake its threads, which
    then spin on the other cores and slow the grid's own thread too: on two cores,
    heart_scale's grid with --warm-start took 0.52 s of CPU for 0.42-0.44 s, and
    0.38-0.40 s for 0.39-0.40 s with one BLAS thread; a1a's 4.67 s of CPU for 4.59 s,
    against 4.23 s for 4.23 s.
    """
    if "numpy" in sys.modules:
        return
    for name in BLAS_THREAD_VARIABLES:
        os.environ.setdefault(name, "1")


@command("libsmo-grid")
def grid_main(argv):
    """libsmo-grid: svm-grid's options; the whole grid in one process. Returns the
    exit status."""
    if len(argv) < 1:
        return usage(GRID_USAGE)
    hold_blas_to_one_thread()
    try:
        options = GridOptions(argv[-1], argv[:-1])
    except (OSError, ValueError) as exc:
        raise CommandError(f'{exc}\nTry "libsmo-grid" for more information.') from None
    from libsmo.training import _grid as grid
    try:
        # before the data is read: a bad range is refused at once
        c_values = (None if options.c_range is None
                    else grid.log2_range(*options.c_range, name="-log2c"))
        g_values = (None if options.g_range is None
                    else grid.log2_range(*options.g_range, name="-log2g"))
        grid.job_order(c_values, g_values)
    except ValueError as exc:
        raise CommandError(f"ERROR: {exc}") from None
    problem, keywords, seed = _training_keywords(options)
    plotter = (_Plotter.start(options.gnuplot)
               if options.gnuplot and c_values and g_values else None)
    try:
        best, db = _run_grid(grid, options, problem, keywords, seed, c_values, g_values)
    except BaseException:
        if plotter is not None:
            plotter.stop()
        raise
    if plotter is not None:
        plotter.draw(_gnuplot_commands(db, best, options))
    values = [2.0 ** v for v in (best.log2c, best.log2g) if v is not None]
    write_stdout("{0} {1}\n".format(" ".join(map(str, values)), best.rate))
    return 0


def _run_grid(grid, options, problem, keywords, seed, c_values, g_values):
    """The cells of the grid, reported as they come (stdout and the -out file).

    Returns
    -------
    (best, db)
        The cell with the best rate (`grid.Cell`) and (log2c, log2g, rate) of every
        cell, resumed ones included.
    """
    try:
        validator = grid.CrossValidator(problem.X, problem.y, int(options.fold), keywords,
                                        seed=seed, n_jobs=options.jobs,
                                        warm_start=options.warm_start)
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    try:
        done = resumed_cells(options.resume) if options.resume else {}
    except OSError as exc:
        raise CommandError(f"can't read the -resume file {options.resume}: "
                           f"{exc.strerror or exc}") from None
    except ValueError as exc:
        raise CommandError(f"ERROR: -resume {exc}") from None
    cells = [cell for cell in grid.job_order(c_values, g_values) if cell not in done]
    report = _Report(options.out, bool(options.resume), validator.minimize)
    db = []
    try:
        for (c, g), rate in done.items():
            report.add(grid.Cell(c, g, rate), "resumed")
            db.append((c, g, rate))
        for cell in grid.iter_grid(validator, cells, on_cell=report.record):
            report.add(cell, "local")
            db.append((cell.log2c, cell.log2g, cell.rate))
    except KeyboardInterrupt:
        raise Interrupted(signal.SIGINT, report.interrupted_note()) from None
    except Interrupted as exc:
        raise Interrupted(exc.signum, report.interrupted_note()) from None
    except (TypeError, ValueError) as exc:
        raise CommandError(f"ERROR: {exc}") from None
    except ArithmeticError as exc:
        from libsmo.cli._train import training_failed
        raise CommandError(training_failed(exc)) from None
    finally:
        report.close()
    return report.best, db


class _Plotter:
    """gnuplot drawing the contour of the whole grid into the png file.

    Started before the grid, as grid.py starts its gnuplot, so that gnuplot's start-up
    (about 25 ms here) runs beside the grid on another core; it draws once the grid is
    done (grid.py redraws after each line of jobs; the file ends the same), and the
    command waits for the png (grid.py does not). gnuplot's own messages are ignored, as
    grid.py ignores them.
    """

    def __init__(self, process):
        self.process = process

    @classmethod
    def start(cls, program):
        """A running gnuplot waiting for its commands, or None (after the message)
        when it cannot be started."""
        try:
            return cls(subprocess.Popen([program], stdin=subprocess.PIPE,
                                        stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))
        except OSError as exc:
            error_line(f"gnuplot failed: {exc}")
            return None

    def draw(self, commands):
        """Send the commands (None: nothing to draw) and wait for gnuplot to end."""
        try:
            self.process.communicate((commands or "").encode(), timeout=120)
        except (OSError, subprocess.TimeoutExpired) as exc:
            self.stop()
            error_line(f"gnuplot failed: {exc}")

    def stop(self):
        """End gnuplot without a picture (the grid failed or was interrupted)."""
        self.process.kill()
        self.process.wait()


__all__ = ["GRID_USAGE", "GridOptions", "grid_main", "resumed_cells"]
