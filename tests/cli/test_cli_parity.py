"""The commands against Debian's svm-train and svm-predict (LIBSVM 3.24), line for
line: training lines (-v, -s 3, -b 1, ...), model files, LIBSVM's errors and warnings,
svm-predict's -b refusals; and what LIBSVM does not promise but a script needs: no
traceback, one line and status 1 when stdout is closed or full or a prediction fails,
labels checked before training, a start without numpy for usage errors."""
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from test_cli import need_libsvm_tools, run

from helpers.data import data_file

# LIBSVM's solver prints progress dots and stars ('.....*') on the line before
# "optimization finished"; libsmo shows a progress line on a terminal instead
DOTS = re.compile(r"^[.*]+(?=\n|$)|^[.*]+$", re.M)


def libsvm_lines(text):
    return "\n".join(line for line in DOTS.sub("", text).split("\n") if line) + "\n"


def first_words(text):
    """LIBSVM's message: libsmo may add its detail after it on the same line."""
    return [re.sub(r" \(.*\)$", "", line) for line in text.splitlines()]


def model_lines_match(theirs, ours):
    """Model files equal line for line: the same words and indices, numbers to 1e-12
    (nu-SVC's 1/r scaling and Platt's Newton steps may round their last bit
    differently; svm-train writes 17 digits)."""
    a, b = theirs.read_text().splitlines(), ours.read_text().splitlines()
    assert len(a) == len(b)
    for x, y in zip(a, b):
        xs, ys = x.split(), y.split()
        assert len(xs) == len(ys), (x, y)
        for u, w in zip(xs, ys):
            if u == w:
                continue
            (iu, vu), (iw, vw) = (t.rpartition(":")[::2] for t in (u, w))
            assert iu == iw, (x, y)
            np.testing.assert_allclose(float(vw), float(vu), rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("options,name", [
    ([], "heart_scale"),
    (["-s", "3"], "housing_scale"),
    (["-v", "5"], "heart_scale"),
    (["-s", "3", "-v", "5"], "housing_scale"),
    (["-b", "1"], "heart_scale"),
    (["-s", "3", "-b", "1"], "housing_scale"),
    (["-s", "1", "-b", "1"], "heart_scale"),
    (["-s", "2"], "heart_scale"),
    (["-s", "4"], "housing_scale"),
    (["-w3", "2"], "heart_scale"),
    (["-q", "-v", "300"], "heart_scale"),
    # "WARNING: using -h 0 may be faster" (gradient rebuilds with few free variables)
    (["-t", "0", "-e", "0.01"], "heart_scale"),
    (["-s", "4", "-t", "0"], "bodyfat_scale"),
    # LIBSVM's steps where the timing of shrinking decides them
    (["-t", "0", "-c", "10"], "heart_scale"),
    # 45 pairs whose alphas sit at C or a rounding below it: LIBSVM's exact nBSV test
    ([], "pendigits"),
], ids=lambda v: " ".join(v) if isinstance(v, list) else v)
def test_train_prints_svm_trains_lines_and_writes_its_model(tmp_path, options, name):
    need_libsvm_tools()
    data = data_file(name)
    theirs = run(["svm-train", *options, data, "theirs.model"], tmp_path)
    ours = run(["libsmo-train", *options, data, "ours.model"], tmp_path)
    assert libsvm_lines(ours.stdout) == libsvm_lines(theirs.stdout)
    assert ours.stderr == theirs.stderr
    if "-v" not in options:
        model_lines_match(tmp_path / "theirs.model", tmp_path / "ours.model")


def test_step_cap_warnings_are_svm_trains_lines(tmp_path):
    """Pairs that reach LIBSVM's 10,000,000-step cap (a cubic kernel on pendigits'
    0-100 pixel values): the same warning lines on stderr, each after an empty line as
    svm-train prints it, and the same training lines."""
    need_libsvm_tools()
    rows = open(data_file("pendigits")).read().splitlines(keepends=True)[:100]
    (tmp_path / "pend100").write_text("".join(rows))
    options = ["-s", "1", "-t", "1", "-g", "0.5", "pend100"]
    theirs = run(["svm-train", *options, "theirs.model"], tmp_path)
    ours = run(["libsmo-train", *options, "ours.model"], tmp_path)
    assert theirs.stderr.startswith("\nWARNING: reaching max number of iterations\n")
    assert ours.stderr == theirs.stderr
    assert libsvm_lines(ours.stdout) == libsvm_lines(theirs.stdout)


@pytest.mark.parametrize("options", [
    ["-c", "0"], ["-t", "7"], ["-s", "9"], ["-s", "1", "-n", "0.99"], ["-g", "-1"],
    ["-t", "1", "-d", "-1"], ["-m", "0"], ["-e", "0"], ["-s", "3", "-p", "-1"],
    ["-h", "2"], ["-b", "2"], ["-n", "1.5", "-s", "2"],
], ids=" ".join)
def test_parameter_errors_are_svm_trains(tmp_path, options):
    need_libsvm_tools()
    data = data_file("heart_scale")
    theirs = run(["svm-train", *options, data, "m1"], tmp_path, ok=False)
    ours = run(["libsmo-train", *options, data, "m2"], tmp_path, ok=False)
    assert ours.returncode == theirs.returncode == 1
    assert first_words(ours.stderr) == theirs.stderr.splitlines()
    assert ours.stdout == theirs.stdout == ""
    assert not (tmp_path / "m2").exists()


@pytest.mark.parametrize("args", [["-v", "1", "{data}"], ["-x", "1", "{data}"], [],
                                  ["-c"], ["{missing}"]], ids=str)
def test_usage_and_file_errors_are_svm_trains(tmp_path, args):
    need_libsvm_tools()
    values = {"data": data_file("heart_scale"), "missing": tmp_path / "nope"}
    args = [a.format(**values) for a in args]
    theirs = run(["svm-train", *args], tmp_path, ok=False)
    ours = run(["libsmo-train", *args], tmp_path, ok=False)
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr == theirs.stderr
    ours_usage = ours.stdout.replace("libsmo-train", "svm-train").split("libsmo only:")[0]
    assert ours_usage == theirs.stdout


def test_a_malformed_line_is_named_as_svm_train_names_it(tmp_path):
    need_libsvm_tools()
    bad = tmp_path / "bad.txt"
    bad.write_text("1 1:0.5 2:1\n-1 1:0.25 2:x\n")
    theirs = run(["svm-train", bad], tmp_path, ok=False)
    ours = run(["libsmo-train", bad], tmp_path, ok=False)
    assert ours.returncode == theirs.returncode == 1
    assert first_words(ours.stderr) == theirs.stderr.splitlines() == [
        "Wrong input format at line 2"]


def test_non_integer_labels_are_refused_before_training(tmp_path):
    data = tmp_path / "real_labels.txt"
    lines = data_file("heart_scale").read_text().splitlines()
    lines[3] = "1.5 " + lines[3].split(" ", 1)[1]
    data.write_text("\n".join(lines) + "\n")
    out = run(["libsmo-train", data, "m"], tmp_path, ok=False)
    assert out.returncode == 1 and out.stdout == ""      # no training line printed
    assert out.stderr == ("ERROR: class labels must be integers, as LIBSVM's model files "
                          "store them: example 4 has label 1.5\n")
    assert not (tmp_path / "m").exists()
    run(["libsmo-train", "-q", "-s", "3", data, "m"], tmp_path)   # regression: real


def test_a_feature_index_0_is_refused_by_every_command(tmp_path):
    """LIBSVM's features start at 1 (its README). The commands refuse index 0 with the
    line that names it, instead of reading that one file zero-based: the features of a
    training file and of the files predicted or scaled with it stay the same features."""
    heart = data_file("heart_scale")
    (tmp_path / "zero").write_text("1 0:0.5 2:3\n-1 0:0.2 2:0.1\n1 1:4\n")
    run(["libsmo-train", "-q", heart, "heart.model"], tmp_path)
    for command in (["libsmo-train", "-q", "zero", "zero.model"],
                    ["libsmo-predict", "zero", "heart.model", "out"],
                    ["libsmo-grid", "-log2c", "0,0,1", "-log2g", "0,0,1", "zero"],
                    ["libsmo-scale", "zero"]):
        result = run(command, tmp_path, ok=False)
        assert result.returncode == 1, command
        assert "line 1" in result.stderr and "feature index 0" in result.stderr, command
        assert result.stdout == ""
    assert not (tmp_path / "zero.model").exists() and not (tmp_path / "out").exists()


def test_training_data_of_one_class_is_svm_trains_model(tmp_path):
    """svm-train warns and writes a model of one class, no support vector and no rho,
    which predicts its label everywhere (libsmo.train refuses such data, as
    scikit-learn does; the command is svm-train's). The lines, the model file's bytes,
    -v's folds and svm-predict -b 1 on the model, as svm-train and svm-predict give them."""
    need_libsvm_tools()
    heart = data_file("heart_scale")
    rows = [line for line in open(heart) if line.startswith("+1")][:50]
    (tmp_path / "one").write_text("".join(rows))
    for options in ([], ["-b", "1"], ["-s", "1"], ["-w2", "3"], ["-v", "5"]):
        theirs = run(["svm-train", *options, "one", "theirs.model"], tmp_path)
        ours = run(["libsmo-train", *options, "one", "ours.model"], tmp_path)
        assert (ours.stdout, ours.stderr) == (theirs.stdout, theirs.stderr), options
        assert "training data in only one class" in ours.stdout
        if "-v" not in options:
            assert ((tmp_path / "ours.model").read_bytes()
                    == (tmp_path / "theirs.model").read_bytes()), options
    run(["svm-train", "-b", "1", "one", "m"], tmp_path)
    theirs = run(["svm-predict", "-b", "1", heart, "m", "o1"], tmp_path)
    ours = run(["libsmo-predict", "-b", "1", heart, "m", "o2"], tmp_path)
    assert ours.stdout == theirs.stdout
    assert (tmp_path / "o2").read_text() == (tmp_path / "o1").read_text()


def test_predict_is_svm_predict(tmp_path):
    need_libsvm_tools()
    heart, housing = data_file("heart_scale"), data_file("housing_scale")
    run(["svm-train", "-q", heart, "plain.model"], tmp_path)
    run(["svm-train", "-q", "-b", "1", heart, "prob.model"], tmp_path)
    run(["svm-train", "-q", "-s", "3", "-b", "1", housing, "svr.model"], tmp_path)
    for args in ([heart, "plain.model"], [heart, "prob.model"],
                 ["-b", "1", heart, "prob.model"], ["-b", "1", housing, "svr.model"],
                 ["-q", "-b", "1", heart, "prob.model"]):
        theirs = run(["svm-predict", *args, "o1"], tmp_path)
        ours = run(["libsmo-predict", *args, "o2"], tmp_path)
        assert (ours.stdout, ours.stderr) == (theirs.stdout, theirs.stderr)
        a = (tmp_path / "o1").read_text().splitlines()
        b = (tmp_path / "o2").read_text().splitlines()
        assert len(a) == len(b)
        start = 1 if a[0].startswith("labels") else 0
        assert a[:start] == b[:start]
        # regression values to the last digits of %.17g: BLAS sums the kernel
        # expansion in another order than svm-predict's loop
        np.testing.assert_allclose(np.loadtxt(b[start:]), np.loadtxt(a[start:]), rtol=1e-12)


def test_predicts_closing_lines_are_svm_predicts_to_the_digit(tmp_path):
    """svm-predict's sums one after another: bodyfat's nearly constant predictions give
    a squared correlation of -4.5e-12 there (a pairwise sum gave 0), and 0/0 prints as
    C prints it on x86, "-nan" (an empty test file)."""
    need_libsvm_tools()
    bodyfat, heart = data_file("bodyfat_scale"), data_file("heart_scale")
    (tmp_path / "empty").write_text("")
    run(["svm-train", "-q", "-s", "3", bodyfat, "svr.model"], tmp_path)
    run(["svm-train", "-q", heart, "svc.model"], tmp_path)
    for args in ([bodyfat, "svr.model"], ["empty", "svr.model"], ["empty", "svc.model"]):
        theirs = run(["svm-predict", *args, "o1"], tmp_path)
        ours = run(["libsmo-predict", *args, "o2"], tmp_path)
        assert ours.stdout == theirs.stdout
    assert "-nan" in ours.stdout


def test_predict_refuses_minus_b_1_without_probabilities(tmp_path):
    need_libsvm_tools()
    heart = data_file("heart_scale")
    run(["svm-train", "-q", heart, "plain.model"], tmp_path)
    theirs = run(["svm-predict", "-b", "1", heart, "plain.model", "o1"], tmp_path, ok=False)
    ours = run(["libsmo-predict", "-b", "1", heart, "plain.model", "o2"], tmp_path, ok=False)
    assert ours.returncode == theirs.returncode == 1
    assert ours.stderr == theirs.stderr == "Model does not support probabiliy estimates\n"
    assert not (tmp_path / "o2").exists()   # svm-predict leaves an empty file


@pytest.mark.parametrize("args", [["{data}", "{missing}"], ["{missing}", "{model}"],
                                  ["-x", "{data}", "{model}"], ["{data}"]], ids=str)
def test_predict_errors_are_svm_predicts(tmp_path, args):
    need_libsvm_tools()
    data = data_file("heart_scale")
    run(["svm-train", "-q", data, "m.model"], tmp_path)
    args = [a.format(data=data, missing=tmp_path / "nope", model="m.model") for a in args]
    theirs = run(["svm-predict", *args, "o1"], tmp_path, ok=False)
    ours = run(["libsmo-predict", *args, "o2"], tmp_path, ok=False)
    assert ours.returncode == theirs.returncode == 1
    assert first_words(ours.stderr) == theirs.stderr.splitlines()
    assert ours.stdout.replace("libsmo-predict", "svm-predict") == theirs.stdout


def test_a_failing_prediction_is_one_line(tmp_path):
    """A linear model with a coefficient of 1e308 (decision values overflow) and a
    precomputed model whose support vectors need columns the file lacks."""
    data = data_file("heart_scale")
    run(["libsmo-train", "-q", "-t", "0", data, "lin.model"], tmp_path)
    lines = (tmp_path / "lin.model").read_text().splitlines()
    at = lines.index("SV") + 1
    lines[at] = "1e308 " + lines[at].split(" ", 1)[1]
    (tmp_path / "big.model").write_text("\n".join(lines) + "\n")
    out = run(["libsmo-predict", data, "big.model", "o"], tmp_path, ok=False)
    assert out.returncode == 1 and len(out.stderr.splitlines()) == 1
    assert out.stderr.startswith("can't predict with model file big.model: ")
    train = tmp_path / "k.txt"
    train.write_text("1 0:1 1:1 2:0 3:0\n-1 0:2 1:0 2:1 3:0\n1 0:3 1:0 2:0 3:1\n")
    run(["libsmo-train", "-q", "-t", "4", train, "k.model"], tmp_path)
    test = tmp_path / "k_test.txt"
    test.write_text("1 0:1 1:1\n")
    out = run(["libsmo-predict", test, "k.model", "o"], tmp_path, ok=False)
    assert out.returncode == 1 and len(out.stderr.splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_precomputed_kernels_follow_the_serial_numbers(tmp_path):
    """svm-train reads K(i, j) at row i's column serial(j): rows given out of order
    train the same model as svm-train's."""
    need_libsvm_tools()
    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3))
    y = np.where(X[:, 0] > 0, 1, -1)
    K = X @ X.T
    order = rng.permutation(12)
    with open(tmp_path / "k.txt", "w") as f:
        for i in order:
            f.write(f"{y[i]} 0:{i + 1} " + " ".join(f"{j + 1}:{K[i, j]:.17g}"
                                                   for j in range(12)) + "\n")
    run(["svm-train", "-q", "-t", "4", "k.txt", "theirs.model"], tmp_path)
    run(["libsmo-train", "-q", "-t", "4", "k.txt", "ours.model"], tmp_path)
    model_lines_match(tmp_path / "theirs.model", tmp_path / "ours.model")


