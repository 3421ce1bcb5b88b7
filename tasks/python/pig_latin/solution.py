VOWELS = "aeiou"


def _word(word: str) -> str:
    for i, c in enumerate(word):
        if c in VOWELS:
            return word + "way" if i == 0 else word[i:] + word[:i] + "ay"
    return word + "ay"


def pig_latin(text: str) -> str:
    return " ".join(_word(word) for word in text.split(" "))
