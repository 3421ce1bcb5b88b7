def missing_keys(record: dict, required: list[str]) -> list[str]:
    return sorted(key for key in required if key not in record)
