import unittest

from stats import mean, total


class StatsTest(unittest.TestCase):
    def test_total(self):
        self.assertEqual(total([1, 2, 3]), 6)
        self.assertEqual(total([5]), 5)
        self.assertEqual(total([]), 0)

    def test_mean(self):
        self.assertEqual(mean([2, 4]), 3)
        self.assertIsNone(mean([]))


if __name__ == "__main__":
    unittest.main()
