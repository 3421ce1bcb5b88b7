from solution import collatz_steps


def test_one_takes_no_steps():
    assert collatz_steps(1) == 0 and collatz_steps(2) == 1


def test_example():
    assert collatz_steps(6) == 8


def test_power_of_two():
    assert collatz_steps(16) == 4


def test_long_chain():
    assert collatz_steps(27) == 111


def test_non_positive_raises():
    assert collatz_steps(4) == 2
    try:
        collatz_steps(0)
    except ValueError:
        return
    raise AssertionError("collatz_steps(0) should raise ValueError")
