def validate_password(password: str) -> list[str]:
    checks = [
        ("too short", len(password) < 8),
        ("no lowercase", not any(c.islower() for c in password)),
        ("no uppercase", not any(c.isupper() for c in password)),
        ("no digit", not any(c.isdigit() for c in password)),
        ("has whitespace", any(c.isspace() for c in password)),
    ]
    return [problem for problem, failed in checks if failed]
