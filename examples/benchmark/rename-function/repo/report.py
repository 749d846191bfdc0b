from geometry import area_of_rect

if __name__ == "__main__":
    print(f"area: {area_of_rect(3, 4)}")
