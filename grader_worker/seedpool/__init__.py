"""The grading seed pool: the reference's report for many drawn seeds, computed ahead, so a
submission takes one sandboxed run instead of two (docs/SEED_POOL.md)."""

from grader_worker.seedpool.store import Entry, PoolKey, SeedPool

__all__ = ["Entry", "PoolKey", "SeedPool"]
