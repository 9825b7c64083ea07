# expect: exception
print(open("__CHECKS_PATH__").read())
import course.checks  # noqa: E402,F401