@pytest.mark.parametrize("tool,args", [
    ("libsmo-train", ["{data}", "m"]),
    ("libsmo-train", ["-v", "5", "{data}"]),
    ("libsmo-predict", ["{data}", "{model}", "o"]),
    ("libsmo-scale", ["{data}"]),
])
@pytest.mark.parametrize("stdout", ["closed", "full"])
def test_unwritable_stdout_is_one_line_and_status_1(tmp_path, tool, args, stdout):
    if stdout == "full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full on this system")
    data = data_file("heart_scale")
    run(["libsmo-train", "-q", data, "h.model"], tmp_path)
    args = [a.format(data=data, model="h.model") for a in args]
    command = [sys.executable, "-m", "libsmo", tool[len("libsmo-"):], *args]
    if stdout == "closed":
        out = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             cwd=tmp_path, text=True, timeout=300,
                             preexec_fn=lambda: os.close(1))
    else:
        with open("/dev/full", "w") as full:
            out = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, cwd=tmp_path,
                                 text=True, timeout=300)
    assert out.returncode == 1
    assert out.stderr.startswith(f"{tool}: can't write to standard output: ")
    assert len(out.stderr.splitlines()) == 1, out.stderr


def fresh_python(code, cwd, timeout=120):
    """Run `code` in a fresh interpreter (nothing imported yet) from cwd; the result."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def test_usage_errors_start_without_numpy(tmp_path):
    """`import libsmo.cli` and a usage error import neither numpy, scipy nor
    scikit-learn (start-up: the commands' own cost is then milliseconds)."""
    code = ("import sys, io, contextlib\n"
            "import libsmo.cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = [libsmo.cli.train_main([]), libsmo.cli.predict_main([]),\n"
            "              libsmo.cli.scale_main([]), libsmo.cli.grid_main([])]\n"
            "print(status, sorted(m for m in ('numpy', 'scipy', 'sklearn')\n"
            "                     if m in sys.modules))\n")
    out = fresh_python(code, tmp_path, timeout=60)
    assert out.stdout.strip() == "[1, 1, 1, 1] []", out.stderr


def test_small_dense_trainings_never_import_scipy(tmp_path):
    """heart_scale (270 rows, 13 features, 96% stored) is read into dense rows, as the
    solver would copy it anyway: a training, a cross-validation, a grid, a prediction
    and a scaling import no scipy (0.1-0.2 s of start-up), and the model file, the
    predictions and the scaled data are LIBSVM's tools', byte for byte."""
    need_libsvm_tools()
    code = ("import sys, io, contextlib\n"
            "import libsmo.cli\n"
            f"data = {str(data_file('heart_scale'))!r}\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    status = [libsmo.cli.train_main(['-q', data, 'libsmo.model']),\n"
            "              libsmo.cli.train_main(['-q', '-v', '5', data]),\n"
            "              libsmo.cli.grid_main(['-log2c', '1,3,2', '-log2g', '-3,-1,2',\n"
            "                                    '-out', 'null', '-gnuplot', 'null', data]),\n"
            "              libsmo.cli.predict_main([data, 'libsmo.model', 'libsmo.out'])]\n"
            "with open('libsmo.scaled', 'w') as f, contextlib.redirect_stdout(f):\n"
            "    status.append(libsmo.cli.scale_main(['-l', '0', data]))\n"
            "print(status, sorted(m for m in sys.modules if m.startswith('scipy'))[:3])\n")
    out = fresh_python(code, tmp_path)
    assert out.stdout.strip() == "[0, 0, 0, 0, 0] []", (out.stdout, out.stderr)
    run(["svm-train", "-q", data_file("heart_scale"), "svm.model"], tmp_path)
    assert (tmp_path / "libsmo.model").read_bytes() == (tmp_path / "svm.model").read_bytes()
    run(["svm-predict", data_file("heart_scale"), "svm.model", "svm.out"], tmp_path)
    assert (tmp_path / "libsmo.out").read_bytes() == (tmp_path / "svm.out").read_bytes()
    scaled = run(["svm-scale", "-l", "0", data_file("heart_scale")], tmp_path).stdout
    assert (tmp_path / "libsmo.scaled").read_text() == scaled


def test_explicit_zeros_keep_the_rows_sparse(tmp_path):
    """A file that stores zeros (every heart_scale line with `14:0` appended) is read as
    CSR: svm-train writes those zeros in the support vectors' lines, and so does
    libsmo-train, byte for byte."""
    need_libsvm_tools()
    lines = open(data_file("heart_scale")).read().splitlines()
    data = tmp_path / "zeros.txt"
    data.write_text("".join(line.rstrip() + " 14:0\n" for line in lines))
    run(["libsmo-train", "-q", data, "libsmo.model"], tmp_path)
    run(["svm-train", "-q", data, "svm.model"], tmp_path)
    written = (tmp_path / "libsmo.model").read_bytes()
    assert b" 14:0 " in written
    assert written == (tmp_path / "svm.model").read_bytes()


def test_the_package_is_lazy_and_train_stays_the_function(tmp_path):
    """`import libsmo` loads nothing heavy; importing the training package (as the
    commands and the estimators do) leaves `libsmo.train` the function."""
    code = ("import sys, libsmo\n"
            "print(sorted(m for m in ('numpy', 'scipy', 'sklearn') if m in sys.modules))\n"
            "import libsmo.training\n"
            "print(callable(libsmo.train), libsmo.train is libsmo.training.train,\n"
            "      libsmo.train.__module__, type(libsmo.Model).__name__)\n")
    out = fresh_python(code, tmp_path, timeout=60)
    assert out.stdout.split("\n")[:2] == ["[]", "True True libsmo.training._fitting type"], \
        out.stderr


def test_a_constant_kernel_for_nu_svc_is_no_traceback(tmp_path):
    """-s 1 -t 3 on four points: the sigmoid kernel is constant, nu-SVC's margin r is
    0. svm-train writes a model of NaNs; libsmo-train ends in one line (or, once the
    solver's division is guarded, LIBSVM's behaviour), never a traceback."""
    data = tmp_path / "four.txt"
    data.write_text("1 1:50 2:60\n1 1:70 2:80\n-1 1:60 2:90\n-1 1:80 2:50\n")
    out = run(["libsmo-train", "-q", "-s", "1", "-t", "3", data, "m"], tmp_path, ok=False)
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) <= 1
    assert out.returncode in (0, 1)


def test_progress_never_mixes_with_libsvms_lines(tmp_path):
    """A long training (2,610 steps) on a pipe: LIBSVM's five lines and nothing else."""
    out = run(["libsmo-train", "-c", "1000", data_file("heart_scale"), "m"], tmp_path)
    assert [line.split(" =")[0].split(",")[0] for line in out.stdout.splitlines()] == [
        "optimization finished", "nu", "obj", "nSV", "Total nSV"]
    assert out.stderr == ""


def test_a_model_that_cannot_be_saved_is_svm_trains_line(tmp_path):
    target = tmp_path / "no" / "such" / "folder" / "m.model"
    out = run(["libsmo-train", "-q", data_file("heart_scale"), target], tmp_path, ok=False)
    assert out.returncode == 1
    assert out.stderr == f"can't save model to file {target} (No such file or directory)\n"
