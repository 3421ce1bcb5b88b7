import bisect


def longest_increasing_subsequence(numbers: list[int]) -> int:
    # tails[k]: the smallest possible last item of an increasing subsequence of length k + 1
    tails: list[int] = []
    for n in numbers:
        position = bisect.bisect_left(tails, n)
        if position == len(tails):
            tails.append(n)
        else:
            tails[position] = n
    return len(tails)
