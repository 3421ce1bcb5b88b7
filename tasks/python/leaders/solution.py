def leaders(numbers: list[int]) -> list[int]:
    result = []
    for n in reversed(numbers):
        if not result or n > result[-1]:
            result.append(n)
    return result[::-1]
