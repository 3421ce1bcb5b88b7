def dict_diff(old: dict, new: dict) -> dict[str, list]:
    return {
        "added": sorted(key for key in new if key not in old),
        "removed": sorted(key for key in old if key not in new),
        "changed": sorted(key for key in old if key in new and old[key] != new[key]),
    }
