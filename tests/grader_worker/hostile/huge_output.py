# expect: output_limit
line = "spam " * 200
while True:
    print(line)
