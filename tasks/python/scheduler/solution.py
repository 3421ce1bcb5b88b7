import bisect


class Scheduler:
    def __init__(self) -> None:
        self._slots: list[tuple[int, int]] = []  # sorted, never overlapping

    def book(self, start: int, end: int) -> bool:
        if start >= end:
            raise ValueError(f"a slot must end after it starts, got ({start}, {end})")
        i = bisect.bisect_left(self._slots, (start, end))
        if i > 0 and self._slots[i - 1][1] > start:
            return False
        if i < len(self._slots) and self._slots[i][0] < end:
            return False
        self._slots.insert(i, (start, end))
        return True

    def cancel(self, start: int, end: int) -> None:
        try:
            self._slots.remove((start, end))
        except ValueError:
            raise ValueError(f"no booking ({start}, {end})") from None

    def bookings(self) -> list[tuple[int, int]]:
        return list(self._slots)

    def free_slots(self, day_start: int, day_end: int) -> list[tuple[int, int]]:
        gaps = []
        cursor = day_start
        for start, end in self._slots:
            if end <= cursor:
                continue
            if start >= day_end:
                break
            if start > cursor:
                gaps.append((cursor, start))
            cursor = max(cursor, end)
        if cursor < day_end:
            gaps.append((cursor, day_end))
        return gaps
