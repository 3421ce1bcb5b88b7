ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}


def html_escape(text: str) -> str:
    return "".join(ENTITIES.get(c, c) for c in text)
