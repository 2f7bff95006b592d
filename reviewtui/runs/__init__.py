"""Runs: the runner (bounded concurrency, cancellation, progress) and Message Batches with their
throttle, the response cache, whose results a run folder holds (identity), the result files with
the gate and the summary (results), stored runs (listing, loading, re-scoring), the statistics of
a run and the comparison of two."""
