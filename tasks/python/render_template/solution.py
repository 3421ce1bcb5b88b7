import re

PLACEHOLDER = re.compile(r"\{\{\s*(\w+)\s*\}\}")


def render_template(template: str, values: dict) -> str:
    return PLACEHOLDER.sub(lambda match: str(values[match.group(1)]), template)
