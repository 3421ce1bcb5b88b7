class Polynomial:
    def __init__(self, coefficients: list[int]) -> None:
        coefficients = list(coefficients)
        while coefficients and coefficients[-1] == 0:
            coefficients.pop()
        self.coefficients = coefficients

    def __call__(self, x: int) -> int:
        result = 0
        for c in reversed(self.coefficients):
            result = result * x + c
        return result

    def __add__(self, other: "Polynomial") -> "Polynomial":
        a, b = self.coefficients, other.coefficients
        size = max(len(a), len(b))
        return Polynomial([(a[i] if i < len(a) else 0) + (b[i] if i < len(b) else 0) for i in range(size)])

    def __mul__(self, other: "Polynomial") -> "Polynomial":
        a, b = self.coefficients, other.coefficients
        product = [0] * max(len(a) + len(b) - 1, 0)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                product[i + j] += x * y
        return Polynomial(product)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Polynomial):
            return NotImplemented
        return self.coefficients == other.coefficients

    def degree(self) -> int:
        return max(len(self.coefficients) - 1, 0)

    def __repr__(self) -> str:
        return f"Polynomial({self.coefficients})"
