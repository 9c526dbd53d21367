"""What .ci/run runs of the slow set (`pytest -m slow`: the full-size checks): the sdist
test every time, and of the others the quarter that the commit count modulo 4 picks from
.ci/slow-quarters, so that four submissions in a row run every slow test and each run
stays near half an hour on 2 cores.

A slow test added without a line in .ci/slow-quarters would never run: the first test
here fails until it has one.
"""
import subprocess
import sys

from helpers.data import REPO

QUARTERS = REPO / ".ci" / "slow-quarters"
EVERY_RUN = {"tests/project/test_sdist.py::test_sdist_and_wheel_build_and_install"}
# minutes of slow tests a quarter may add to a CI run (the rest of it takes about ten)
QUARTER_MINUTES = 20


def slow_test_ids():
    """The node ids of the slow set, as `pytest -m slow --collect-only -q` lists them."""
    out = subprocess.run([sys.executable, "-m", "pytest", "-m", "slow", "--collect-only",
                          "-q", "-p", "no:cacheprovider"], cwd=REPO, capture_output=True,
                         text=True, check=True)
    # (pytest 9.2 prints collection warnings that name tests too, indented)
    return sorted(line for line in out.stdout.splitlines()
                  if line.startswith("tests/") and "::" in line)


def quarters():
    """(quarter, minutes, node id) of each line of .ci/slow-quarters."""
    rows = []
    for number, line in enumerate(QUARTERS.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split()
        assert len(fields) == 3, f"{QUARTERS.name} line {number}: {line!r}"
        quarter, minutes, test_id = fields
        assert quarter in {"0", "1", "2", "3"}, f"{QUARTERS.name} line {number}"
        rows.append((int(quarter), float(minutes), test_id))
    return rows


def test_every_slow_test_is_in_one_quarter():
    listed = [test_id for _, _, test_id in quarters()]
    assert len(listed) == len(set(listed)), "a test listed twice"
    assert sorted(listed) == sorted(set(slow_test_ids()) - EVERY_RUN)


def test_each_quarter_runs_and_stays_within_its_minutes():
    minutes = {q: 0.0 for q in range(4)}
    for quarter, test_minutes, _ in quarters():
        minutes[quarter] += test_minutes
    assert all(0 < total <= QUARTER_MINUTES for total in minutes.values()), minutes


def test_ci_runs_the_quarter_of_the_commit_count():
    run = (REPO / ".ci" / "run").read_text()
    assert "git rev-list --count HEAD" in run and "% 4" in run and "date -u +%j" in run
    assert "slow-quarters" in run and 'pytest -m slow "${slow_tests[@]}"' in run
