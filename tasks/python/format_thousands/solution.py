def format_thousands(n: int) -> str:
    return f"{n:,}"
