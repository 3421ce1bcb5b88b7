def clamp(value: float, low: float, high: float) -> float:
    return max(low, min(value, high))
