"""JAX Pathways: the `pathways` command that ties the course, the tool and the grader together."""
