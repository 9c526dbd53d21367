"""The stopping conditions of the core (`libsmo._core.stopping.StopConditions`), which
both solvers ask after every step.

Through `check(n_iter)` (what the nogil `due` answers after n_iter steps): the step cap
stops exactly at max_iter; after every step a coarse clock is read, so the time limit
and another thread's stop flag stop at the next step; a callback is called with the
solver's progress every callback_every steps, stops the run when it returns False (not
None), and what it raises comes out of check(). No assertion depends on how fast this
machine is: a time limit of 0 has passed at the first clock read, whenever that is.
"""
import numpy as np
import pytest

from libsmo._core.stopping import StopConditions


def conditions(max_iter=None, callback=None, callback_every=1000, time_limit=None,
               stop_flag=None, progress=dict):
    return StopConditions(max_iter, callback, callback_every, time_limit, stop_flag,
                          progress)


def test_nothing_set_never_stops():
    stop = conditions()
    assert all(stop.check(n) is None for n in range(5000))


@pytest.mark.parametrize("max_iter", [1, 31, 32, 33, 1000])
def test_max_iter_stops_exactly_at_the_cap(max_iter):
    stop = conditions(max_iter=max_iter)
    assert [stop.check(n) for n in range(max_iter)] == [None] * max_iter
    assert stop.check(max_iter) == "max_iter"
    assert stop.check(max_iter + 1) == "max_iter"


def test_a_time_limit_of_zero_stops_at_the_first_step():
    stop = conditions(time_limit=0.0)
    assert stop.check(1) == "time_limit"
    assert stop.check(2) == "time_limit"


def test_a_distant_time_limit_does_not_stop():
    stop = conditions(time_limit=1e9)
    assert all(stop.check(n) is None for n in range(0, 1000))


def test_the_step_cap_is_checked_before_the_clock():
    stop = conditions(max_iter=64, time_limit=0.0)
    assert stop.check(64) == "max_iter"
    assert stop.check(32) == "time_limit"


def test_the_stop_flag_stops_at_the_next_step():
    flag = np.zeros(1, dtype=np.int8)
    stop = conditions(stop_flag=flag)
    assert all(stop.check(n) is None for n in range(1, 160))
    flag[0] = 1
    assert stop.check(160) == "stopped"
    flag[0] = 0
    assert stop.check(161) is None


def test_the_stop_flag_after_the_cap_and_the_time_limit():
    flag = np.ones(1, dtype=np.int8)
    assert conditions(max_iter=32, stop_flag=flag).check(32) == "max_iter"
    assert conditions(time_limit=0.0, stop_flag=flag).check(32) == "time_limit"
    assert conditions(time_limit=1e9, stop_flag=flag).check(32) == "stopped"


def due_steps(callback_every, n_steps):
    """The steps at which a callback is due: every callback_every steps (the clock, and
    with it the callback's turn, is looked at after every step)."""
    return list(range(callback_every, n_steps + 1, callback_every))


class Recorder:
    """A callback that records at which step it was called (through `progress`)."""

    def __init__(self, answer=None):
        self.answer, self.n, self.calls, self.seen = answer, 0, [], []

    def progress(self):
        return {"n_iter": self.n}

    def __call__(self, info):
        self.calls.append(self.n)
        self.seen.append(info)
        return self.answer

    def run(self, stop, n_steps):
        statuses = []
        for n in range(1, n_steps + 1):
            self.n = n
            statuses.append(stop.check(n))
        return statuses


@pytest.mark.parametrize("callback_every", [1, 10, 32, 100, 250, 1000])
def test_the_callback_is_called_no_more_often_than_callback_every(callback_every):
    recorder = Recorder(answer=None)
    stop = conditions(callback=recorder, callback_every=callback_every,
                      progress=recorder.progress)
    statuses = recorder.run(stop, 3000)
    assert statuses == [None] * 3000  # None does not stop
    assert recorder.calls == due_steps(callback_every, 3000)
    assert len(recorder.calls) == len(set(recorder.calls)) > 0
    gaps = np.diff([0] + recorder.calls)
    assert np.all(gaps == callback_every)
    # each call gets the solver's progress at that step
    assert recorder.seen == [{"n_iter": n} for n in recorder.calls]


def test_callback_every_below_one_is_every_step():
    recorder = Recorder()
    stop = conditions(callback=recorder, callback_every=0, progress=recorder.progress)
    recorder.run(stop, 200)
    assert recorder.calls == list(range(1, 201))


def test_a_callback_returning_false_stops_when_it_is_due():
    recorder = Recorder(answer=False)
    stop = conditions(callback=recorder, callback_every=100, progress=recorder.progress)
    statuses = recorder.run(stop, 99)
    assert statuses == [None] * 99 and recorder.calls == []
    recorder.n = 100
    assert stop.check(100) == "stopped"
    assert recorder.calls == [100]


@pytest.mark.parametrize("answer", [None, True])
def test_a_callback_returning_anything_but_false_goes_on(answer):
    recorder = Recorder(answer=answer)
    stop = conditions(callback=recorder, callback_every=64, progress=recorder.progress)
    assert recorder.run(stop, 640) == [None] * 640
    assert recorder.calls == list(range(64, 641, 64))


class CallbackError(Exception):
    pass


def test_an_exception_in_the_callback_comes_out_of_check():
    def callback(info):
        raise CallbackError(info["n_iter"])

    recorder = Recorder()
    stop = conditions(callback=callback, callback_every=50, progress=recorder.progress)
    assert recorder.run(stop, 49) == [None] * 49
    recorder.n = 50
    with pytest.raises(CallbackError) as caught:
        stop.check(50)
    assert caught.value.args == (50,)


def test_keyboard_interrupt_from_the_callback_comes_out_too():
    def callback(info):
        raise KeyboardInterrupt

    stop = conditions(callback=callback, callback_every=1)
    with pytest.raises(KeyboardInterrupt):
        stop.check(32)



def test_an_empty_stop_flag_is_refused():
    # stop_flag[0] is read without bounds checks
    with pytest.raises(ValueError, match="stop_flag must have at least one entry"):
        conditions(stop_flag=np.zeros(0, dtype=np.int8))
