from solution import Scheduler


def _raises_value_error(action):
    try:
        action()
    except ValueError:
        return True
    return False


def test_bookings_are_sorted():
    s = Scheduler()
    assert s.book(12, 13) is True and s.book(9, 10) is True
    assert s.bookings() == [(9, 10), (12, 13)]


def test_overlap_is_refused_and_not_recorded():
    s = Scheduler()
    s.book(9, 11)
    assert s.book(10, 12) is False and s.book(8, 9.5) is False and s.book(9, 11) is False
    assert s.bookings() == [(9, 11)]


def test_touching_slots_are_fine():
    s = Scheduler()
    assert s.book(9, 10) and s.book(10, 11) and s.book(8, 9)
    assert s.bookings() == [(8, 9), (9, 10), (10, 11)]


def test_empty_or_backwards_slot_raises():
    s = Scheduler()
    assert _raises_value_error(lambda: s.book(5, 5)) and _raises_value_error(lambda: s.book(6, 5))
    assert s.book(5, 6) is True and s.bookings() == [(5, 6)]


def test_free_slots():
    s = Scheduler()
    s.book(9, 10)
    s.book(12, 13)
    s.book(13, 15)
    assert s.free_slots(8, 14) == [(8, 9), (10, 12)]
    assert s.free_slots(9, 10) == [] and Scheduler().free_slots(0, 5) == [(0, 5)]


def test_cancel():
    s = Scheduler()
    s.book(9, 10)
    s.cancel(9, 10)
    assert s.bookings() == [] and s.book(9, 10) is True
    assert _raises_value_error(lambda: s.cancel(1, 2))
