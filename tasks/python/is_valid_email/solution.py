import re

LOCAL = re.compile(r"[A-Za-z0-9._+-]+")
LABEL = re.compile(r"[A-Za-z0-9-]+")
TOP_LEVEL = re.compile(r"[A-Za-z]{2,}")


def is_valid_email(address: str) -> bool:
    if address.count("@") != 1:
        return False
    local, domain = address.split("@")
    labels = domain.split(".")
    return (
        LOCAL.fullmatch(local) is not None
        and len(labels) >= 2
        and all(LABEL.fullmatch(label) for label in labels)
        and TOP_LEVEL.fullmatch(labels[-1]) is not None
    )
