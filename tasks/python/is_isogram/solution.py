def is_isogram(word: str) -> bool:
    letters = [c.lower() for c in word if c.isalpha()]
    return len(letters) == len(set(letters))
