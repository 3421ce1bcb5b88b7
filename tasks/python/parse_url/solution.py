import re

DEFAULT_PORTS = {"http": 80, "https": 443}


def parse_url(url: str) -> dict:
    scheme, sep, rest = url.partition("://")
    if not sep or re.fullmatch(r"[A-Za-z]+", scheme) is None:
        raise ValueError(f"bad scheme in {url!r}")
    scheme = scheme.lower()
    rest, _, fragment = rest.partition("#")
    rest, _, query = rest.partition("?")
    slash = rest.find("/")
    authority, path = (rest, "/") if slash < 0 else (rest[:slash], rest[slash:])
    host, colon, port_text = authority.partition(":")
    if not host:
        raise ValueError(f"empty host in {url!r}")
    if colon:
        if re.fullmatch(r"[0-9]+", port_text) is None:
            raise ValueError(f"bad port in {url!r}")
        port = int(port_text)
    else:
        port = DEFAULT_PORTS.get(scheme)
    return {
        "scheme": scheme,
        "host": host.lower(),
        "port": port,
        "path": path,
        "query": query,
        "fragment": fragment,
    }
