import re

TOKEN = re.compile(r"\s*(?:(\d+)|(.))")


def _tokenize(text: str) -> list[str]:
    tokens = []
    for number, op in TOKEN.findall(text):
        if number:
            tokens.append(number)
        elif op.strip():
            if op not in "+-*/()":
                raise ValueError(f"unexpected character {op!r}")
            tokens.append(op)
    return tokens


class _Parser:
    def __init__(self, tokens: list[str]) -> None:
        self.tokens, self.pos = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> str:
        token = self.peek()
        if token is None:
            raise ValueError("unexpected end of expression")
        self.pos += 1
        return token

    def expr(self) -> float:
        value = self.term()
        while self.peek() in ("+", "-"):
            value = value + self.term() if self.take() == "+" else value - self.term()
        return value

    def term(self) -> float:
        value = self.factor()
        while self.peek() in ("*", "/"):
            value = value * self.factor() if self.take() == "*" else value / self.factor()
        return value

    def factor(self) -> float:
        token = self.take()
        if token == "-":
            return -self.factor()
        if token == "(":
            value = self.expr()
            if self.take() != ")":
                raise ValueError("expected ')'")
            return value
        if token.isdigit():
            return float(token)
        raise ValueError(f"unexpected token {token!r}")


def evaluate_expression(text: str) -> float:
    parser = _Parser(_tokenize(text))
    value = parser.expr()
    if parser.peek() is not None:
        raise ValueError(f"trailing token {parser.peek()!r}")
    return value
