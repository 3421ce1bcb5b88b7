import unittest

from solution import Stack


class StackTests(unittest.TestCase):
    def test_push_pop_order(self):
        s = Stack()
        s.push(1)
        s.push(2)
        self.assertEqual(s.pop(), 2)
        self.assertEqual(s.pop(), 1)

    def test_peek_keeps_item(self):
        s = Stack()
        s.push("x")
        self.assertEqual(s.peek(), "x")
        self.assertEqual(len(s), 1)

    def test_empty_pop_raises(self):
        s = Stack()
        s.push(7)
        self.assertEqual(s.pop(), 7)
        with self.assertRaises(IndexError):
            s.pop()

    def test_empty_peek_raises(self):
        with self.assertRaises(IndexError):
            Stack().peek()
        s = Stack()
        s.push(0)
        self.assertEqual(s.peek(), 0)

    def test_len_and_bool(self):
        s = Stack()
        self.assertFalse(s)
        s.push(None)
        self.assertTrue(s)
        self.assertEqual(len(s), 1)
