def pluck(records: list[dict], key: str) -> list:
    return [record[key] for record in records if key in record]
