def square_all(numbers: list[float]) -> list[float]:
    return [n * n for n in numbers]
