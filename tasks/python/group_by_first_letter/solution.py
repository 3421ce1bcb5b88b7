def group_by_first_letter(words: list[str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for word in words:
        if word:
            groups.setdefault(word[0].lower(), []).append(word)
    return groups
