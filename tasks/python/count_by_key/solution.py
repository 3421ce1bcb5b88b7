def count_by_key(records: list[dict], key: str) -> dict:
    counts: dict = {}
    for record in records:
        if key in record:
            value = record[key]
            counts[value] = counts.get(value, 0) + 1
    return counts
