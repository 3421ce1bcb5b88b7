MINOR = {"a", "an", "and", "as", "at", "but", "by", "for", "in", "of", "on", "or", "the", "to"}


def headline_case(title: str) -> str:
    words = title.split(" ")
    last = len(words) - 1
    result = []
    for i, word in enumerate(words):
        lower = word.lower()
        if lower in MINOR and 0 < i < last:
            result.append(lower)
        else:
            result.append(lower[:1].upper() + lower[1:])
    return " ".join(result)
