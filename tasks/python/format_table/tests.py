from solution import format_table


def test_example():
    expected = " name | qty\n------+----\napple |   3\n  fig |  12"
    assert format_table(["name", "qty"], [["apple", "3"], ["fig", "12"]]) == expected


def test_header_wider_than_cells():
    assert format_table(["number"], [["7"]]) == "number\n------\n     7"


def test_no_rows():
    assert format_table(["a", "bb"], []) == "a | bb\n--+---"


def test_three_columns():
    expected = "x | y | z\n--+---+--\n1 | 2 | 3"
    assert format_table(["x", "y", "z"], [["1", "2", "3"]]) == expected
