from solution import fizzbuzz


def test_five():
    assert fizzbuzz(5) == ["1", "2", "Fizz", "4", "Buzz"]


def test_fifteen_last():
    assert fizzbuzz(15)[-1] == "FizzBuzz"


def test_zero():
    assert fizzbuzz(0) == [] and fizzbuzz(1) == ["1"]


def test_length():
    assert len(fizzbuzz(31)) == 31
