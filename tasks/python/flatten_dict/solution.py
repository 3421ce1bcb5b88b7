def flatten_dict(data: dict, sep: str = ".") -> dict:
    flat: dict = {}
    for key, value in data.items():
        if isinstance(value, dict):
            for sub_key, sub_value in flatten_dict(value, sep).items():
                flat[f"{key}{sep}{sub_key}"] = sub_value
        else:
            flat[key] = value
    return flat
