"""A program that reports its numpy BLAS threads (course.tools.execute.BLAS_ENV): a product
large enough for OpenBLAS to use its threads, then ``blas <OPENBLAS_NUM_THREADS> <threads of
the process>`` as its last line. Run by the grader's tests (cold and warm) and the course
tools' (cold and forked)."""

BLAS_THREADS = ("import os\nimport numpy as np\na = np.ones((384, 384))\nprint((a @ a).sum())\n"
                "print('blas', os.environ.get('OPENBLAS_NUM_THREADS'),\n"
                "      len(os.listdir('/proc/self/task')))\n")
