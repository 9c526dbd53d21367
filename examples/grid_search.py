"""Choosing C and gamma by cross-validation
=========================================

Choose C and gamma of an RBF SVM by cross-validation, as LIBSVM's tools/grid.py does.

For every (log2 C, log2 gamma) on a grid, `libsmo.cross_validation` (5 folds, stratified
as LIBSVM's svm-train -v, a fixed random_state so that every point sees the same folds)
gives the cross-validated accuracy. The grid is grid.py's: log2 C from -5 to 15 step 2,
log2 gamma from 3 to -15 step -2 (110 points), in the same "begin,end,step" notation.
The best point is the highest accuracy; ties go to the smaller C, then the larger
gamma. On heart_scale the accuracy surface is a broad diagonal ridge along which C and
gamma trade off (a smoother kernel needs a larger C), as grid.py's contour plots show:
the default grid finds 84.07% at C = 2^-1, gamma = 2^-3, and the same figure at six
more points along the ridge, up to C = 2^11, gamma = 2^-15 (the whole grid takes a few
seconds).

A range may begin with a minus sign as in grid.py (`--log2c -1,3,2`). It prints the
accuracy table (rows: log2 gamma, columns: log2 C) and the best (C, gamma, accuracy),
and draws a contour plot in <out-dir>/grid_search_<data>.png.

Run::

    python examples/grid_search.py [--data heart_scale | --data PATH]
                                   [--log2c -5,15,2] [--log2g 3,-15,-2] [--folds 5]
                                   [--data-dir ../shared/data] [--out-dir examples/output]
"""
import argparse
import sys
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import libsmo  # noqa: E402
from _common import REPO, decompressed  # noqa: E402

DEFAULT_DATA = REPO.parent / "shared" / "data"
DEFAULT_OUT = REPO / "examples" / "output"
SEED = 0


# %%
# grid.py's ranges
# ----------------
# "begin,end,step" as grid.py writes them, a range that begins with a minus sign
# included.


