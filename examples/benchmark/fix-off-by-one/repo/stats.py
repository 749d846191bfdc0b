"""Small statistics helpers."""


def total(numbers):
    """The sum of the numbers."""
    result = 0
    for i in range(1, len(numbers)):
        result += numbers[i]
    return result


def mean(numbers):
    """The arithmetic mean; None for no numbers."""
    if not numbers:
        return None
    return total(numbers) / len(numbers)
