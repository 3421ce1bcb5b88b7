def is_palindrome(text: str) -> bool:
    chars = [c.lower() for c in text if c.isalnum()]
    return chars == chars[::-1]
