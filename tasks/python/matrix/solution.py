class Matrix:
    def __init__(self, rows: list[list[float]]) -> None:
        if not rows or not rows[0]:
            raise ValueError("a matrix needs at least one non-empty row")
        if any(len(row) != len(rows[0]) for row in rows):
            raise ValueError("all rows must have the same length")
        self._rows = [list(row) for row in rows]

    @property
    def rows(self) -> list[list[float]]:
        return [list(row) for row in self._rows]

    @property
    def shape(self) -> tuple[int, int]:
        return len(self._rows), len(self._rows[0])

    def __add__(self, other: "Matrix") -> "Matrix":
        if self.shape != other.shape:
            raise ValueError(f"cannot add shapes {self.shape} and {other.shape}")
        return Matrix([[a + b for a, b in zip(r, s)] for r, s in zip(self._rows, other._rows)])

    def __matmul__(self, other: "Matrix") -> "Matrix":
        if self.shape[1] != other.shape[0]:
            raise ValueError(f"cannot multiply shapes {self.shape} and {other.shape}")
        columns = list(zip(*other._rows))
        return Matrix([[sum(a * b for a, b in zip(row, col)) for col in columns] for row in self._rows])

    def transpose(self) -> "Matrix":
        return Matrix([list(col) for col in zip(*self._rows)])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Matrix):
            return NotImplemented
        return self._rows == other._rows

    @classmethod
    def identity(cls, n: int) -> "Matrix":
        return cls([[1 if i == j else 0 for j in range(n)] for i in range(n)])

    def __repr__(self) -> str:
        return f"Matrix({self._rows})"
