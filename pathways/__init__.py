"""JAX Pathways: the `pathways` command that ties the course, the LTI tool and the grader together."""
