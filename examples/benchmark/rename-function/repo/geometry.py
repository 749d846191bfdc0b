"""Shapes."""


def area_of_rect(width, height):
    """The area of a width x height rectangle."""
    return width * height
