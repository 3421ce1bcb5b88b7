import re


def extract_hashtags(text: str) -> list[str]:
    tags: list[str] = []
    for tag in re.findall(r"#(\w+)", text):
        if tag not in tags:
            tags.append(tag)
    return tags
