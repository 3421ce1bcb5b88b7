def count_inversions(items: list[int]) -> int:
    return _sort_and_count(list(items))[1]


def _sort_and_count(items: list[int]) -> tuple[list[int], int]:
    if len(items) <= 1:
        return items, 0
    middle = len(items) // 2
    left, left_count = _sort_and_count(items[:middle])
    right, right_count = _sort_and_count(items[middle:])
    merged, count = [], left_count + right_count
    i = j = 0
    while i < len(left) and j < len(right):
        if right[j] < left[i]:
            merged.append(right[j])
            count += len(left) - i  # right[j] is smaller than every item left in `left`
            j += 1
        else:
            merged.append(left[i])
            i += 1
    return merged + left[i:] + right[j:], count
