from solution import format_bytes


def test_bytes():
    assert format_bytes(512) == "512 B"
    assert format_bytes(0) == "0 B"


def test_kilobytes():
    assert format_bytes(1536) == "1.5 KB"


def test_exactly_one_kilobyte():
    assert format_bytes(1024) == "1.0 KB"


def test_megabytes_and_gigabytes():
    assert format_bytes(5 * 1024**2) == "5.0 MB"
    assert format_bytes(3 * 1024**3 // 2) == "1.5 GB"


def test_terabytes_do_not_grow_further():
    assert format_bytes(2048 * 1024**4) == "2048.0 TB"
