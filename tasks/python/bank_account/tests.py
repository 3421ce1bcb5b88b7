import unittest

from solution import BankAccount, InsufficientFunds


class BankAccountTests(unittest.TestCase):
    def test_deposit_then_withdraw(self):
        acct = BankAccount("ada", 10)
        self.assertEqual(acct.deposit(5), 15)
        self.assertEqual(acct.withdraw(3), 12)
        self.assertEqual(acct.balance, 12)

    def test_overdraft(self):
        acct = BankAccount("bob", 5)
        with self.assertRaises(InsufficientFunds):
            acct.withdraw(6)
        self.assertEqual(acct.balance, 5)
        self.assertTrue(issubclass(InsufficientFunds, Exception))

    def test_non_positive_amounts(self):
        acct = BankAccount("cy")
        with self.assertRaises(ValueError):
            acct.deposit(0)
        with self.assertRaises(ValueError):
            acct.withdraw(-1)
        self.assertEqual(acct.deposit(2), 2)

    def test_negative_opening_balance(self):
        with self.assertRaises(ValueError):
            BankAccount("dee", -1)
        self.assertEqual(BankAccount("dee", 0).deposit(3), 3)
