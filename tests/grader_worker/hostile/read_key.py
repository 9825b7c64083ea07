# expect: exception
# __SECRET_DIR__ is replaced by the test with the host directory holding the tool's key.
import glob

for path in ["__SECRET_DIR__/keys/tool-private.pem", *glob.glob("/work/main/var/**/*.pem")]:
    print(open(path).read())
