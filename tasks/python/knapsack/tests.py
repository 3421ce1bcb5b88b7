from solution import knapsack


def test_example():
    assert knapsack([(5, 10), (4, 40), (6, 30), (3, 50)], 10) == 90


def test_value_per_weight_greedy_is_wrong():
    assert knapsack([(6, 30), (5, 24), (5, 24)], 10) == 48


def test_each_item_at_most_once():
    assert knapsack([(1, 10)], 5) == 10


def test_nothing_fits():
    assert knapsack([(4, 7), (9, 1)], 3) == 0 and knapsack([], 10) == 0 and knapsack([(4, 7), (9, 1)], 4) == 7


def test_many_items():
    items = [((i * 17) % 23 + 1, (i * 29) % 31 + 1) for i in range(60)]
    assert knapsack(items, 200) == 536


def test_negative_capacity_raises():
    assert knapsack([(1, 1)], 0) == 0 and knapsack([(1, 1)], 1) == 1
    try:
        knapsack([(1, 1)], -1)
    except ValueError:
        return
    raise AssertionError("a negative capacity should raise ValueError")
