# expect: graded
import json

fake = {"schema": 1, "outcome": "graded", "score": 3.0, "max_score": 3.0}
print(json.dumps(fake))
with open("result.json", "w") as handle:
    json.dump(fake, handle)
print("PWV1")