def grid_range(text):
    """grid.py's "begin,end,step" -> the exponents, end included."""
    try:
        begin, end, step = (float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected begin,end,step, got {text!r}")
    if step == 0 or (end - begin) * step < 0:
        raise argparse.ArgumentTypeError(f"the step of {text!r} never reaches the end")
    count = int(np.floor((end - begin) / step + 1e-9)) + 1
    return begin + step * np.arange(count)


def glue_ranges(argv):
    """["--log2c", "-1,3,2"] -> ["--log2c=-1,3,2"]: argparse would take a range that
    begins with a minus sign for an option."""
    glued = []
    for arg in argv:
        if glued and glued[-1] in ("--log2c", "--log2g"):
            glued[-1] = f"{glued[-1]}={arg}"
        else:
            glued.append(arg)
    return glued


# %%
# The data, the best point and the contour plot
# ---------------------------------------------


def resolve(data, data_dir):
    """A path to a LIBSVM-format file: `data` as a path, else <data_dir>/<data>.xz.
    xz files are decompressed once into a cache folder (never beside the original)."""
    path = Path(data)
    if not path.exists():
        path = Path(data_dir) / f"{data}.xz"
        if not path.exists():
            raise SystemExit(f"data {data!r} is neither a file nor a data set in "
                             f"{data_dir} (see --data-dir)")
    if path.suffix != ".xz":
        return path
    return decompressed(path)


def load(path):
    if hasattr(libsmo, "load_svmlight_file"):
        X, y = libsmo.load_svmlight_file(str(path))
    else:
        from sklearn.datasets import load_svmlight_file
        X, y = load_svmlight_file(str(path))
    return X.tocsr(), np.asarray(y)


def best_point(log2c, log2g, accuracy):
    """(i_gamma, i_C) of the highest accuracy; ties: smaller C, then larger gamma."""
    best = None
    for i, g in enumerate(log2g):
        for j, c in enumerate(log2c):
            key = (accuracy[i, j], -c, g)
            if best is None or key > best[0]:
                best = (key, i, j)
    return best[1], best[2]


def plot(log2c, log2g, accuracy, best, title, path):
    fig, ax = plt.subplots(figsize=(7.5, 6))
    order_c, order_g = np.argsort(log2c), np.argsort(log2g)
    C, G = np.meshgrid(log2c[order_c], log2g[order_g])
    Z = accuracy[np.ix_(order_g, order_c)]
    if len(log2c) > 1 and len(log2g) > 1:
        # colours over the top 20 points (lower ones share the darkest colour), white
        # lines 1, 2 and 4 points below the best
        top = Z.max()
        bottom = max(np.floor(Z.min()), np.floor(top) - 20)
        levels = np.append(np.arange(bottom, top, 1.0), top + 1e-9)
        if len(levels) < 2:
            levels = np.array([top - 0.5, top + 0.5])
        filled = ax.contourf(C, G, Z, levels=levels, cmap="viridis", extend="min")
        fig.colorbar(filled, ax=ax, label="cross-validation accuracy (%)")
        ax.contour(C, G, Z, levels=[lv for lv in (top - 4, top - 2, top - 1)
                                    if lv > Z.min()],
                   colors="w", linewidths=[0.6, 0.9, 1.2])
        ax.plot([], [], "w-", label="1, 2 and 4 points below the best")
    else:
        points = ax.scatter(C.ravel(), G.ravel(), c=Z.ravel(), cmap="viridis", s=80)
        fig.colorbar(points, ax=ax, label="cross-validation accuracy (%)")
    ax.plot(C, G, "k.", markersize=2)
    i, j = best
    ax.plot(log2c[j], log2g[i], "r*", markersize=15,
            label=f"best: C=2^{log2c[j]:g}, gamma=2^{log2g[i]:g}, "
                  f"{accuracy[i, j]:.2f}%")
    ax.set_xlabel("log2(C)")
    ax.set_ylabel("log2(gamma)")
    ax.set_title(title)
    legend = ax.legend(loc="lower left", fontsize=9, facecolor="0.6")
    legend.get_frame().set_alpha(0.9)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# %%
# The search
# ----------
# `libsmo.cross_validation` at every point, the same folds everywhere.


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", default="heart_scale",
                        help="a LIBSVM-format file (plain or .xz), or the name of a data "
                             "set in --data-dir")
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--log2c", type=grid_range, default="-5,15,2",
                        help="begin,end,step of log2(C) (grid.py's -log2c)")
    parser.add_argument("--log2g", type=grid_range, default="3,-15,-2",
                        help="begin,end,step of log2(gamma) (grid.py's -log2g)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--out-dir", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(glue_ranges(sys.argv[1:] if argv is None else argv))
    args.out_dir.mkdir(parents=True, exist_ok=True)

    path = resolve(args.data, args.data_dir)
    X, y = load(path)
    name = Path(args.data).name
    for suffix in (".xz",):
        name = name[: -len(suffix)] if name.endswith(suffix) else name
    print(f"{name}: {X.shape[0]} rows, {X.shape[1]} features; {args.folds}-fold "
          f"cross-validation (random_state={SEED}) on {len(args.log2c)} x "
          f"{len(args.log2g)} (C, gamma) points")

    accuracy = np.empty((len(args.log2g), len(args.log2c)))
    start = time.perf_counter()
    for i, g in enumerate(args.log2g):
        for j, c in enumerate(args.log2c):
            result = libsmo.cross_validation(X, y, args.folds, random_state=SEED,
                                             kernel="rbf", C=2.0 ** c, gamma=2.0 ** g,
                                             n_threads=1)
            accuracy[i, j] = result["accuracy"]
    seconds = time.perf_counter() - start

    print("\ncross-validation accuracy (%): rows log2(gamma), columns log2(C)")
    print("g \\ C " + "".join(f"{c:>7g}" for c in args.log2c))
    for i, g in enumerate(args.log2g):
        print(f"{g:>5g} " + "".join(f"{a:7.2f}" for a in accuracy[i]))
    i, j = best_point(args.log2c, args.log2g, accuracy)
    print(f"\nbest: C = 2^{args.log2c[j]:g} = {2.0 ** args.log2c[j]:g}, gamma = "
          f"2^{args.log2g[i]:g} = {2.0 ** args.log2g[i]:g}, cross-validation accuracy "
          f"{accuracy[i, j]:.2f}%")
    print(f"{accuracy.size} points x {args.folds} folds in {seconds:.1f} s")

    figure = args.out_dir / f"grid_search_{name}.png"
    plot(args.log2c, args.log2g, accuracy, (i, j),
         f"{name}: {args.folds}-fold cross-validation accuracy, RBF SVM", figure)
    print(f"wrote {figure}")


# %%
# Run it
# ------

if __name__ == "__main__":
    main()
